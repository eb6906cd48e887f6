package io.ccm4j.runtime.cloud;

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
import java.util.List;
import java.util.Optional;

/**
 * A cloud provider whose every facet call passes a {@link CloudFence}: refused once the fence is
 * closed, and, for the calls that change the cloud (ensure, update and delete a load balancer,
 * create and delete a route), counted while in flight. Made by {@link CloudFence#guard}.
 */
final class FencedCloudProvider implements CloudProvider {

  private final CloudProvider delegate;
  private final CloudFence fence;

  FencedCloudProvider(CloudProvider delegate, CloudFence fence) {
    this.delegate = delegate;
    this.fence = fence;
  }

  @FunctionalInterface
  private interface CloudCall<T> {
    T call() throws CloudException;
  }

  @FunctionalInterface
  private interface CloudAction {
    void run() throws CloudException;
  }

  private <T> T read(String description, CloudCall<T> call) throws CloudException {
    try (CloudFence.Call ignored = fence.enter(description, false)) {
      return call.call();
    }
  }

  private <T> T write(String description, CloudCall<T> call) throws CloudException {
    try (CloudFence.Call ignored = fence.enter(description, true)) {
      return call.call();
    }
  }

  private void write(String description, CloudAction action) throws CloudException {
    write(
        description,
        () -> {
          action.run();
          return null;
        });
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
    return delegate
        .instancesV2()
        .map(
            instances ->
                new InstancesV2() {
                  @Override
                  public boolean instanceExists(Node node) throws CloudException {
                    return read(
                        "InstanceExists " + name(node), () -> instances.instanceExists(node));
                  }

                  @Override
                  public boolean instanceShutdown(Node node) throws CloudException {
                    return read(
                        "InstanceShutdown " + name(node), () -> instances.instanceShutdown(node));
                  }

                  @Override
                  public Optional<InstanceMetadata> instanceMetadata(Node node)
                      throws CloudException {
                    return read(
                        "InstanceMetadata " + name(node), () -> instances.instanceMetadata(node));
                  }
                });
  }

  @Override
  public Optional<LoadBalancer> loadBalancer() {
    return delegate
        .loadBalancer()
        .map(
            balancers ->
                new LoadBalancer() {
                  @Override
                  public Optional<LoadBalancerStatus> getLoadBalancer(
                      String clusterName, Service service) throws CloudException {
                    return read(
                        "GetLoadBalancer " + LoadBalancer.serviceKey(service),
                        () -> balancers.getLoadBalancer(clusterName, service));
                  }

                  @Override
                  public String loadBalancerName(String clusterName, Service service) {
                    return balancers.loadBalancerName(clusterName, service);
                  }

                  @Override
                  public LoadBalancerStatus ensureLoadBalancer(
                      String clusterName, Service service, List<Node> nodes) throws CloudException {
                    return write(
                        "EnsureLoadBalancer " + LoadBalancer.serviceKey(service),
                        () -> balancers.ensureLoadBalancer(clusterName, service, nodes));
                  }

                  @Override
                  public void updateLoadBalancer(
                      String clusterName, Service service, List<Node> nodes) throws CloudException {
                    write(
                        "UpdateLoadBalancer " + LoadBalancer.serviceKey(service),
                        () -> balancers.updateLoadBalancer(clusterName, service, nodes));
                  }

                  @Override
                  public void ensureLoadBalancerDeleted(String clusterName, Service service)
                      throws CloudException {
                    write(
                        "EnsureLoadBalancerDeleted " + LoadBalancer.serviceKey(service),
                        () -> balancers.ensureLoadBalancerDeleted(clusterName, service));
                  }

                  @Override
                  public String fingerprint() {
                    return balancers.fingerprint();
                  }
                });
  }

  @Override
  public Optional<Routes> routes() {
    return delegate
        .routes()
        .map(
            routes ->
                new Routes() {
                  @Override
                  public List<Route> listRoutes(String clusterName) throws CloudException {
                    return read("ListRoutes", () -> routes.listRoutes(clusterName));
                  }

                  @Override
                  public void createRoute(String clusterName, String nameHint, Route route)
                      throws CloudException {
                    write(
                        "CreateRoute " + route.destinationCidr(),
                        () -> routes.createRoute(clusterName, nameHint, route));
                  }

                  @Override
                  public void deleteRoute(String clusterName, Route route) throws CloudException {
                    write(
                        "DeleteRoute " + route.destinationCidr(),
                        () -> routes.deleteRoute(clusterName, route));
                  }
                });
  }

  @Override
  public Optional<Zones> zones() {
    return delegate
        .zones()
        .map(
            zones ->
                new Zones() {
                  @Override
                  public Zone zoneByProviderId(String providerId) throws CloudException {
                    return read(
                        "ZoneByProviderId " + providerId, () -> zones.zoneByProviderId(providerId));
                  }

                  @Override
                  public Zone zoneByNodeName(String nodeName) throws CloudException {
                    return read("ZoneByNodeName " + nodeName, () -> zones.zoneByNodeName(nodeName));
                  }
                });
  }

  private static String name(Node node) {
    return node.getMetadata() == null ? "" : node.getMetadata().getName();
  }
}
