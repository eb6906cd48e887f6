package io.ccm4j.cloudprovider;

import java.util.List;
import java.util.Objects;

/**
 * A route to a node.
 *
 * @param name the cloud's name of the route (empty when creating)
 * @param targetNode the name of the node the route sends traffic to
 * @param enableNodeAddresses whether the cloud routes by node address; then a change of the node's
 *     addresses replaces the route
 * @param targetNodeAddresses the node's addresses when the route was made
 * @param destinationCidr the pod CIDR
 * @param blackhole whether the cloud reports the route's target as gone
 */
public record Route(
    String name,
    String targetNode,
    boolean enableNodeAddresses,
    List<NodeAddress> targetNodeAddresses,
    String destinationCidr,
    boolean blackhole) {

  public Route {
    name = Objects.requireNonNullElse(name, "");
    targetNode = Objects.requireNonNullElse(targetNode, "");
    targetNodeAddresses = List.copyOf(Objects.requireNonNullElse(targetNodeAddresses, List.of()));
    Objects.requireNonNull(destinationCidr, "destinationCidr");
  }
}
