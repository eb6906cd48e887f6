package io.ccm4j.runtime.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ThrottledCloudProviderTest {

  @Test
  void callsBeyondTheBurstWaitForTheirTokenAndFacetsStayTheSame() throws Exception {
    List<Long> callTimes = new ArrayList<>();
    InstancesV2 instances =
        new InstancesV2() {
          @Override
          public boolean instanceExists(Node node) {
            callTimes.add(System.nanoTime());
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
        };
    CloudProvider cloud =
        new CloudProvider() {
          @Override
          public String providerName() {
            return "counting";
          }

          @Override
          public Optional<InstancesV2> instancesV2() {
            return Optional.of(instances);
          }
        };
    ThrottledCloudProvider throttled = new ThrottledCloudProvider(cloud, 20, 2);
    Node node = new NodeBuilder().withNewMetadata().withName("n").endMetadata().build();

    for (int i = 0; i < 6; i++) {
      throttled.instancesV2().orElseThrow().instanceExists(node);
    }

    // Two from the burst, then one every 50 ms: the sixth call comes at least 4 intervals later.
    assertThat((callTimes.get(5) - callTimes.get(0)) / 1e6).isGreaterThanOrEqualTo(190);
    assertThat(throttled.providerName()).isEqualTo("counting");
    assertThat(throttled.loadBalancer()).isEmpty();
    assertThat(throttled.routes()).isEmpty();
  }
}
