package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  /**
   * K28 with K113: the fallback to the node's current InternalIPs leaves out what the reported path
   * leaves out. A node may carry a link-local or an EUI-64 InternalIP from before (the kubelet's
   * first status, upstream's provider, an older ccm4j); the fallback kept it while the guest agent
   * was silent, so the node's addresses flapped back to it at every reboot of the guest.
   */
  @ParameterizedTest(name = "node {0} (node IP {1}) -> {2}")
  @CsvSource(
      delimiter = ';',
      value = {
        "10.0.0.5 fe80::a8bb:ccff:fe91:9e27; ; 10.0.0.5",
        "169.254.3.4 10.0.0.5; ; 10.0.0.5",
        "10.0.0.5 fe80::1%eth0 fd00::5; ; 10.0.0.5 fd00::5",
        "10.0.0.5 2001:db8::a8bb:ccff:fe91:9e27 2001:db8::c; ; 10.0.0.5 2001:db8::c",
        // The family's only global IPv6 address stays, and so does the kubelet's node IP.
        "10.0.0.5 2001:db8::a8bb:ccff:fe91:9e27; ; 10.0.0.5 2001:db8::a8bb:ccff:fe91:9e27",
        "2001:db8::a8bb:ccff:fe91:9e27 2001:db8::c; 2001:db8::a8bb:ccff:fe91:9e27;"
            + " 2001:db8::a8bb:ccff:fe91:9e27 2001:db8::c",
        // Nothing left: nothing, so the node controller leaves the node's addresses as they are.
        "fe80::1; ; ",
      })
  void k28_k113_theFallbackLeavesOutWhatTheReportedPathLeavesOut(
      String internalIps, String nodeIp, String expected) {
    Node node = node(internalIps.split(" "));
    if (nodeIp != null) {
      node.getMetadata().setAnnotations(Map.of(WellKnownAnnotations.PROVIDED_NODE_IP, nodeIp));
    }
    List<String> addresses =
        InstanceDecisions.addresses(
                vmi(new VirtualMachineInstance.Interface("default", List.of())), node)
            .stream()
            .map(NodeAddress::address)
            .toList();
    assertThat(addresses)
        .containsExactlyElementsOf(expected == null ? List.of() : List.of(expected.split(" ")));
    assertThat(InstanceDecisions.addresses(vmi(), node).stream().map(NodeAddress::address).toList())
        .as("no default interface at all")
        .isEqualTo(addresses);
  }

  /**
   * K113 (users asked: Calico flapped between a node's IPv6 addresses): link-local addresses are
   * left out; an EUI-64 (SLAAC) IPv6 address only while the interface has an IPv6 address of
   * another form, and never the one the kubelet names as its node IP; the rest in K27's order. When
   * nothing is left, K28's fallback.
   */
  @ParameterizedTest(name = "{0} (node IP {1}) -> {2}")
  @CsvSource(
      delimiter = ';',
      value = {
        // K113's report: link-local, EUI-64 and the assigned address.
        "10.0.0.5 fe80::a8bb:ccff:fe91:9e27 2001:db8:482:0:a8bb:ccff:fe91:9e27 2001:db8:482::c;"
            + " ; 10.0.0.5 2001:db8:482::c",
        "169.254.3.4 10.0.0.5 fd00::5; ; 10.0.0.5 fd00::5",
        "fe80::1 10.0.0.5 FE80::2 fd00::5 febf::3; ; 10.0.0.5 fd00::5", // fe80::/10, any case
        "fec0::1 10.0.0.5; ; fec0::1 10.0.0.5", // fec0:: is not link-local (site-local)
        "::ffff:169.254.3.4 10.0.0.5; ; 10.0.0.5", // IPv4-mapped: IPv4 link-local
        // The family's only global address is EUI-64: routable, so it stays.
        "10.0.0.5 2001:db8::a8bb:ccff:fe91:9e27 fe80::a8bb:ccff:fe91:9e27;"
            + " ; 10.0.0.5 2001:db8::a8bb:ccff:fe91:9e27",
        "2001:db8::a8bb:ccff:fe91:9e27 2001:db8:1::a8bb:ccff:fe91:9e27;"
            + " ; 2001:db8::a8bb:ccff:fe91:9e27 2001:db8:1::a8bb:ccff:fe91:9e27",
        // The kubelet's node IP stays: the node controller requires it among the addresses.
        "2001:db8::a8bb:ccff:fe91:9e27 2001:db8::c; 10.0.0.5,2001:db8::a8bb:ccff:fe91:9e27;"
            + " 2001:db8::a8bb:ccff:fe91:9e27 2001:db8::c",
        "10.0.0.5 2001:db8::a8bb:ccff:fe91:9e27 2001:db8::c; 10.0.0.5;" + " 10.0.0.5 2001:db8::c",
        // Another IPv6 that no node could reach it at does not count as one.
        "::1 2001:db8::a8bb:ccff:fe91:9e27; ; ::1 2001:db8::a8bb:ccff:fe91:9e27",
        "ff02::1 2001:db8::a8bb:ccff:fe91:9e27; ; ff02::1 2001:db8::a8bb:ccff:fe91:9e27",
        // IPv4 has no EUI-64 form; a second IPv4 stays.
        "10.0.0.5 10.0.1.5; ; 10.0.0.5 10.0.1.5",
        // Only link-local: K28, the node's InternalIPs.
        "fe80::1 169.254.3.4; ; 192.168.0.1",
        // Not an address: kept, as upstream keeps it; but a link-local one with its zone is
        // link-local all the same.
        "not-an-ip fe80::1; ; not-an-ip",
        "10.0.0.5 fe80::a8bb:ccff:fe91:9e27%eth0 FE80::2%2 fd00::5%eth0; ; 10.0.0.5 fd00::5%eth0",
        "fe80::1%eth0; ; 192.168.0.1",
      })
  void k113_linkLocalAndEui64NextToAnotherIpv6AreLeftOut(
      String reported, String nodeIp, String expected) {
    Node node = node("192.168.0.1");
    if (nodeIp != null) {
      node.getMetadata().setAnnotations(Map.of(WellKnownAnnotations.PROVIDED_NODE_IP, nodeIp));
    }
    assertThat(
            InstanceDecisions.addresses(
                vmi(new VirtualMachineInstance.Interface("default", List.of(reported.split(" ")))),
                node))
        .extracting(NodeAddress::address)
        .containsExactly(expected.split(" "));
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
