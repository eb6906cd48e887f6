package io.ccm4j.runtime.cloud;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.Routes;
import io.ccm4j.cloudprovider.Zones;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A cloud provider whose every facet call passes {@link #around}: the shape the fence, the throttle
 * and the call metrics share. A bulk call the provider does not offer ({@code maxNodesPerCall()} or
 * {@code maxServicesPerCall()} of 1) is asked item by item through the intercepted per-item
 * methods, so each item counts as the request it is; a bulk call it offers passes {@link #around}
 * once.
 */
abstract class InterceptedCloudProvider implements CloudProvider {

  /** One call to the provider behind. */
  @FunctionalInterface
  interface Call<T> {
    T call() throws CloudException;
  }

  final CloudProvider delegate;

  InterceptedCloudProvider(CloudProvider delegate) {
    this.delegate = delegate;
  }

  /**
   * Runs one request to the cloud.
   *
   * @param request the SPI method, upstream-style ({@code InstanceMetadata}, {@code
   *     InstancesMetadata} for its bulk form)
   * @param subject what it is about (a node, a Service, {@code 1000 nodes})
   * @param write whether it changes the cloud
   */
  abstract <T> T around(String request, String subject, boolean write, Call<T> call)
      throws CloudException;

  private void aroundVoid(String request, String subject, CloudActionCall action)
      throws CloudException {
    around(
        request,
        subject,
        true,
        () -> {
          action.run();
          return null;
        });
  }

  @FunctionalInterface
  private interface CloudActionCall {
    void run() throws CloudException;
  }

  @Override
  public String providerName() {
    return delegate.providerName();
  }

  @Override
  public void initialize(ProviderContext context) throws CloudException {
    delegate.initialize(context);
  }

  @Override
  public boolean hasClusterId() {
    return delegate.hasClusterId();
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public Optional<InstancesV2> instancesV2() {
    return delegate.instancesV2().map(this::instances);
  }

  private InstancesV2 instances(InstancesV2 instances) {
    return new InstancesV2() {
      @Override
      public boolean instanceExists(Node node) throws CloudException {
        return around("InstanceExists", name(node), false, () -> instances.instanceExists(node));
      }

      @Override
      public boolean instanceShutdown(Node node) throws CloudException {
        return around(
            "InstanceShutdown", name(node), false, () -> instances.instanceShutdown(node));
      }

      @Override
      public Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException {
        return around(
            "InstanceMetadata", name(node), false, () -> instances.instanceMetadata(node));
      }

      @Override
      public int maxNodesPerCall() {
        return instances.maxNodesPerCall();
      }

      @Override
      public BulkAnswers<Boolean> instancesExist(Collection<Node> nodes) throws CloudException {
        if (instances.maxNodesPerCall() <= 1) {
          return InstancesV2.super.instancesExist(nodes);
        }
        return around(
            "InstancesExist", count(nodes, "nodes"), false, () -> instances.instancesExist(nodes));
      }

      @Override
      public BulkAnswers<Boolean> instancesShutdown(Collection<Node> nodes) throws CloudException {
        if (instances.maxNodesPerCall() <= 1) {
          return InstancesV2.super.instancesShutdown(nodes);
        }
        return around(
            "InstancesShutdown",
            count(nodes, "nodes"),
            false,
            () -> instances.instancesShutdown(nodes));
      }

      @Override
      public BulkAnswers<Optional<InstanceMetadata>> instancesMetadata(Collection<Node> nodes)
          throws CloudException {
        if (instances.maxNodesPerCall() <= 1) {
          return InstancesV2.super.instancesMetadata(nodes);
        }
        return around(
            "InstancesMetadata",
            count(nodes, "nodes"),
            false,
            () -> instances.instancesMetadata(nodes));
      }
    };
  }

  @Override
  public Optional<LoadBalancer> loadBalancer() {
    return delegate.loadBalancer().map(this::balancers);
  }

  private LoadBalancer balancers(LoadBalancer balancers) {
    return new LoadBalancer() {
      @Override
      public Optional<LoadBalancerStatus> getLoadBalancer(String clusterName, Service service)
          throws CloudException {
        return around(
            "GetLoadBalancer",
            LoadBalancer.serviceKey(service),
            false,
            () -> balancers.getLoadBalancer(clusterName, service));
      }

      @Override
      public String loadBalancerName(String clusterName, Service service) {
        return balancers.loadBalancerName(clusterName, service);
      }

      @Override
      public LoadBalancerStatus ensureLoadBalancer(
          String clusterName, Service service, List<Node> nodes) throws CloudException {
        return around(
            "EnsureLoadBalancer",
            LoadBalancer.serviceKey(service),
            true,
            () -> balancers.ensureLoadBalancer(clusterName, service, nodes));
      }

      @Override
      public void updateLoadBalancer(String clusterName, Service service, List<Node> nodes)
          throws CloudException {
        aroundVoid(
            "UpdateLoadBalancer",
            LoadBalancer.serviceKey(service),
            () -> balancers.updateLoadBalancer(clusterName, service, nodes));
      }

      @Override
      public int maxServicesPerCall() {
        return balancers.maxServicesPerCall();
      }

      @Override
      public BulkAnswers<Boolean> updateLoadBalancers(
          String clusterName, Collection<Service> services, List<Node> nodes)
          throws CloudException {
        if (balancers.maxServicesPerCall() <= 1) {
          return LoadBalancer.super.updateLoadBalancers(clusterName, services, nodes);
        }
        return around(
            "UpdateLoadBalancers",
            count(services, "services"),
            true,
            () -> balancers.updateLoadBalancers(clusterName, services, nodes));
      }

      @Override
      public void ensureLoadBalancerDeleted(String clusterName, Service service)
          throws CloudException {
        aroundVoid(
            "EnsureLoadBalancerDeleted",
            LoadBalancer.serviceKey(service),
            () -> balancers.ensureLoadBalancerDeleted(clusterName, service));
      }

      @Override
      public String fingerprint() {
        return balancers.fingerprint();
      }
    };
  }

  @Override
  public Optional<Routes> routes() {
    return delegate.routes().map(this::routes);
  }

  private Routes routes(Routes routes) {
    return new Routes() {
      @Override
      public List<Route> listRoutes(String clusterName) throws CloudException {
        return around("ListRoutes", "", false, () -> routes.listRoutes(clusterName));
      }

      @Override
      public void createRoute(String clusterName, String nameHint, Route route)
          throws CloudException {
        aroundVoid(
            "CreateRoute",
            route.destinationCidr(),
            () -> routes.createRoute(clusterName, nameHint, route));
      }

      @Override
      public void deleteRoute(String clusterName, Route route) throws CloudException {
        aroundVoid(
            "DeleteRoute", route.destinationCidr(), () -> routes.deleteRoute(clusterName, route));
      }
    };
  }

  @Override
  public Optional<Zones> zones() {
    return delegate.zones().map(this::zones);
  }

  private Zones zones(Zones zones) {
    return new Zones() {
      @Override
      public Zone zoneByProviderId(String providerId) throws CloudException {
        return around(
            "ZoneByProviderId", providerId, false, () -> zones.zoneByProviderId(providerId));
      }

      @Override
      public Zone zoneByNodeName(String nodeName) throws CloudException {
        return around("ZoneByNodeName", nodeName, false, () -> zones.zoneByNodeName(nodeName));
      }
    };
  }

  private static String name(Node node) {
    return InstancesV2.nodeName(node);
  }

  private static String count(Collection<?> items, String what) {
    return items.size() + " " + what;
  }
}
