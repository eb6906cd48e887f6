package io.ccm4j.runtime.serving;

import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.expositionformats.PrometheusProtobufWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Prometheus's protobuf exposition (length-delimited {@code io.prometheus.client.MetricFamily}
 * messages), which upstream's {@code /metrics} and {@code /metrics/slis} answer when a scraper's
 * {@code Accept} prefers it (Go's {@code expfmt.Negotiate}); Prometheus asks for it first when it
 * scrapes native histograms. Written by the Prometheus client's own writer, which
 * micrometer-registry-prometheus brings; without it every scrape gets the text ({@link
 * MetricsText}). A family without series is left out, as Go's registry gathers none.
 */
final class MetricsProtobuf {

  static final String CONTENT_TYPE =
      PrometheusProtobufWriter.CONTENT_TYPE + "; escaping=underscores";

  private static final PrometheusProtobufWriter WRITER =
      ExpositionFormats.init().getPrometheusProtobufWriter();

  private static final String MEDIA_TYPE = "application/vnd.google.protobuf";
  private static final String PROTO = "io.prometheus.client.MetricFamily";

  private MetricsProtobuf() {}

  /**
   * Whether {@code accept} (null when absent) asks for this format before the text, as Go's {@code
   * expfmt.Negotiate} reads it: the media ranges by quality, highest first; the first that is this
   * format ({@code proto=io.prometheus.client.MetricFamily; encoding=delimited}) or the text
   * ({@code text/plain} of version 0.0.4 or none) decides; anything else (OpenMetrics, {@code *}/
   * {@code *}, the protobuf's text encodings, which this writer lacks) is passed over.
   */
  static boolean asked(String accept) {
    if (accept == null || !WRITER.isAvailable()) {
      return false;
    }
    List<MediaRange> ranges = new ArrayList<>();
    for (String part : accept.split(",")) {
      MediaRange.parse(part).ifPresent(ranges::add);
    }
    ranges.sort(Comparator.comparingDouble(MediaRange::quality).reversed());
    for (MediaRange range : ranges) {
      if (range.type().equals(MEDIA_TYPE)
          && PROTO.equals(range.parameter("proto"))
          && "delimited".equals(range.parameter("encoding"))) {
        return true;
      }
      String version = range.parameter("version");
      if (range.type().equals("text/plain") && (version == null || version.equals("0.0.4"))) {
        return false;
      }
    }
    return false;
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

  /**
   * {@code type/subtype;name=value;q=0.5}, as Go's goautoneg reads one (a later parameter wins).
   */
  private record MediaRange(String type, Map<String, String> parameters, double quality) {

    static Optional<MediaRange> parse(String text) {
      String[] parts = text.split(";");
      String type = parts[0].trim();
      if (type.indexOf('/') < 0) {
        return Optional.empty();
      }
      Map<String, String> parameters = new HashMap<>();
      double quality = 1;
      for (int i = 1; i < parts.length; i++) {
        String[] parameter = parts[i].split("=", 2);
        if (parameter.length < 2) {
          continue;
        }
        String name = parameter[0].trim();
        String value = parameter[1].trim();
        if (name.equals("q")) {
          try {
            quality = Double.parseDouble(value);
          } catch (NumberFormatException e) {
            quality = 0; // what Go's strconv.ParseFloat returns with its error
          }
        } else {
          parameters.put(name, value);
        }
      }
      return Optional.of(new MediaRange(type.replace(" ", ""), parameters, quality));
    }

    String parameter(String name) {
      return parameters.get(name);
    }
  }
}
