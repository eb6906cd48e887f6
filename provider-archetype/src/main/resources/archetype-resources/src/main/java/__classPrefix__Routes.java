package ${package};

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.Routes;
import java.util.List;

/**
 * The ${providerName} cloud's routes, one per node's pod CIDR. Remove this facet from {@link
 * ${classPrefix}Cloud#routes()} when the cluster's network plugin routes pod traffic itself.
 */
final class ${classPrefix}Routes implements Routes {

  private final ${classPrefix}CloudConfig config;

  ${classPrefix}Routes(${classPrefix}CloudConfig config) {
    this.config = config;
  }

  @Override
  public List<Route> listRoutes(String clusterName) throws CloudException {
    throw new UnsupportedOperationException(
        "Routes.listRoutes: the cluster's routes, each with the name the cloud gave it, its target"
            + " node and destination CIDR");
  }

  @Override
  public void createRoute(String clusterName, String nameHint, Route route) throws CloudException {
    throw new UnsupportedOperationException(
        "Routes.createRoute: route route.destinationCidr() to route.targetNode(); nameHint is the"
            + " node's UID, for the route's name (a dual-stack node's two routes share it)");
  }

  @Override
  public void deleteRoute(String clusterName, Route route) throws CloudException {
    throw new UnsupportedOperationException(
        "Routes.deleteRoute: delete the route by the name listRoutes gave it");
  }
}
