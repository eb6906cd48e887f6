package io.ccm4j.controllers.nodelifecycle;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The beta OS and architecture labels kept equal to the GA ones (upstream's {@code
 * reconcileNodeLabels}, which its node-lifecycle controller runs with the NoSchedule taints on
 * every node event): workloads still select nodes by {@code beta.kubernetes.io/os}.
 */
final class BetaLabels {

  /** GA label → the beta label that follows it. */
  static final Map<String, String> FOLLOWERS =
      Map.of(
          "kubernetes.io/os", "beta.kubernetes.io/os",
          "kubernetes.io/arch", "beta.kubernetes.io/arch");

  private BetaLabels() {}

  /**
   * The beta labels to set: each whose GA label is there and which is missing or different. Empty
   * when there is nothing to write (no GA label: nothing to follow).
   */
  static Map<String, String> toSet(Map<String, String> labels) {
    Map<String, String> update = new LinkedHashMap<>();
    if (labels == null) {
      return update;
    }
    FOLLOWERS.forEach(
        (ga, beta) -> {
          String value = labels.get(ga);
          if (value != null && !value.equals(labels.get(beta))) {
            update.put(beta, value);
          }
        });
    return update;
  }
}
