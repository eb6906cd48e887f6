package io.ccm4j.runtime.serving;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What {@code /metrics} answers: the registry's series in Prometheus text, without the {@code
 * <name>_max} gauge Micrometer adds beside each histogram. Upstream's histograms have none: each
 * would be one more series per histogram child that no upstream dashboard reads, a maximum over a
 * sliding window of Micrometer's rather than since the start, under a name an upstream metric could
 * take.
 */
final class MetricsText {

  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private static final String MAX_SUFFIX = "_max";

  private MetricsText() {}

  static String scrape(PrometheusMeterRegistry registry) {
    MetricSnapshots all = registry.getPrometheusRegistry().scrape();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      ExpositionFormats.init().findWriter(CONTENT_TYPE).write(out, withoutHistogramMaxima(all));
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  static MetricSnapshots withoutHistogramMaxima(MetricSnapshots all) {
    Set<String> histograms =
        all.stream()
            .filter(s -> s instanceof HistogramSnapshot || s instanceof SummarySnapshot)
            .map(s -> s.getMetadata().getPrometheusName())
            .collect(Collectors.toSet());
    List<MetricSnapshot> kept =
        all.stream().filter(s -> !isHistogramMaximum(s, histograms)).toList();
    return new MetricSnapshots(kept);
  }

  private static boolean isHistogramMaximum(MetricSnapshot snapshot, Set<String> histograms) {
    String name = snapshot.getMetadata().getPrometheusName();
    return snapshot instanceof GaugeSnapshot
        && name.endsWith(MAX_SUFFIX)
        && histograms.contains(name.substring(0, name.length() - MAX_SUFFIX.length()));
  }
}
