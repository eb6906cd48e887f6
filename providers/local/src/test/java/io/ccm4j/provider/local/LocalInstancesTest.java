package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import org.junit.jupiter.api.Test;

class LocalInstancesTest {

  private final LocalInstances instances = new LocalInstances();

  @Test
  void metadataComesFromTheNodeItself() {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("w-1")
            .addToAnnotations(WellKnownAnnotations.PROVIDED_NODE_IP, "127.0.50.1,::1")
            .endMetadata()
            .withNewStatus()
            .addNewAddress()
            .withType("Hostname")
            .withAddress("w-1.local")
            .endAddress()
            .addNewAddress()
            .withType("InternalIP")
            .withAddress("127.0.50.1")
            .endAddress()
            .addNewAddress()
            .withType("ExternalIP")
            .withAddress("127.0.60.1")
            .endAddress()
            .endStatus()
            .build();

    InstanceMetadata metadata = instances.instanceMetadata(node).orElseThrow();

    assertThat(metadata.providerId()).isEqualTo("local://w-1");
    assertThat(metadata.instanceType()).isEqualTo("local");
    assertThat(metadata.addresses())
        .containsExactly(
            NodeAddress.internalIp("127.0.50.1"),
            NodeAddress.internalIp("::1"),
            NodeAddress.externalIp("127.0.60.1"),
            NodeAddress.hostname("w-1.local"));
    assertThat(instances.instanceExists(node)).isTrue();
    assertThat(instances.instanceShutdown(node)).isFalse();
  }

  @Test
  void aNodeWithoutAddressesGetsItsNameAsHostname() {
    Node node = new NodeBuilder().withNewMetadata().withName("bare").endMetadata().build();
    assertThat(instances.instanceMetadata(node).orElseThrow().addresses())
        .containsExactly(NodeAddress.hostname("bare"));
  }

  @Test
  void anyNumberOfNodesIsAnsweredInOneCall() {
    java.util.List<Node> nodes =
        java.util.stream.IntStream.range(0, 5000)
            .mapToObj(
                i -> new NodeBuilder().withNewMetadata().withName("w-" + i).endMetadata().build())
            .toList();

    assertThat(instances.maxNodesPerCall()).isEqualTo(Integer.MAX_VALUE);
    assertThat(instances.instancesExist(nodes).values()).hasSize(5000).doesNotContainValue(false);
    assertThat(instances.instancesShutdown(nodes).values()).hasSize(5000).doesNotContainValue(true);
    assertThat(
            instances
                .instancesMetadata(nodes)
                .value("w-4999")
                .orElseThrow()
                .orElseThrow()
                .providerId())
        .isEqualTo("local://w-4999");
  }
}
