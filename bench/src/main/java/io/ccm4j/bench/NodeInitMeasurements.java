package io.ccm4j.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The node-init figures a peer does not report itself: the API server's writes per node, the sim
 * cloud's calls, the percentiles of the untaint delays.
 */
final class NodeInitMeasurements {

  private NodeInitMeasurements() {}

  /** The node writes between two readings of the API server's request totals. */
  static double nodeWrites(Map<String, Double> before, Map<String, Double> after) {
    return ApiServerMetrics.delta(before, after, "POST nodes")
        + ApiServerMetrics.delta(before, after, "PUT nodes")
        + ApiServerMetrics.delta(before, after, "PATCH nodes")
        + ApiServerMetrics.delta(before, after, "PATCH nodes/status")
        + ApiServerMetrics.delta(before, after, "PUT nodes/status");
  }

  static double eventWrites(Map<String, Double> before, Map<String, Double> after) {
    return ApiServerMetrics.delta(before, after, "POST events")
        + ApiServerMetrics.delta(before, after, "PATCH events");
  }

  /**
   * The API server's requests between two readings of its totals, by {@code VERB resource}, per
   * node; kinds it took none of are left out.
   */
  static Map<String, Double> requestsPerNode(
      Map<String, Double> before, Map<String, Double> after, int nodes) {
    Map<String, Double> perNode = new TreeMap<>();
    after.forEach(
        (kind, total) -> {
          double delta = ApiServerMetrics.delta(before, after, kind);
          if (delta > 0) {
            perNode.put(kind, delta / Math.max(1, nodes));
          }
        });
    return perNode;
  }

  /** Every instance call the sim cloud (Java or Go) has answered so far. */
  static long cloudCalls(HttpClient http, int adminPort) throws Exception {
    String body =
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/calls"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    long total = 0;
    Matcher matcher = Pattern.compile("\"(\\w+)\":(\\d+)").matcher(body);
    while (matcher.find()) {
      if (!matcher.group(1).equals("throttled") && !matcher.group(1).equals("injectedErrors")) {
        total += Long.parseLong(matcher.group(2));
      }
    }
    return total;
  }

  static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
