package io.ccm4j.provider.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.ThrottledException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SimBulkInstancesTest {

  private static Node node(String name) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .build();
  }

  private static List<Node> nodes(int from, int to) {
    return IntStream.range(from, to).mapToObj(i -> node("node-" + i)).toList();
  }

  @Test
  void aThousandInstancesAnswerInOneCallAndAMissingOneFailsAlone() throws Exception {
    SimCloud cloud =
        SimCloudProviderFactory.fromYaml("instancesPerCall: 1000\ngenerate: {count: 1500}");
    cloud.shutdown("node-7");
    List<Node> asked = new java.util.ArrayList<>(nodes(0, 999));
    asked.add(node("ghost"));

    BulkAnswers<Optional<InstanceMetadata>> metadata = cloud.instancesMetadata(asked);
    BulkAnswers<Boolean> exist = cloud.instancesExist(asked);
    BulkAnswers<Boolean> shutdown = cloud.instancesShutdown(nodes(0, 10));

    assertThat(cloud.maxNodesPerCall()).isEqualTo(1000);
    assertThat(metadata.values()).hasSize(999);
    assertThat(metadata.value("node-3").orElseThrow().orElseThrow().providerId())
        .isEqualTo("sim://node-3");
    assertThat(metadata.failure("ghost").orElseThrow())
        .isInstanceOf(InstanceNotFoundException.class);
    assertThat(exist.value("node-998")).contains(true);
    assertThat(exist.value("ghost")).contains(false);
    assertThat(shutdown.value("node-7")).contains(true);
    assertThat(shutdown.value("node-8")).contains(false);
    assertThat(cloud.calls())
        .containsEntry("InstancesMetadata", 1L)
        .containsEntry("InstancesExist", 1L)
        .containsEntry("InstancesShutdown", 1L)
        .doesNotContainKey("InstanceMetadata");
  }

  @Test
  void aCallOverTheSizeIsRefused() throws Exception {
    SimCloud cloud =
        SimCloudProviderFactory.fromYaml("instancesPerCall: 10\ngenerate: {count: 11}");

    assertThatThrownBy(() -> cloud.instancesExist(nodes(0, 11)))
        .isInstanceOf(CloudException.class)
        .hasMessage("sim: InstancesExist takes at most 10 instances a call, got 11");
  }

  @Test
  void withoutInstancesPerCallItAnswersNodeByNode() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("generate: {count: 3}");

    BulkAnswers<Boolean> exist = cloud.instancesExist(nodes(0, 3));

    assertThat(cloud.maxNodesPerCall()).isEqualTo(1);
    assertThat(exist.values()).hasSize(3);
    assertThat(cloud.calls()).containsEntry("InstanceExists", 3L);
  }

  @Test
  void theAccountLimitRefusesCallsBeyondItsBurstAsThrottledWithTheWaitForTheNextToken()
      throws Exception {
    SimCloud cloud =
        SimCloudProviderFactory.fromYaml(
            "accountLimit: {qps: 0.5, burst: 2}\ninstancesPerCall: 100\ngenerate: {count: 5}");

    cloud.instancesMetadata(nodes(0, 5));
    cloud.instanceExists(node("node-0"));

    assertThatThrownBy(() -> cloud.instancesMetadata(nodes(0, 5)))
        .isInstanceOf(ThrottledException.class)
        .hasMessageContaining("RequestLimitExceeded")
        .satisfies(
            e ->
                assertThat(((ThrottledException) e).retryAfter().toMillis())
                    .isBetween(1000L, 2000L));
    assertThat(cloud.calls()).containsEntry(SimCloud.THROTTLED, 1L);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "accountLimit: {qps: 0}|field \"accountLimit.qps\" must be positive",
        "accountLimit: {qps: 1, burst: 0}|field \"accountLimit.burst\" must be at least 1",
        "{qps: 1, accountLimit: {qps: 1}}|field \"accountLimit\" replaces the top-level qps",
        "instancesPerCall: 1001|field \"instancesPerCall\" must be between 1 and 1000",
        "instancesPerCall: 0|field \"instancesPerCall\" must be between 1 and 1000",
      })
  void badLimitsNameTheirField(String yaml, String message) {
    assertThatThrownBy(() -> SimCloudProviderFactory.fromYaml(yaml))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining(message);
  }
}
