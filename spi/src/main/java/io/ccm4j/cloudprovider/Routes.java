package io.ccm4j.cloudprovider;

import java.util.List;

/** Cloud routes that send each node's pod CIDR to that node (spec §2, Routes). */
public interface Routes {

  List<Route> listRoutes(String clusterName) throws CloudException;

  /**
   * Creates a route; {@code nameHint} is the node's UID, stable for the node's lifetime. A
   * dual-stack node has a route per pod CIDR, all with the same hint: a name made from the hint
   * alone must tell them apart (by the destination's family, say).
   */
  void createRoute(String clusterName, String nameHint, Route route) throws CloudException;

  void deleteRoute(String clusterName, Route route) throws CloudException;
}
