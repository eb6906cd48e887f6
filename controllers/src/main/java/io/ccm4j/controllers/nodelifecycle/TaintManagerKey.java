package io.ccm4j.controllers.nodelifecycle;

/**
 * What the taint manager's queue holds: which object changed, and how. Pod keys are {@code
 * namespace/name}, as the pod informer's store keys them.
 */
sealed interface TaintManagerKey {

  /** A node appeared, went, or its NoExecute taints changed (§4.2). */
  record NodeChanged(String node) implements TaintManagerKey {}

  /** A pod appeared, went, or its tolerations or node changed (§4.3). */
  record PodChanged(String pod) implements TaintManagerKey {}

  /** A pod was bound to a node (§2.6). */
  record PodBound(String pod) implements TaintManagerKey {}
}
