package io.ccm4j.controllers;

import io.ccm4j.controllers.node.CloudNodeController;
import io.ccm4j.controllers.nodehealth.NodeLifecycleController;
import io.ccm4j.controllers.nodeipam.NodeIpamController;
import io.ccm4j.controllers.nodelifecycle.CloudNodeLifecycleController;
import io.ccm4j.controllers.route.NodeRouteController;
import io.ccm4j.controllers.service.ServiceLoadBalancerController;
import java.util.LinkedHashMap;
import java.util.Map;

/** Every controller ccm4j knows, by canonical name, in start order. */
public final class Controllers {

  private Controllers() {}

  public static Map<String, ControllerFactory> factories() {
    Map<String, ControllerFactory> factories = new LinkedHashMap<>();
    factories.put(ControllerNames.CLOUD_NODE, CloudNodeController::new);
    factories.put(ControllerNames.CLOUD_NODE_LIFECYCLE, CloudNodeLifecycleController::new);
    factories.put(ControllerNames.SERVICE_LB, ServiceLoadBalancerController::new);
    factories.put(ControllerNames.NODE_IPAM, NodeIpamController::new);
    factories.put(ControllerNames.NODE_ROUTE, NodeRouteController::new);
    factories.put(ControllerNames.NODE_LIFECYCLE, NodeLifecycleController::new);
    return factories;
  }

  /**
   * A controller whose implementation has not landed yet: selecting it is valid (the names are
   * upstream's contract), and the manager reports that it did not start, as it does for a cloud
   * without the facet.
   */
  private static ControllerFactory notYetAvailable(String name) {
    return context -> {
      throw new ControllerUnavailableException(
          name + " is not implemented in this version of ccm4j");
    };
  }
}
