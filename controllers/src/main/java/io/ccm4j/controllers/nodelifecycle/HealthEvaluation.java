package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.runtime.client.KubeTimes;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code tryUpdateNodeHealth} (node-lifecycle spec §2.3) as a pure function: from the node, the
 * Lease renew time and what was remembered, the new memory, the observed and current Ready
 * condition, and the conditions to write when Ready must become Unknown.
 */
final class HealthEvaluation {

  static final List<String> WATCHED =
      List.of("Ready", "MemoryPressure", "DiskPressure", "PIDPressure");

  /**
   * @param observed Ready as read before this pass (a synthetic Unknown for a node that never
   *     reported)
   * @param current Ready after this pass (null when the node has none and nothing changed)
   * @param conditionsToWrite the node's new conditions when Ready changed; empty otherwise
   */
  record Result(
      NodeHealth health,
      Duration gracePeriod,
      NodeCondition observed,
      NodeCondition current,
      Optional<List<NodeCondition>> conditionsToWrite) {}

  private HealthEvaluation() {}

  static Result evaluate(
      Node node,
      NodeHealth saved,
      Instant leaseRenewTime,
      Instant now,
      Duration monitorGrace,
      Duration startupGrace) {
    Instant created = parse(node.getMetadata().getCreationTimestamp(), now);
    List<NodeCondition> conditions =
        node.getStatus() == null || node.getStatus().getConditions() == null
            ? List.of()
            : node.getStatus().getConditions();
    NodeCondition current = find(conditions, "Ready");
    NodeCondition observed;
    Duration grace;
    NodeHealth health = saved;
    if (current == null) {
      observed =
          new NodeConditionBuilder()
              .withType("Ready")
              .withStatus(ConditionStatus.UNKNOWN)
              .withLastHeartbeatTime(node.getMetadata().getCreationTimestamp())
              .withLastTransitionTime(node.getMetadata().getCreationTimestamp())
              .build();
      grace = startupGrace;
      // Upstream overwrites the saved status before comparing (the "Ready removed" branch never
      // runs).
      health =
          saved != null
              ? new NodeHealth(
                  saved.probeTimestamp(),
                  saved.readyTransitionTimestamp(),
                  null,
                  saved.leaseRenewTime())
              : new NodeHealth(created, created, null, null);
    } else {
      // Cached objects are never mutated here, so they are remembered as they are, without copies.
      observed = current;
      grace = monitorGrace;
      NodeCondition savedReady = saved == null ? null : saved.savedReady();
      if (saved == null || savedReady == null) {
        health = new NodeHealth(now, now, current, saved == null ? null : saved.leaseRenewTime());
      } else if (!Objects.equals(
          savedReady.getLastHeartbeatTime(), current.getLastHeartbeatTime())) {
        Instant transition =
            Objects.equals(savedReady.getLastTransitionTime(), current.getLastTransitionTime())
                ? saved.readyTransitionTimestamp()
                : now;
        health = new NodeHealth(now, transition, current, saved.leaseRenewTime());
      } else if (saved.savedReady() != current) {
        health =
            new NodeHealth(
                saved.probeTimestamp(),
                saved.readyTransitionTimestamp(),
                current,
                saved.leaseRenewTime());
      }
    }
    if (leaseRenewTime != null
        && (health.leaseRenewTime() == null || health.leaseRenewTime().isBefore(leaseRenewTime))) {
      health =
          new NodeHealth(
              now, health.readyTransitionTimestamp(), health.savedReady(), leaseRenewTime);
    }
    if (!now.isAfter(health.probeTimestamp().plus(grace))) {
      return new Result(health, grace, observed, current, Optional.empty());
    }
    // Silent for longer than the grace period: the watched conditions become Unknown.
    List<NodeCondition> updated = new ArrayList<>();
    for (NodeCondition condition : conditions) {
      updated.add(copy(condition));
    }
    String nowText = now.toString();
    for (String type : WATCHED) {
      NodeCondition condition = find(updated, type);
      if (condition == null) {
        updated.add(
            new NodeConditionBuilder()
                .withType(type)
                .withStatus(ConditionStatus.UNKNOWN)
                .withReason("NodeStatusNeverUpdated")
                .withMessage("Kubelet never posted node status.")
                .withLastHeartbeatTime(node.getMetadata().getCreationTimestamp())
                .withLastTransitionTime(nowText)
                .build());
      } else if (!ConditionStatus.UNKNOWN.equals(condition.getStatus())) {
        condition.setStatus(ConditionStatus.UNKNOWN);
        condition.setReason("NodeStatusUnknown");
        condition.setMessage("Kubelet stopped posting node status.");
        condition.setLastTransitionTime(nowText);
      }
    }
    NodeCondition newReady = find(updated, "Ready");
    if (sameReady(newReady, observed)) {
      return new Result(health, grace, observed, newReady, Optional.empty());
    }
    NodeHealth afterWrite =
        new NodeHealth(health.probeTimestamp(), now, copy(newReady), health.leaseRenewTime());
    return new Result(afterWrite, grace, observed, newReady, Optional.of(updated));
  }

  private static boolean sameReady(NodeCondition a, NodeCondition b) {
    return Objects.equals(a.getStatus(), b.getStatus())
        && Objects.equals(a.getReason(), b.getReason())
        && Objects.equals(a.getMessage(), b.getMessage())
        && Objects.equals(a.getLastHeartbeatTime(), b.getLastHeartbeatTime())
        && Objects.equals(a.getLastTransitionTime(), b.getLastTransitionTime());
  }

  static NodeCondition find(List<NodeCondition> conditions, String type) {
    for (NodeCondition condition : conditions) {
      if (type.equals(condition.getType())) {
        return condition;
      }
    }
    return null;
  }

  private static NodeCondition copy(NodeCondition condition) {
    return condition == null ? null : new NodeConditionBuilder(condition).build();
  }

  private static Instant parse(String timestamp, Instant fallback) {
    if (timestamp == null) {
      return fallback;
    }
    try {
      return KubeTimes.parse(timestamp);
    } catch (RuntimeException e) {
      return fallback;
    }
  }
}
