package io.ccm4j.controllers.route;

import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.controllers.nodeutil.NodeAddresses;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** What one route reconcile pass does (R5–R8), as pure functions of the nodes and the routes. */
final class RoutePlanner {

  /** What happens to one (node, pod CIDR). */
  enum Action {
    /** A route exists and is current. */
    KEEP,
    /** No route exists: create one. */
    ADD,
    /** A route exists but was made for other node addresses: delete it, then create it again. */
    UPDATE
  }

  /** A node as planning sees it. */
  record NodeView(String name, String uid, List<String> podCidrs, List<NodeAddress> addresses) {

    NodeView {
      podCidrs = List.copyOf(podCidrs);
      addresses = List.copyOf(addresses);
    }

    static NodeView of(Node node) {
      List<String> cidrs =
          node.getSpec() == null || node.getSpec().getPodCIDRs() == null
              ? List.of()
              : node.getSpec().getPodCIDRs();
      return new NodeView(
          node.getMetadata().getName(),
          Objects.requireNonNullElse(node.getMetadata().getUid(), ""),
          cidrs,
          NodeAddresses.fromApi(node.getStatus() == null ? null : node.getStatus().getAddresses()));
    }
  }

  /** A route to create, with the node's UID as the name hint (R7). */
  record Creation(String node, String nameHint, Route route) {}

  /**
   * @param actions per node with pod CIDRs or existing routes: each pod CIDR's action (empty for a
   *     node that only owns routes)
   * @param deletions responsible routes to delete (R6)
   * @param creations routes to create, for every {@code ADD} and {@code UPDATE} (R7)
   */
  record Plan(
      Map<String, Map<String, Action>> actions, List<Route> deletions, List<Creation> creations) {}

  /** The {@code NetworkUnavailable} condition a node should have (R8). */
  record NetworkCondition(String status, String reason, String message) {}

  static final NetworkCondition ROUTE_CREATED =
      new NetworkCondition(
          ConditionStatus.FALSE, "RouteCreated", "RouteController created a route");
  static final NetworkCondition NO_ROUTE_CREATED =
      new NetworkCondition(
          ConditionStatus.TRUE, "NoRouteCreated", "RouteController failed to create a route");

  private RoutePlanner() {}

  /** R5: keep, update or add the route of one pod CIDR, given the node's existing routes. */
  static Action action(List<Route> nodeRoutes, String podCidr, List<NodeAddress> nodeAddresses) {
    for (Route route : nodeRoutes) {
      if (route.destinationCidr().equals(podCidr)) {
        return !route.enableNodeAddresses()
                || equalAddresses(nodeAddresses, route.targetNodeAddresses())
            ? Action.KEEP
            : Action.UPDATE;
      }
    }
    return Action.ADD;
  }

  /** Upstream's equalNodeAddrs: same length, and every address of one is in the other. */
  static boolean equalAddresses(List<NodeAddress> a, List<NodeAddress> b) {
    return a.size() == b.size() && b.containsAll(a);
  }

  /**
   * R6: a route is ccm4j's to delete when its destination parses and its first or last address lies
   * in a cluster CIDR; anything else in the route table is someone else's. A destination spelled as
   * IPv4-mapped IPv6 ({@code ::ffff:10.244.1.0/120}) is read as Go reads it: its ends are IPv4
   * addresses, inside an IPv4 cluster CIDR or not.
   */
  static boolean isResponsible(Route route, List<Cidr> clusterCidrs) {
    Cidr destination;
    try {
      destination = Cidr.parseKeepingIpv4Mapped(route.destinationCidr());
    } catch (IllegalArgumentException e) {
      return false;
    }
    InetAddress first = destination.firstAddress();
    InetAddress last = destination.lastAddress();
    return clusterCidrs.stream()
        .anyMatch(cluster -> cluster.contains(first) || cluster.contains(last));
  }

  /** R5–R7 for one pass. */
  static Plan plan(List<NodeView> nodes, List<Route> routes, List<Cidr> clusterCidrs) {
    Map<String, List<Route>> routesByNode = new LinkedHashMap<>();
    for (Route route : routes) {
      if (!route.targetNode().isEmpty()) {
        routesByNode.computeIfAbsent(route.targetNode(), n -> new ArrayList<>()).add(route);
      }
    }
    Map<String, Map<String, Action>> actions = new LinkedHashMap<>();
    routesByNode.keySet().forEach(node -> actions.put(node, new LinkedHashMap<>()));
    for (NodeView node : nodes) {
      if (node.podCidrs().isEmpty()) {
        continue;
      }
      Map<String, Action> forNode =
          actions.computeIfAbsent(node.name(), n -> new LinkedHashMap<>());
      List<Route> existing = routesByNode.getOrDefault(node.name(), List.of());
      for (String cidr : node.podCidrs()) {
        forNode.put(cidr, action(existing, cidr, node.addresses()));
      }
    }
    List<Route> deletions = new ArrayList<>();
    for (Route route : routes) {
      if (isResponsible(route, clusterCidrs)
          && (route.blackhole() || shouldDelete(actions, route))) {
        deletions.add(route);
      }
    }
    List<Creation> creations = new ArrayList<>();
    for (NodeView node : nodes) {
      for (String cidr : node.podCidrs()) {
        Action action = actions.get(node.name()).get(cidr);
        if (action == Action.ADD || action == Action.UPDATE) {
          creations.add(
              new Creation(
                  node.name(),
                  node.uid(),
                  new Route("", node.name(), false, node.addresses(), cidr, false)));
        }
      }
    }
    return new Plan(actions, List.copyOf(deletions), List.copyOf(creations));
  }

  private static boolean shouldDelete(Map<String, Map<String, Action>> actions, Route route) {
    Map<String, Action> forNode = actions.get(route.targetNode());
    if (forNode == null) {
      return true;
    }
    Action action = forNode.get(route.destinationCidr());
    return action == null || action == Action.UPDATE;
  }

  /**
   * R8: after the pass, a node whose every pod CIDR has its route has {@code
   * NetworkUnavailable=False}; one with a route missing, or with routes but no pod CIDRs, {@code
   * True}.
   */
  static NetworkCondition condition(Map<String, Action> actionsAfterPass) {
    if (actionsAfterPass.isEmpty()) {
      return NO_ROUTE_CREATED;
    }
    boolean allCreated =
        actionsAfterPass.values().stream().noneMatch(a -> a == Action.ADD || a == Action.UPDATE);
    return allCreated ? ROUTE_CREATED : NO_ROUTE_CREATED;
  }

  /** R8: no write when the condition already has the same status and reason. */
  static boolean needsWrite(Optional<NodeCondition> current, NetworkCondition desired) {
    return current
        .map(
            c -> !desired.status().equals(c.getStatus()) || !desired.reason().equals(c.getReason()))
        .orElse(true);
  }
}
