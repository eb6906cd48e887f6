package io.ccm4j.tck;

import static io.ccm4j.tck.Contract.ROUTES_OF_THE_CLUSTER_ONLY;
import static io.ccm4j.tck.Contract.ROUTE_DELETED;
import static io.ccm4j.tck.Contract.ROUTE_LISTED_BACK;

import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.Routes;
import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** Routes: what the route controller creates it must find again, and delete by the listed name. */
public interface RoutesContract extends FacetContract {

  @Test
  @Holds(ROUTE_LISTED_BACK)
  default void r5_aCreatedRouteIsListedBack() throws Exception {
    Routes routes = session().routes();
    String cluster = session().harness().clusterName();
    Node node = session().backendNode(0);
    Route created = routeTo(node);
    routes.createRoute(cluster, node.getMetadata().getUid(), created);
    Optional<Route> listed = find(routes.listRoutes(cluster), created);
    ContractSession.thenCleanUp(
        () -> {
          ROUTE_LISTED_BACK.require(
              listed.isPresent(),
              "createRoute of %s to node %s, then listRoutes gave %s"
                  .formatted(
                      created.destinationCidr(), created.targetNode(), routes.listRoutes(cluster)));
          ROUTE_LISTED_BACK.require(
              !listed.get().name().isEmpty(), "the route listed back has no name: " + listed.get());
        },
        () -> {
          if (listed.isPresent()) {
            routes.deleteRoute(cluster, listed.get());
          }
        });
  }

  @Test
  @Holds(ROUTE_DELETED)
  default void r6_aDeletedRouteIsNoLongerListed() throws Exception {
    Routes routes = session().routes();
    String cluster = session().harness().clusterName();
    Node node = session().backendNode(1);
    Route created = routeTo(node);
    routes.createRoute(cluster, node.getMetadata().getUid(), created);
    Route listed =
        find(routes.listRoutes(cluster), created)
            .orElseThrow(() -> ROUTE_LISTED_BACK.broken("the created route is not listed back"));
    routes.deleteRoute(cluster, listed);
    Optional<Route> still = find(routes.listRoutes(cluster), created);
    ROUTE_DELETED.require(
        still.isEmpty(), "deleteRoute of %s, then it is still listed".formatted(listed));
  }

  @Test
  @Holds(ROUTES_OF_THE_CLUSTER_ONLY)
  default void r6_anotherClustersRouteIsNotListed() throws Exception {
    Routes routes = session().routes();
    String cluster = session().harness().clusterName();
    String other = cluster + "-other";
    Node node = session().backendNode(2);
    Route created = routeTo(node);
    routes.createRoute(other, node.getMetadata().getUid(), created);
    Optional<Route> madeThere = find(routes.listRoutes(other), created);
    ContractSession.thenCleanUp(
        () -> {
          Optional<Route> listedHere = find(routes.listRoutes(cluster), created);
          ROUTES_OF_THE_CLUSTER_ONLY.require(
              listedHere.isEmpty(),
              "createRoute(\"%s\", …) of %s to node %s, then listRoutes(\"%s\") lists it: %s"
                  .formatted(
                      other,
                      created.destinationCidr(),
                      created.targetNode(),
                      cluster,
                      listedHere.orElse(null)));
        },
        () -> {
          if (madeThere.isPresent()) {
            routes.deleteRoute(other, madeThere.get());
          }
        });
  }

  /** A route to the node for a pod CIDR no other check uses. */
  private static Route routeTo(Node node) {
    List<NodeAddress> addresses =
        node.getStatus().getAddresses().stream()
            .map(a -> new NodeAddress(NodeAddress.Type.valueOf(a.getType()), a.getAddress()))
            .toList();
    String cidr =
        "10.%d.%d.0/24"
            .formatted(
                200 + ThreadLocalRandom.current().nextInt(50),
                ThreadLocalRandom.current().nextInt(256));
    return new Route("", node.getMetadata().getName(), false, addresses, cidr, false);
  }

  private static Optional<Route> find(List<Route> routes, Route created) {
    return routes.stream()
        .filter(r -> r.destinationCidr().equals(created.destinationCidr()))
        .filter(r -> r.targetNode().equals(created.targetNode()))
        .findFirst();
  }
}
