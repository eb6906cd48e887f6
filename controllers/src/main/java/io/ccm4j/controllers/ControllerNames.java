package io.ccm4j.controllers;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The canonical controller names and the aliases {@code --controllers} accepts (spec §1, A7),
 * spelled once.
 */
public final class ControllerNames {

  public static final String CLOUD_NODE = "cloud-node-controller";
  public static final String CLOUD_NODE_LIFECYCLE = "cloud-node-lifecycle-controller";
  public static final String SERVICE_LB = "service-lb-controller";
  public static final String NODE_ROUTE = "node-route-controller";

  /**
   * Pod CIDRs for nodes (kube-controller-manager's name and alias, as in upstream's cloud-provider
   * nodeipam); selected by {@code *} but runs only with {@code --allocate-node-cidrs}, as upstream.
   */
  public static final String NODE_IPAM = "node-ipam-controller";

  /**
   * Heartbeats, condition taints and zone-aware eviction: kube-controller-manager's job in a normal
   * cluster, so off unless named (ccm4j's own; the lab runs it).
   */
  public static final String NODE_LIFECYCLE = "node-lifecycle-controller";

  /**
   * Every canonical name, in the order the manager starts them (upstream's order is random, §8.10).
   */
  public static final List<String> ALL =
      List.of(CLOUD_NODE, CLOUD_NODE_LIFECYCLE, SERVICE_LB, NODE_IPAM, NODE_ROUTE, NODE_LIFECYCLE);

  /** Enabled only when named in {@code --controllers}. */
  public static final Set<String> DISABLED_BY_DEFAULT = Set.of(NODE_LIFECYCLE);

  private static final Map<String, String> ALIASES =
      Map.of(
          "cloud-node", CLOUD_NODE,
          "cloud-node-lifecycle", CLOUD_NODE_LIFECYCLE,
          "service", SERVICE_LB,
          "route", NODE_ROUTE,
          "nodeipam", NODE_IPAM,
          "node-lifecycle", NODE_LIFECYCLE);

  private ControllerNames() {}

  /** The canonical name for a canonical name or an alias; empty for anything else. */
  public static Optional<String> canonical(String nameOrAlias) {
    if (ALL.contains(nameOrAlias)) {
      return Optional.of(nameOrAlias);
    }
    return Optional.ofNullable(ALIASES.get(nameOrAlias));
  }

  /** The short name upstream uses for {@code running_managed_controllers} (A8). */
  public static String alias(String canonical) {
    return ALIASES.entrySet().stream()
        .filter(entry -> entry.getValue().equals(canonical))
        .map(Map.Entry::getKey)
        .findFirst()
        .orElse(canonical);
  }

  /**
   * The name a controller has as an API client, upstream's {@code ClientName} (cloud-provider's
   * {@code app/controllermanager.go}): its ServiceAccount in {@code kube-system} with {@code
   * --use-service-account-credentials}. These are the accounts the API server's bootstrap policy
   * binds to {@code system:controller:<name>}, so a stock cluster grants them their job. The node
   * controllers share kube-controller-manager's {@code node-controller}.
   */
  public static String clientName(String controller) {
    return switch (controller) {
      case SERVICE_LB -> "service-controller";
      case NODE_ROUTE -> "route-controller";
      case CLOUD_NODE, CLOUD_NODE_LIFECYCLE, NODE_IPAM, NODE_LIFECYCLE -> "node-controller";
      default -> controller;
    };
  }
}
