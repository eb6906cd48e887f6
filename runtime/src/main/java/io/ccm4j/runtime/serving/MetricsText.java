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
 * What {@code /metrics} and {@code /metrics/slis} answer: the registries' series in Prometheus
 * text, as Go's client writes it for upstream's managers.
 *
 * <ul>
 *   <li>Without the {@code <name>_max} gauge Micrometer adds beside each histogram. Upstream's
 *       histograms have none: each would be one more series per histogram child that no upstream
 *       dashboard reads, a maximum over a sliding window of Micrometer's rather than since the
 *       start, under a name an upstream metric could take.
 *   <li>Numbers, the {@code le} and {@code quantile} labels included, as Go writes a float64
 *       ({@link GoFloats}): {@code le="1"}, not Java's {@code le="1.0"}. On Prometheus 2 these are
 *       different label values, so a selector written against upstream's series would find none.
 *   <li>This text format unless the scraper prefers protobuf ({@link MetricsFormat}): upstream's
 *       handler does not offer OpenMetrics ({@code legacyregistry.Handler} leaves {@code
 *       EnableOpenMetrics} off), and says so with the same content type.
 * </ul>
 */
final class MetricsText {

  /** The content type before its escaping scheme ({@link MetricsFormat}). */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private static final String MAX_SUFFIX = "_max";

  private MetricsText() {}

  /** The registry's families {@code /metrics} serves: all but the histograms' maxima. */
  static MetricSnapshots served(PrometheusMeterRegistry registry) {
    return withoutHistogramMaxima(registry.getPrometheusRegistry().scrape());
  }

  static String text(MetricSnapshots families) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      ExpositionFormats.init().findWriter(CONTENT_TYPE).write(out, families);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return withGoNumbers(out.toString(StandardCharsets.UTF_8));
  }

  /**
   * The text with each sample's value written as Go writes it, and the bound of a histogram's
   * bucket ({@code le}) or a summary's quantile ({@code quantile}), which the writer puts last;
   * comment lines and every other label as they are.
   */
  static String withGoNumbers(String text) {
    StringBuilder result = new StringBuilder(text.length());
    // The samples of the family being written whose last label is a bound, if it has any.
    String boundSample = null;
    int start = 0;
    while (start < text.length()) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = text.length();
      }
      String line = text.substring(start, end);
      if (line.startsWith("# TYPE ")) {
        String[] type = line.split(" ");
        boundSample =
            switch (type[3]) {
              case "histogram" -> type[2] + "_bucket";
              case "summary" -> type[2];
              default -> null;
            };
        result.append(line);
      } else if (line.isEmpty() || line.charAt(0) == '#') {
        result.append(line);
      } else {
        result.append(sampleWithGoNumbers(line, boundSample));
      }
      if (end < text.length()) {
        result.append('\n');
      }
      start = end + 1;
    }
    return result.toString();
  }

  /**
   * {@code name{labels} value}, label values quoted with backslash escapes; the last label's value
   * is a number when the sample's name is {@code boundSample}.
   */
  private static String sampleWithGoNumbers(String line, String boundSample) {
    int nameEnd = 0;
    while (line.charAt(nameEnd) != '{' && line.charAt(nameEnd) != ' ') {
      nameEnd++;
    }
    int valueStart = nameEnd + 1;
    StringBuilder out = new StringBuilder(line.length());
    if (line.charAt(nameEnd) == ' ') {
      out.append(line, 0, nameEnd);
    } else {
      int lastValueStart = -1;
      int i = nameEnd + 1;
      while (line.charAt(i) != '}') {
        lastValueStart = line.indexOf('=', i) + 2; // past ="
        i = lastValueStart;
        while (line.charAt(i) != '"') {
          i += line.charAt(i) == '\\' ? 2 : 1;
        }
        i++; // past the closing quote
        if (line.charAt(i) == ',') {
          i++;
        }
      }
      if (line.substring(0, nameEnd).equals(boundSample) && lastValueStart > 0) {
        int lastValueEnd = line.indexOf('"', lastValueStart); // a number has no quote
        out.append(line, 0, lastValueStart)
            .append(GoFloats.format(line.substring(lastValueStart, lastValueEnd)))
            .append(line, lastValueEnd, i + 1);
      } else {
        out.append(line, 0, i + 1);
      }
      valueStart = i + 2; // past "} "
    }
    int valueEnd = line.indexOf(' ', valueStart);
    if (valueEnd < 0) {
      valueEnd = line.length();
    }
    return out.append(' ')
        .append(GoFloats.format(line.substring(valueStart, valueEnd)))
        .append(line, valueEnd, line.length())
        .toString();
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
