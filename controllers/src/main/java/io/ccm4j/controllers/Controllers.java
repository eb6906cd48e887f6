package io.ccm4j.controllers;

import static io.ccm4j.controllers.ControllerDescriptor.Access.core;

import io.ccm4j.controllers.ControllerDescriptor.Access;
import io.ccm4j.controllers.cloudnodelifecycle.CloudNodeLifecycleController;
import io.ccm4j.controllers.node.CloudNodeController;
import io.ccm4j.controllers.nodeipam.NodeIpamController;
import io.ccm4j.controllers.nodelifecycle.NodeLifecycleController;
import io.ccm4j.controllers.route.NodeRouteController;
import io.ccm4j.controllers.service.ServiceLoadBalancerController;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Every controller ccm4j knows, spelled once (upstream's {@code DefaultInitFuncConstructors} with
 * {@code names/controller_names.go}): names and aliases (§1, A7), client names (§1), event sources
 * and whether {@code *} enables it, and which settings record each is given. Adding a controller is
 * adding an entry here (and its rules to the chart, which {@code ControllerRbacTest} checks).
 */
public final class Controllers {

  private static final Access EVENTS = core("events", "create", "patch");

  public static final ControllerDescriptor CLOUD_NODE =
      new ControllerDescriptor(
          "cloud-node-controller",
          "cloud-node",
          "node-controller",
          "cloud-node-controller",
          true,
          List.of(
              core("nodes", "get", "list", "watch", "update", "patch"),
              core("nodes/status", "patch"),
              EVENTS),
          (context, settings) -> new CloudNodeController(context, settings.cloudNode()));

  public static final ControllerDescriptor CLOUD_NODE_LIFECYCLE =
      new ControllerDescriptor(
          "cloud-node-lifecycle-controller",
          "cloud-node-lifecycle",
          "node-controller",
          "cloud-node-lifecycle-controller",
          true,
          List.of(core("nodes", "get", "list", "watch", "patch", "delete"), EVENTS),
          (context, settings) ->
              new CloudNodeLifecycleController(context, settings.cloudNodeLifecycle()));

  public static final ControllerDescriptor SERVICE_LB =
      new ControllerDescriptor(
          "service-lb-controller",
          "service",
          "service-controller",
          "service-controller",
          true,
          List.of(
              core("services", "list", "watch"),
              core("services/status", "patch"),
              core("nodes", "list", "watch"),
              EVENTS),
          (context, settings) -> new ServiceLoadBalancerController(context, settings.service()));

  /**
   * Pod CIDRs for nodes (kube-controller-manager's name and alias, as in upstream's cloud-provider
   * nodeipam); selected by {@code *} but runs only with {@code --allocate-node-cidrs}, as upstream.
   * Its events come from the CIDR allocator, as upstream's.
   */
  public static final ControllerDescriptor NODE_IPAM =
      new ControllerDescriptor(
          "node-ipam-controller",
          "nodeipam",
          "node-controller",
          "cidrAllocator",
          true,
          List.of(core("nodes", "list", "watch", "patch"), EVENTS),
          (context, settings) -> new NodeIpamController(context, settings.network()));

  public static final ControllerDescriptor NODE_ROUTE =
      new ControllerDescriptor(
          "node-route-controller",
          "route",
          "route-controller",
          "route_controller", // upstream's, with an underscore unlike the others
          true,
          List.of(core("nodes", "list", "watch"), core("nodes/status", "patch"), EVENTS),
          (context, settings) -> new NodeRouteController(context, settings.network()));

  /**
   * Heartbeats, condition taints and zone-aware eviction: kube-controller-manager's job in a normal
   * cluster, so off unless named (ccm4j's own; the lab runs it). Its events come from upstream's
   * {@code node-controller} (node-lifecycle spec §6).
   */
  public static final ControllerDescriptor NODE_LIFECYCLE =
      new ControllerDescriptor(
          "node-lifecycle-controller",
          "node-lifecycle",
          "node-controller",
          "node-controller",
          false,
          List.of(
              core("nodes", "get", "list", "watch", "patch"),
              core("nodes/status", "patch"),
              new Access("coordination.k8s.io", "leases", List.of("get", "list", "watch")),
              core("pods", "list", "watch", "delete"),
              core("pods/status", "patch"),
              EVENTS),
          (context, settings) -> new NodeLifecycleController(context, settings.nodeHealth()));

  /** Every controller, in the order the manager starts them (upstream's order is random, §8.10). */
  public static final List<ControllerDescriptor> ALL =
      List.of(CLOUD_NODE, CLOUD_NODE_LIFECYCLE, SERVICE_LB, NODE_IPAM, NODE_ROUTE, NODE_LIFECYCLE);

  /**
   * Controllers a provider runs itself, which {@code --controllers} names as upstream's table entry
   * that the cloud's own binary adds (each with what it is, logged at start when named): a provider
   * asks {@link io.ccm4j.cloudprovider.ProviderContext#controllerEnabled} whether to run it.
   */
  public static final Map<String, String> PROVIDER_CONTROLLERS =
      Map.of(
          "kubevirt_eps_controller",
          "the kubevirt provider's EndpointSlice controller (K4): it runs when the kubevirt cloud"
              + " config sets loadBalancer.enableEPSController: true; with any other cloud,"
              + " nothing runs for it");

  private Controllers() {}

  /** The controller a canonical name or an alias names; empty for anything else. */
  public static Optional<ControllerDescriptor> find(String nameOrAlias) {
    return ALL.stream()
        .filter(c -> c.name().equals(nameOrAlias) || c.alias().equals(nameOrAlias))
        .findFirst();
  }

  /** The canonical names of the controllers {@code *} leaves out. */
  public static Set<String> disabledByDefault() {
    return ALL.stream()
        .filter(c -> !c.enabledByDefault())
        .map(ControllerDescriptor::name)
        .collect(Collectors.toUnmodifiableSet());
  }

  /** The names {@code --controllers} accepts, as its help lists them: {@code name (alias)}, .... */
  public static String namesForHelp() {
    return ALL.stream()
        .map(
            c ->
                "%s (%s%s)"
                    .formatted(
                        c.name(), c.alias(), c.enabledByDefault() ? "" : "; off unless named"))
        .collect(Collectors.joining(", "));
  }
}
