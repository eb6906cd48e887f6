package io.ccm4j.controllers.nodelifecycle;

/**
 * The node-lifecycle controller's event reasons, spelled once (node-lifecycle spec §6; {@link
 * #ZONE_STATE_CHANGED} is ccm4j's own).
 */
final class NodeLifecycleEvents {

  /** On a Node first seen by the health pass. */
  static final String REGISTERED_NODE = "RegisteredNode";

  /** On a Node gone from the cache. */
  static final String REMOVING_NODE = "RemovingNode";

  /** On a Node whose Ready left True, and on each of its pods marked not ready (§2.4). */
  static final String NODE_NOT_READY = "NodeNotReady";

  /** On a Node given its NoExecute taint by its zone's tainter (§2.5 B). */
  static final String TAINT_ADDED_NO_EXECUTE = "TaintAddedNoExecute";

  /** On Namespace kube-system when a zone's disruption state changes (§3.3). */
  static final String ZONE_STATE_CHANGED = "ZoneStateChanged";

  /** On a pod whose deletion taint eviction schedules, runs or cancels (§4.5). */
  static final String TAINT_MANAGER_EVICTION = "TaintManagerEviction";

  private NodeLifecycleEvents() {}
}
