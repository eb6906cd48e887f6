package io.ccm4j.runtime.serving;

import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.expositionformats.PrometheusProtobufWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Prometheus's protobuf exposition (length-delimited {@code io.prometheus.client.MetricFamily}
 * messages), which upstream's {@code /metrics} and {@code /metrics/slis} answer when a scraper's
 * {@code Accept} prefers it ({@link MetricsFormat}); Prometheus asks for it first when it scrapes
 * native histograms. Written by the Prometheus client's own writer, which
 * micrometer-registry-prometheus brings; without it every scrape gets the text ({@link
 * MetricsText}). A family without series is left out, as Go's registry gathers none.
 */
final class MetricsProtobuf {

  /** The content type before its escaping scheme ({@link MetricsFormat}). */
  static final String CONTENT_TYPE = PrometheusProtobufWriter.CONTENT_TYPE;

  private static final PrometheusProtobufWriter WRITER =
      ExpositionFormats.init().getPrometheusProtobufWriter();

  private MetricsProtobuf() {}

  /** Whether the writer is on the class path: without it every scrape gets the text. */
  static boolean writable() {
    return WRITER.isAvailable();
  }

  static byte[] write(MetricSnapshots families) {
    MetricSnapshots withSeries =
        new MetricSnapshots(
            families.stream().filter(family -> !family.getDataPoints().isEmpty()).toList());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      WRITER.write(out, withSeries);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a byte array does not fail
    }
    return out.toByteArray();
  }
}
