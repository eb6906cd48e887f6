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
import io.ccm4j.runtime.workqueue.TokenBucketRateLimiter;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * A cloud provider whose calls, across all facets, wait for a token of one bucket ({@code
 * --cloud-api-qps}, {@code --cloud-api-burst}): ccm4j stays under a cloud's API quota instead of
 * being throttled by it. Upstream has no such limit (§8.2, cloud-provider#30).
 */
public final class ThrottledCloudProvider implements CloudProvider {

  private final CloudProvider delegate;
  private final TokenBucketRateLimiter<Object> bucket;

  public ThrottledCloudProvider(CloudProvider delegate, double qps, int burst) {
    this(delegate, new TokenBucketRateLimiter<>(qps, burst));
  }

  private ThrottledCloudProvider(CloudProvider delegate, TokenBucketRateLimiter<Object> bucket) {
    this.delegate = delegate;
    this.bucket = bucket;
  }

  /**
   * The same throttle (the same bucket) in front of what {@code inner} makes of the provider behind
   * it: a {@link CloudFence} goes there, to be checked after a call's wait for its token.
   */
  ThrottledCloudProvider inFrontOf(UnaryOperator<CloudProvider> inner) {
    return new ThrottledCloudProvider(inner.apply(delegate), bucket);
  }

  private void acquire() throws CloudException {
    Duration wait = bucket.when(this);
    if (wait.isZero()) {
      return;
    }
    try {
      Thread.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CloudException("interrupted while waiting for the cloud API rate limit");
    }
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
                    acquire();
                    return instances.instanceExists(node);
                  }

                  @Override
                  public boolean instanceShutdown(Node node) throws CloudException {
                    acquire();
                    return instances.instanceShutdown(node);
                  }

                  @Override
                  public Optional<InstanceMetadata> instanceMetadata(Node node)
                      throws CloudException {
                    acquire();
                    return instances.instanceMetadata(node);
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
                    acquire();
                    return balancers.getLoadBalancer(clusterName, service);
                  }

                  @Override
                  public String loadBalancerName(String clusterName, Service service) {
                    return balancers.loadBalancerName(clusterName, service);
                  }

                  @Override
                  public LoadBalancerStatus ensureLoadBalancer(
                      String clusterName, Service service, List<Node> nodes) throws CloudException {
                    acquire();
                    return balancers.ensureLoadBalancer(clusterName, service, nodes);
                  }

                  @Override
                  public void updateLoadBalancer(
                      String clusterName, Service service, List<Node> nodes) throws CloudException {
                    acquire();
                    balancers.updateLoadBalancer(clusterName, service, nodes);
                  }

                  @Override
                  public void ensureLoadBalancerDeleted(String clusterName, Service service)
                      throws CloudException {
                    acquire();
                    balancers.ensureLoadBalancerDeleted(clusterName, service);
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
                    acquire();
                    return routes.listRoutes(clusterName);
                  }

                  @Override
                  public void createRoute(String clusterName, String nameHint, Route route)
                      throws CloudException {
                    acquire();
                    routes.createRoute(clusterName, nameHint, route);
                  }

                  @Override
                  public void deleteRoute(String clusterName, Route route) throws CloudException {
                    acquire();
                    routes.deleteRoute(clusterName, route);
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
                    acquire();
                    return zones.zoneByProviderId(providerId);
                  }

                  @Override
                  public Zone zoneByNodeName(String nodeName) throws CloudException {
                    acquire();
                    return zones.zoneByNodeName(nodeName);
                  }
                });
  }
}
