package io.ccm4j.controllers.nodelifecycle;

/**
 * What taint eviction's queue holds: which object changed, and how. Pod keys are {@code
 * namespace/name}, as the pod informer's store keys them.
 */
sealed interface TaintEvictionKey {

  /** A node appeared, went, or its NoExecute taints changed (§4.2). */
  record NodeChanged(String node) implements TaintEvictionKey {}

  /** A pod appeared, went, or its tolerations or node changed (§4.3). */
  record PodChanged(String pod) implements TaintEvictionKey {}

  /** A pod was bound to a node (§2.6). */
  record PodBound(String pod) implements TaintEvictionKey {}
}
