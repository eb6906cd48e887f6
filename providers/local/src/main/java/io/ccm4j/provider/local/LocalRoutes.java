package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.Routes;
import io.ccm4j.cloudprovider.net.Cidr;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The {@code local} cloud's route table: in memory, keyed by route name, visible to tests and the
 * lab through {@link #snapshot()}. Nothing is programmed into the kernel: on one machine every node
 * address is already reachable.
 */
public final class LocalRoutes implements Routes {

  private final Map<String, StoredRoute> routes = new ConcurrentSkipListMap<>();

  /** A route with the cluster it belongs to. */
  public record StoredRoute(String clusterName, Route route) {}

  @Override
  public List<Route> listRoutes(String clusterName) {
    return routes.values().stream()
        .filter(r -> r.clusterName().equals(clusterName))
        .map(StoredRoute::route)
        .toList();
  }

  /** The route is named {@code <cluster>-<nameHint>}, as upstream clouds name theirs. */
  @Override
  public void createRoute(String clusterName, String nameHint, Route route) throws CloudException {
    if (route.destinationCidr().isBlank()) {
      throw new CloudException("route for node " + route.targetNode() + ": no destination CIDR");
    }
    try {
      Cidr.parse(route.destinationCidr());
    } catch (IllegalArgumentException e) {
      throw new CloudException(
          "route for node " + route.targetNode() + ": destinationCidr " + e.getMessage());
    }
    String name = clusterName + "-" + nameHint;
    Route stored =
        new Route(
            name,
            route.targetNode(),
            route.enableNodeAddresses(),
            route.targetNodeAddresses(),
            route.destinationCidr(),
            false);
    StoredRoute previous = routes.putIfAbsent(name, new StoredRoute(clusterName, stored));
    if (previous != null && !previous.route().destinationCidr().equals(route.destinationCidr())) {
      throw new CloudException(
          "route %s already exists for %s, not %s"
              .formatted(name, previous.route().destinationCidr(), route.destinationCidr()));
    }
  }

  /** By name when the route has one, else by destination CIDR and target node. */
  @Override
  public void deleteRoute(String clusterName, Route route) {
    if (!route.name().isEmpty()) {
      routes.computeIfPresent(
          route.name(), (name, r) -> r.clusterName().equals(clusterName) ? null : r);
      return;
    }
    routes
        .entrySet()
        .removeIf(
            e ->
                e.getValue().clusterName().equals(clusterName)
                    && e.getValue().route().destinationCidr().equals(route.destinationCidr())
                    && e.getValue().route().targetNode().equals(route.targetNode()));
  }

  /** Every route of every cluster, sorted by name; an immutable copy. */
  public List<StoredRoute> snapshot() {
    return List.copyOf(routes.values());
  }
}
