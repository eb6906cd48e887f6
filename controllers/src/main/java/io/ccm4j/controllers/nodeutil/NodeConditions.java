package io.ccm4j.controllers.nodeutil;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.util.Optional;

/** Reading a node's conditions. */
public final class NodeConditions {

  public static final String READY = "Ready";

  /** Set by the route controller (R8) or a network plugin. */
  public static final String NETWORK_UNAVAILABLE = "NetworkUnavailable";

  private NodeConditions() {}

  public static Optional<NodeCondition> find(Node node, String type) {
    if (node.getStatus() == null || node.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return node.getStatus().getConditions().stream()
        .filter(condition -> type.equals(condition.getType()))
        .findFirst();
  }

  /**
   * The status of the Ready condition: {@code True}, {@code False}, or {@code Unknown} when
   * missing.
   */
  public static String readyStatus(Node node) {
    return find(node, READY).map(NodeCondition::getStatus).orElse(ConditionStatus.UNKNOWN);
  }
}
