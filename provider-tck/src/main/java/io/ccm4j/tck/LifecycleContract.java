package io.ccm4j.tck;

import static io.ccm4j.tck.Contract.CLOSE_BOUNDED;
import static io.ccm4j.tck.Contract.REGISTERED_BY_NAME;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviders;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.ProviderContext;
import io.fabric8.kubernetes.api.model.Service;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** The provider as the manager handles it: found by name, initialised, closed. */
public interface LifecycleContract extends FacetContract {

  @Test
  @Holds(REGISTERED_BY_NAME)
  default void a10_theFactoryIsRegisteredUnderItsName() throws Exception {
    String name = session().harness().factory().name();
    CloudProviders registry =
        CloudProviders.discover(Thread.currentThread().getContextClassLoader());
    REGISTERED_BY_NAME.require(
        registry.names().contains(name),
        "ServiceLoader finds %s, not \"%s\" (META-INF/services/%s)"
            .formatted(
                registry.names(),
                name,
                io.ccm4j.cloudprovider.CloudProviderFactory.class.getName()));
    String providerName = session().provider().providerName();
    REGISTERED_BY_NAME.require(
        name.equals(providerName),
        "the factory is \"%s\", its provider says \"%s\"".formatted(name, providerName));
  }

  @Test
  @Holds(CLOSE_BOUNDED)
  default void a4_closeReturnsWithinItsBound() throws Exception {
    ProviderHarness harness = session().harness();
    CloudProvider cloud = harness.factory().create(session().configFile(harness.cloudConfig()));
    cloud.initialize(new ProviderContext(harness.clusterName()));
    Service service = harness.loadBalancerService(cloud);
    if (cloud.loadBalancer().isPresent()) {
      // Work that starts what a provider starts (clients, listeners, threads); whether it
      // succeeds is the load balancer checks' business.
      LoadBalancer balancer = cloud.loadBalancer().get();
      try {
        balancer.ensureLoadBalancer(
            harness.clusterName(), service, List.of(harness.backendNode(cloud, 0)));
        balancer.ensureLoadBalancerDeleted(harness.clusterName(), service);
      } catch (Exception ignored) {
        // see above
      }
    }
    Duration bound = harness.closeWithin();
    // A thread of its own: a close that hangs must not hold a shared pool's.
    CompletableFuture<Void> closing = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("contract-close")
        .start(
            () -> {
              try {
                cloud.close();
                closing.complete(null);
              } catch (Throwable e) {
                closing.completeExceptionally(e);
              }
            });
    try {
      closing.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw CLOSE_BOUNDED.broken("close() still running after " + bound);
    } catch (ExecutionException e) {
      throw CLOSE_BOUNDED.broken("close() failed: " + e.getCause());
    }
  }
}
