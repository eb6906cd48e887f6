package io.ccm4j.runtime.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.ThrottledException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ThrottledCloudProviderTest {

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  /** Per-node calls, and bulk ones when {@code batch} is above 1; counts both. */
  private static final class Counting implements InstancesV2 {
    final int batch;
    final List<Long> callTimes = new ArrayList<>();
    int bulkCalls;
    boolean throttle;

    Counting(int batch) {
      this.batch = batch;
    }

    @Override
    public boolean instanceExists(Node node) throws CloudException {
      callTimes.add(System.nanoTime());
      if (throttle) {
        throw new ThrottledException("RequestLimitExceeded", Duration.ZERO);
      }
      return true;
    }

    @Override
    public boolean instanceShutdown(Node node) {
      return false;
    }

    @Override
    public Optional<InstanceMetadata> instanceMetadata(Node node) {
      return Optional.empty();
    }

    @Override
    public int maxNodesPerCall() {
      return batch;
    }

    @Override
    public BulkAnswers<Boolean> instancesExist(Collection<Node> nodes) throws CloudException {
      if (batch <= 1) {
        return InstancesV2.super.instancesExist(nodes);
      }
      bulkCalls++;
      return new BulkAnswers<>(Map.of(), Map.of());
    }
  }

  private static CloudProvider cloud(InstancesV2 instances) {
    return new CloudProvider() {
      @Override
      public String providerName() {
        return "counting";
      }

      @Override
      public Optional<InstancesV2> instancesV2() {
        return Optional.of(instances);
      }
    };
  }

  private static List<Node> nodes(int n) {
    return IntStream.range(0, n).mapToObj(i -> node("n" + i)).toList();
  }

  @Test
  void callsBeyondTheBurstWaitForTheirTokenAndFacetsStayTheSame() throws Exception {
    Counting instances = new Counting(1);
    ThrottledCloudProvider throttled = new ThrottledCloudProvider(cloud(instances), 20, 2);

    for (int i = 0; i < 6; i++) {
      throttled.instancesV2().orElseThrow().instanceExists(node("n"));
    }

    // Two from the burst, then one every 50 ms: the sixth call comes at least 4 intervals later.
    assertThat((instances.callTimes.get(5) - instances.callTimes.get(0)) / 1e6)
        .isGreaterThanOrEqualTo(190);
    assertThat(throttled.providerName()).isEqualTo("counting");
    assertThat(throttled.loadBalancer()).isEmpty();
    assertThat(throttled.routes()).isEmpty();
  }

  @Test
  void aBulkCallIsOneTokenAndAProviderWithoutBulkCallsPaysOnePerNode() throws Exception {
    AtomicLong clock = new AtomicLong();
    CloudRateLimiter bulkLimiter = new CloudRateLimiter(1, 10, clock::get);
    Counting bulk = new Counting(1000);
    new ThrottledCloudProvider(cloud(bulk), bulkLimiter)
        .instancesV2()
        .orElseThrow()
        .instancesExist(nodes(5));
    assertThat(bulk.bulkCalls).isEqualTo(1);
    assertThat(bulk.callTimes).isEmpty();

    CloudRateLimiter perNodeLimiter = new CloudRateLimiter(1, 10, clock::get);
    Counting perNode = new Counting(1);
    BulkAnswers<Boolean> answers =
        new ThrottledCloudProvider(cloud(perNode), perNodeLimiter)
            .instancesV2()
            .orElseThrow()
            .instancesExist(nodes(5));
    assertThat(perNode.callTimes).hasSize(5);
    assertThat(answers.values()).hasSize(5);

    // Five tokens spent: five calls more go at once, the next waits; the bulk one left nine.
    for (int i = 0; i < 5; i++) {
      assertThat(perNodeLimiter.reserve()).isZero();
    }
    assertThat(perNodeLimiter.reserve()).isPositive();
    for (int i = 0; i < 9; i++) {
      assertThat(bulkLimiter.reserve()).isZero();
    }
  }

  @Test
  void aThrottledAnswerSlowsTheSharedLimiterAndReachesTheCaller() {
    AtomicLong clock = new AtomicLong();
    CloudRateLimiter limiter = new CloudRateLimiter(20, 5, clock::get);
    Counting instances = new Counting(1);
    instances.throttle = true;
    InstancesV2 throttled =
        new ThrottledCloudProvider(cloud(instances), limiter).instancesV2().orElseThrow();

    assertThatThrownBy(() -> throttled.instanceExists(node("a")))
        .isInstanceOf(ThrottledException.class);

    assertThat(limiter.currentQps()).isEqualTo(10);
    assertThat(limiter.throttledCalls()).isEqualTo(1);
  }
}
