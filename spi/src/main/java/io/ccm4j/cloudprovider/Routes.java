package io.ccm4j.cloudprovider;

import java.util.List;

/** Cloud routes that send each node's pod CIDR to that node (spec §2, Routes). */
public interface Routes {

  /**
   * The routes created for {@code clusterName}, each with the name the cloud gave it, and only
   * those: the route controller deletes every listed route inside its cluster CIDRs that none of
   * its nodes needs (R6), so another cluster's routes in the same route table, listed here, would
   * be deleted. Tell them apart by what the cloud records with a route (a tag), not by a name
   * prefix that another cluster's name may start with.
   */
  List<Route> listRoutes(String clusterName) throws CloudException;

  /**
   * Creates a route; {@code nameHint} is the node's UID, stable for the node's lifetime. A
   * dual-stack node has a route per pod CIDR, all with the same hint: a name made from the hint
   * alone must tell them apart (by the destination's family, say).
   */
  void createRoute(String clusterName, String nameHint, Route route) throws CloudException;

  /** Deletes a route as {@link #listRoutes} gave it (by its name). */
  void deleteRoute(String clusterName, Route route) throws CloudException;
}
