package io.ccm4j.runtime.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CloudFenceTest {

  private static final Service WEB =
      new ServiceBuilder()
          .withNewMetadata()
          .withNamespace("default")
          .withName("web")
          .withUid("0b8e3c2a-1d1f-4c55-9b0c-7c9a3d0b1e2f")
          .endMetadata()
          .build();

  /** A load balancer facet whose ensure waits for a latch; it counts the calls that reach it. */
  private static final class SlowBalancers implements LoadBalancer {
    final CountDownLatch inEnsure = new CountDownLatch(1);
    final CountDownLatch finishEnsure = new CountDownLatch(1);
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public Optional<LoadBalancerStatus> getLoadBalancer(String clusterName, Service service) {
      calls.incrementAndGet();
      return Optional.empty();
    }

    @Override
    public LoadBalancerStatus ensureLoadBalancer(
        String clusterName, Service service, List<Node> nodes) throws CloudException {
      calls.incrementAndGet();
      inEnsure.countDown();
      try {
        finishEnsure.await();
      } catch (InterruptedException e) {
        throw new CloudException("interrupted");
      }
      return new LoadBalancerStatus(List.of(LoadBalancerStatus.Ingress.ofIp("127.0.200.1")));
    }

    @Override
    public void updateLoadBalancer(String clusterName, Service service, List<Node> nodes) {
      calls.incrementAndGet();
    }

    @Override
    public void ensureLoadBalancerDeleted(String clusterName, Service service) {
      calls.incrementAndGet();
    }

    @Override
    public String fingerprint() {
      return "slow/v1";
    }
  }

  private static CloudProvider cloud(LoadBalancer balancers) {
    return new CloudProvider() {
      @Override
      public String providerName() {
        return "slow";
      }

      @Override
      public Optional<LoadBalancer> loadBalancer() {
        return Optional.of(balancers);
      }
    };
  }

  @Test
  void onceClosedNoCloudCallStartsAndTheNextCallOfASyncFails() throws Exception {
    SlowBalancers balancers = new SlowBalancers();
    CloudFence fence = new CloudFence();
    LoadBalancer fenced = fence.guard(cloud(balancers)).loadBalancer().orElseThrow();

    fenced.getLoadBalancer("c", WEB);
    fence.close();

    assertThatThrownBy(() -> fenced.ensureLoadBalancer("c", WEB, List.of()))
        .isInstanceOf(CloudException.class)
        .hasMessage("not called: this instance no longer leads (EnsureLoadBalancer default/web)");
    assertThatThrownBy(() -> fenced.getLoadBalancer("c", WEB)).isInstanceOf(CloudException.class);
    assertThat(balancers.calls).hasValue(1);
    assertThat(fenced.fingerprint()).isEqualTo("slow/v1");
  }

  @Test
  void aWriteInFlightIsWaitedForAndAReadIsNot() throws Exception {
    SlowBalancers balancers = new SlowBalancers();
    CloudFence fence = new CloudFence();
    LoadBalancer fenced = fence.guard(cloud(balancers)).loadBalancer().orElseThrow();
    CompletableFuture<LoadBalancerStatus> ensure =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return fenced.ensureLoadBalancer("c", WEB, List.of());
              } catch (CloudException e) {
                throw new IllegalStateException(e);
              }
            });
    balancers.inEnsure.await();
    fenced.getLoadBalancer("c", WEB);

    fence.close();

    assertThat(fence.writesInFlight()).containsExactly("EnsureLoadBalancer default/web");
    assertThat(fence.awaitWrites(Duration.ofMillis(50)))
        .containsExactly("EnsureLoadBalancer default/web");
    balancers.finishEnsure.countDown();
    assertThat(fence.awaitWrites(Duration.ofSeconds(10))).isEmpty();
    assertThat(ensure.get().ingress()).hasSize(1);
  }

  @Test
  void aCallThatWaitedForItsTokenPastTheFenceDoesNotGoOut() throws Exception {
    SlowBalancers balancers = new SlowBalancers();
    CloudFence fence = new CloudFence();
    // One token a second, the burst spent on the first call: the second waits about a second.
    LoadBalancer fenced =
        fence
            .guard(new ThrottledCloudProvider(cloud(balancers), 1, 1))
            .loadBalancer()
            .orElseThrow();
    fenced.getLoadBalancer("c", WEB);
    CompletableFuture<Throwable> second =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                fenced.updateLoadBalancer("c", WEB, List.of());
                return null;
              } catch (CloudException e) {
                return e;
              }
            });
    await().pollDelay(Duration.ofMillis(100)).until(() -> !second.isDone());

    fence.close();

    assertThat(second.get()).isInstanceOf(CloudException.class);
    assertThat(balancers.calls).hasValue(1);
  }
}
