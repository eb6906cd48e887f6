package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.NodeAddress;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InstanceDecisionsTest {

  private static VirtualMachineInstance vmi(VirtualMachineInstance.Interface... interfaces) {
    return new VirtualMachineInstance("vm-1", "", "", "Running", "infra-1", List.of(interfaces));
  }

  private static Node node(String... internalIps) {
    List<NodeAddress> addresses = new ArrayList<>();
    addresses.add(NodeAddress.hostname("vm-1"));
    for (String ip : internalIps) {
      addresses.add(NodeAddress.internalIp(ip));
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName("vm-1")
        .endMetadata()
        .withNewStatus()
        .withAddresses(
            addresses.stream()
                .map(
                    a ->
                        new io.fabric8.kubernetes.api.model.NodeAddress(
                            a.address(), a.type().name()))
                .toList())
        .endStatus()
        .build();
  }

  @Test
  void k27_everyIpOfTheFirstDefaultInterfaceInOrderWithoutDuplicates() {
    assertThat(
            InstanceDecisions.addresses(
                vmi(
                    new VirtualMachineInstance.Interface("other", List.of("10.9.9.9")),
                    new VirtualMachineInstance.Interface(
                        "default", List.of("10.0.0.5", "", "fd00::5", "10.0.0.5")),
                    new VirtualMachineInstance.Interface("default", List.of("10.0.0.6"))),
                node("192.168.0.1")))
        .containsExactly(NodeAddress.internalIp("10.0.0.5"), NodeAddress.internalIp("fd00::5"));
  }

  @Test
  void k28_withoutDefaultAddressesTheNodesInternalIpsStay() {
    assertThat(
            InstanceDecisions.addresses(
                vmi(new VirtualMachineInstance.Interface("default", List.of())),
                node("10.0.0.5", "fd00::5")))
        .containsExactly(NodeAddress.internalIp("10.0.0.5"), NodeAddress.internalIp("fd00::5"));
    assertThat(InstanceDecisions.addresses(vmi(), node())).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({
    "'', RUNNING",
    "Pending, RUNNING",
    "Scheduling, RUNNING",
    "Scheduled, RUNNING",
    "Running, RUNNING",
    "WaitingForSync, RUNNING",
    "Succeeded, SHUT_DOWN",
    "Failed, SHUT_DOWN",
    "Unknown, UNKNOWN"
  })
  void k24_shutdownFollowsThePhase(String phase, InstanceDecisions.Shutdown expected) {
    assertThat(InstanceDecisions.shutdown(phase)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({"kubevirt://vm-1, vm-1", "kubevirt://worker_a-0, worker_a-0", "kubevirt://w.x, w.x"})
  void k21_providerIdsThatParse(String providerId, String name) throws CloudException {
    assertThat(ProviderIds.instanceId(providerId)).isEqualTo(name);
    assertThat(ProviderIds.of(name)).isEqualTo(providerId);
  }

  @ParameterizedTest
  @CsvSource({"''", "aws:///vm-1", "kubevirt://ns/vm-1", "kubevirt://"})
  void k21_providerIdsThatDoNot(String providerId) {
    assertThatThrownBy(() -> ProviderIds.instanceId(providerId))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("does not match kubevirt://<instance-id>");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "worker-1, worker-1",
    "worker-1.tenant.example.com, worker-1",
    "worker-1., worker-1",
  })
  void k115_anFqdnNodeNameIsItsFirstLabel(String nodeName, String host) {
    assertThat(InstanceDecisions.hostLabel(nodeName)).isEqualTo(host);
  }
}
