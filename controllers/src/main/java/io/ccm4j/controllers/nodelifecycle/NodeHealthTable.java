package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the node-lifecycle controller remembers of each node between passes (node-lifecycle spec
 * §2.1), the one place it is kept: written by the health pass, read by pod readiness from the
 * taint-eviction worker (hence concurrent).
 */
final class NodeHealthTable {

  private final Map<String, NodeHealth> byNode = new ConcurrentHashMap<>();

  /** What was remembered of the node; null when it is new to the controller. */
  NodeHealth get(String node) {
    return byNode.get(node);
  }

  /** Remembers what this pass made of the node (§2.3). */
  void record(String node, NodeHealth health) {
    byNode.put(node, health);
  }

  /** Forgets a node gone from the cache. */
  void forget(String node) {
    byNode.remove(node);
  }

  /**
   * §3.3, leaving the every-zone outage: every node's probe and Ready transition times become
   * {@code now}, so the silence during the outage does not count against any node.
   */
  void restartGracePeriods(Instant now) {
    byNode.replaceAll((name, h) -> new NodeHealth(now, now, h.savedReady(), h.leaseRenewTime()));
  }

  /** §2.6: whether the node's Ready condition, as last seen by the pass, is other than True. */
  boolean isKnownNotReady(String node) {
    NodeHealth known = byNode.get(node);
    return known != null
        && known.savedReady() != null
        && !ConditionStatus.TRUE.equals(known.savedReady().getStatus());
  }
}
