package io.ccm4j.provider.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SimCloudConfigTest {

  private static Node node(String name) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .build();
  }

  @Test
  void explicitAndGeneratedInstancesAnswerInstanceMetadata() throws Exception {
    SimCloud cloud =
        SimCloudProviderFactory.fromYaml(
            """
            instances:
              - name: cp-1
                region: r1
                zone: r1-a
                instanceType: sim.large
                addresses: [10.0.0.10, "fd00::10"]
                labels: {sim.ccm4j.io/pool: control-plane}
            generate:
              count: 4
              prefix: w-
              regions: {r1: [r1-a, r1-b], r2: [r2-a]}
              instanceTypes: [sim.small]
              addressFamilies: [IPv4, IPv6]
            """);

    InstanceMetadata cp = cloud.instanceMetadata(node("cp-1")).orElseThrow();
    assertThat(cp.providerId()).isEqualTo("sim://cp-1");
    assertThat(cp.addresses())
        .containsExactly(
            NodeAddress.internalIp("10.0.0.10"),
            NodeAddress.internalIp("fd00::10"),
            NodeAddress.hostname("cp-1"));
    assertThat(cp.additionalLabels()).containsEntry("sim.ccm4j.io/pool", "control-plane");

    assertThat(cloud.instances()).hasSize(5);
    InstanceMetadata w3 = cloud.instanceMetadata(node("w-3")).orElseThrow();
    assertThat(w3.region()).isEqualTo("r1");
    assertThat(w3.zone()).isEqualTo("r1-a");
    assertThat(w3.addresses())
        .extracting(NodeAddress::address)
        .containsExactly("10.128.0.4", "fd00:5eed::4", "w-3");
    assertThat(cloud.calls()).containsEntry("InstanceMetadata", 2L);
  }

  @Test
  void lifecycleChangesAreVisibleToInstanceCalls() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("generate: {count: 1}");

    assertThat(cloud.instanceExists(node("node-0"))).isTrue();
    cloud.shutdown("node-0");
    assertThat(cloud.instanceShutdown(node("node-0"))).isTrue();
    cloud.start("node-0");
    assertThat(cloud.instanceShutdown(node("node-0"))).isFalse();
    cloud.delete("node-0");
    assertThat(cloud.instanceExists(node("node-0"))).isFalse();
  }

  @Test
  void callsOverTheRateLimitAreRefusedAsThrottled() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("qps: 1\nburst: 2\ngenerate: {count: 1}");

    cloud.instanceExists(node("node-0"));
    cloud.instanceExists(node("node-0"));
    assertThatThrownBy(() -> cloud.instanceExists(node("node-0")))
        .isInstanceOf(RetryAfterException.class);
    assertThat(cloud.calls())
        .containsEntry("InstanceExists", 2L)
        .containsEntry(SimCloud.THROTTLED, 1L);
  }

  @Test
  void injectedErrorsFailCalls() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("errorRate: 1\ngenerate: {count: 1}");

    assertThatThrownBy(() -> cloud.instanceMetadata(node("node-0")))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("injected error");
  }

  /**
   * A config that names no instances (only load balancers, faults or latency) simulates no
   * instances: the cloud does not offer the instances facet, so it cannot answer "no such instance"
   * for every node and have the cloud-node-lifecycle controller delete them. An {@code instances:}
   * or {@code generate:} section, even an empty one, says the cloud simulates instances.
   */
  @ParameterizedTest(name = "{0}: instances facet {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "'{}'                                           | false",
        "'latencyMs: 5'                                 | false",
        "'loadBalancers: {ingressPool: 127.0.200.0/24}' | false",
        "'instances:'                                   | false",
        "'instances: []'                                | true",
        "'instances: [{name: a}]'                       | true",
        "'generate: {count: 0}'                         | true",
        "'generate: {count: 2}'                         | true",
      })
  void theInstancesFacetIsOfferedOnlyWhenTheConfigSimulatesInstances(String yaml, boolean offered)
      throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml(yaml);

    assertThat(cloud.instancesV2().isPresent()).isEqualTo(offered);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "unknown field  | 'latencyMs: 5\nlatency: 5'                        | line 2: unknown field \"latency\"",
        "bad rate       | 'errorRate: 2'                                     | field \"errorRate\" must be between 0 and 1",
        "bad address    | 'instances:\n  - name: a\n    addresses: [nope]'  | field \"instances[0].addresses\" \"nope\" is not an IP address",
        "leading zero   | 'instances:\n  - name: a\n    addresses: [010.0.0.1]'  | field \"instances[0].addresses\" \"010.0.0.1\" is not an IP address",
        "bad state      | 'instances:\n  - name: a\n    state: off'         | field \"instances[0].state\" must be running or shutdown",
        "wrong type     | 'generate: {count: many}'                          | field \"generate.count\": expected a whole number, got a string (many)",
        "not a list     | 'instances: 3'                                     | field \"instances\": expected a list, got a whole number (3)",
        "duplicate name | 'instances: [{name: a}, {name: a}]'                | instance \"a\" is defined twice",
        "bad family     | 'generate: {count: 1, addressFamilies: [IPv5]}'    | must list IPv4 and/or IPv6",
      })
  void badConfigNamesTheField(String description, String yaml, String expected) {
    assertThatThrownBy(() -> SimCloudProviderFactory.fromYaml(yaml.replace("\\n", "\n")))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining(expected)
        .message()
        .doesNotContain("java.", "Cannot deserialize", "JsonToken");
  }

  /**
   * Without a cloud config the simulation refuses to start, saying which flag to set and which
   * fields make instances. It does not claim that nodes would be deleted: a cloud without instances
   * offers no instances facet, so nothing would be.
   */
  @Test
  void withoutACloudConfigTheSimCloudRefusesToStartSayingWhatToGive() {
    assertThatThrownBy(() -> new SimCloudProviderFactory().create(Optional.empty()))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageStartingWith("the sim cloud is a simulation and needs one: ")
        .hasMessageContaining("--cloud-config=<file>")
        .hasMessageContaining("instances: (a list; [] for none yet)")
        .hasMessageContaining("generate: {count: <n>}")
        .hasMessageNotContaining("deleted")
        .hasMessageNotContaining("gone");
  }

  /** What the refusal says of a config file with neither instances nor generate: holds. */
  @Test
  void aConfigFileWithNeitherSimulatesLoadBalancersAndRoutesOnly(@TempDir Path directory)
      throws Exception {
    Path config = Files.writeString(directory.resolve("sim.yaml"), "");

    CloudProvider cloud = new SimCloudProviderFactory().create(Optional.of(config));

    assertThat(cloud.instancesV2()).isEmpty();
    assertThat(cloud.loadBalancer()).isPresent();
    assertThat(cloud.routes()).isPresent();
    cloud.close();
  }
}
