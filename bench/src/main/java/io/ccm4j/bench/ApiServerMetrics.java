package io.ccm4j.bench;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Request counts from kube-apiserver's own {@code /metrics}, by verb, resource and subresource. */
final class ApiServerMetrics {

  private static final Pattern REQUEST_TOTAL =
      Pattern.compile("^apiserver_request_total\\{(.*)\\} (\\S+)$", Pattern.MULTILINE);
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  private ApiServerMetrics() {}

  /** Key {@code VERB resource[/subresource]} → requests so far. */
  static Map<String, Double> requestTotals(KubernetesClient admin) {
    String text = admin.raw("/metrics");
    Map<String, Double> totals = new HashMap<>();
    Matcher matcher = REQUEST_TOTAL.matcher(text);
    while (matcher.find()) {
      Map<String, String> labels = new HashMap<>();
      Matcher label = LABEL.matcher(matcher.group(1));
      while (label.find()) {
        labels.put(label.group(1), label.group(2));
      }
      String subresource = labels.getOrDefault("subresource", "");
      String key =
          labels.getOrDefault("verb", "?")
              + " "
              + labels.getOrDefault("resource", "?")
              + (subresource.isEmpty() ? "" : "/" + subresource);
      totals.merge(key, Double.parseDouble(matcher.group(2)), Double::sum);
    }
    return totals;
  }

  static double delta(Map<String, Double> before, Map<String, Double> after, String key) {
    return after.getOrDefault(key, 0.0) - before.getOrDefault(key, 0.0);
  }
}
