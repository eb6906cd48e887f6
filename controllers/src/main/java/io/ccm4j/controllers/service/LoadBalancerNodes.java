package io.ccm4j.controllers.service;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/** Which nodes back a load balancer (S16), and when a backend set has changed (S15). */
final class LoadBalancerNodes {

  /** The event message lists at most this many node names (S15). */
  static final int MAX_NAMES_IN_EVENT = 20;

  private LoadBalancerNodes() {}

  /**
   * S16 {@code stableNodeSetPredicates}, used for both Ensure and Update: not being deleted, not
   * excluded by label, not about to be removed by cluster-autoscaler. Readiness, cordoning and the
   * control-plane role do not matter; nodes without a provider ID are included.
   */
  static boolean inStableNodeSet(Node node) {
    return node.getMetadata().getDeletionTimestamp() == null
        && included(node)
        && !hasTaint(node, WellKnownTaints.TO_BE_DELETED_BY_CLUSTER_AUTOSCALER);
  }

  /** The stable node set, sorted by name so that calls and digests are reproducible. */
  static List<Node> stableNodeSet(Collection<Node> nodes) {
    return nodes.stream()
        .filter(LoadBalancerNodes::inStableNodeSet)
        .sorted(Comparator.comparing(node -> node.getMetadata().getName()))
        .toList();
  }

  /**
   * S16 {@code nodeIncludedPredicate}: no exclusion label, or one whose value Go's {@code
   * strconv.ParseBool} reads as false. A value it cannot read, empty included, excludes the node.
   */
  static boolean included(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    if (labels == null
        || !labels.containsKey(WellKnownLabels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS)) {
      return true;
    }
    return parseBool(labels.get(WellKnownLabels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS))
        .map(excluded -> !excluded)
        .orElse(false);
  }

  /** Go's {@code strconv.ParseBool}: empty when the value is none of its twelve spellings. */
  static Optional<Boolean> parseBool(String value) {
    if (value == null) {
      return Optional.empty();
    }
    return switch (value) {
      case "1", "t", "T", "TRUE", "true", "True" -> Optional.of(true);
      case "0", "f", "F", "FALSE", "false", "False" -> Optional.of(false);
      default -> Optional.empty();
    };
  }

  /** S7: a node update matters only when its inclusion or its provider ID changed. */
  static boolean updateMatters(Node old, Node current) {
    return included(old) != included(current)
        || !Objects.equals(providerId(old), providerId(current));
  }

  /** S15 {@code nodesSufficientlyEqual}: the same count and the same name → provider ID map. */
  static boolean sufficientlyEqual(List<Node> a, List<Node> b) {
    return a.size() == b.size() && backends(a).equals(backends(b));
  }

  /** Name → provider ID ("" when unset), sorted by name: what a backend set is compared by. */
  static Map<String, String> backends(List<Node> nodes) {
    Map<String, String> backends = new TreeMap<>();
    for (Node node : nodes) {
      backends.put(node.getMetadata().getName(), Objects.requireNonNullElse(providerId(node), ""));
    }
    return backends;
  }

  /**
   * At most {@value #MAX_NAMES_IN_EVENT} names, then {@code <N more>} (S15's event), in the order
   * given: a {@link #stableNodeSet}, sorted by name. Upstream takes the first 20 in its lister's
   * order, which is Go's map order and so any 20, and sorts them; the 20 first names are one of
   * those lists, and the same one for the same nodes.
   */
  static List<String> namesForEvent(List<Node> nodes) {
    List<String> names = nodes.stream().map(node -> node.getMetadata().getName()).toList();
    if (names.size() <= MAX_NAMES_IN_EVENT) {
      return names;
    }
    List<String> limited = new java.util.ArrayList<>(names.subList(0, MAX_NAMES_IN_EVENT));
    limited.add("<" + (names.size() - MAX_NAMES_IN_EVENT) + " more>");
    return limited;
  }

  private static String providerId(Node node) {
    return node.getSpec() == null ? null : node.getSpec().getProviderID();
  }

  private static boolean hasTaint(Node node, String key) {
    List<Taint> taints = node.getSpec() == null ? null : node.getSpec().getTaints();
    return taints != null && taints.stream().anyMatch(taint -> key.equals(taint.getKey()));
  }
}
