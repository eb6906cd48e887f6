package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The NoSchedule taints that mirror a node's conditions (node-lifecycle spec §2.5 A). */
public final class ConditionTaints {

  /** Keys this pass owns (with effect NoSchedule). */
  static final Set<String> MANAGED_KEYS =
      Set.of(
          WellKnownTaints.NODE_NOT_READY,
          WellKnownTaints.NODE_UNREACHABLE,
          WellKnownTaints.NODE_MEMORY_PRESSURE,
          WellKnownTaints.NODE_DISK_PRESSURE,
          WellKnownTaints.NODE_NETWORK_UNAVAILABLE,
          WellKnownTaints.NODE_PID_PRESSURE,
          WellKnownTaints.NODE_UNSCHEDULABLE);

  private ConditionTaints() {}

  /** The keys of the NoSchedule taints the node's conditions call for. */
  static Set<String> desiredKeys(Node node) {
    Set<String> keys = new LinkedHashSet<>();
    String ready =
        NodeConditions.find(node, NodeConditions.READY).map(c -> c.getStatus()).orElse(null);
    if (ConditionStatus.FALSE.equals(ready)) {
      keys.add(WellKnownTaints.NODE_NOT_READY);
    } else if (ConditionStatus.UNKNOWN.equals(ready)) {
      keys.add(WellKnownTaints.NODE_UNREACHABLE);
    }
    addIfTrue(node, "MemoryPressure", WellKnownTaints.NODE_MEMORY_PRESSURE, keys);
    addIfTrue(node, "DiskPressure", WellKnownTaints.NODE_DISK_PRESSURE, keys);
    addIfTrue(node, "NetworkUnavailable", WellKnownTaints.NODE_NETWORK_UNAVAILABLE, keys);
    addIfTrue(node, "PIDPressure", WellKnownTaints.NODE_PID_PRESSURE, keys);
    if (node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable())) {
      keys.add(WellKnownTaints.NODE_UNSCHEDULABLE);
    }
    return keys;
  }

  private static void addIfTrue(Node node, String type, String key, Set<String> keys) {
    if (NodeConditions.find(node, type)
        .map(c -> ConditionStatus.TRUE.equals(c.getStatus()))
        .orElse(false)) {
      keys.add(key);
    }
  }

  /**
   * The node's taints with the managed NoSchedule ones made to match the conditions: missing ones
   * added (with {@code timeAdded}), stale ones removed, everything else kept as it is.
   */
  static List<Taint> reconcile(List<Taint> taints, Set<String> desired, Instant now) {
    List<Taint> result = new ArrayList<>();
    Set<String> present = new LinkedHashSet<>();
    for (Taint taint : taints) {
      boolean managed =
          WellKnownTaints.EFFECT_NO_SCHEDULE.equals(taint.getEffect())
              && MANAGED_KEYS.contains(taint.getKey());
      if (managed && !desired.contains(taint.getKey())) {
        continue;
      }
      if (managed) {
        present.add(taint.getKey());
      }
      result.add(taint);
    }
    for (String key : desired) {
      if (!present.contains(key)) {
        result.add(
            new TaintBuilder()
                .withKey(key)
                .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
                .withTimeAdded(now.toString())
                .build());
      }
    }
    return result;
  }
}
