package io.ccm4j.controllers.nodeutil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.NodeAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeAddressesTest {

  private static final List<NodeAddress> CLOUD =
      List.of(
          NodeAddress.externalIp("203.0.113.5"),
          NodeAddress.internalIp("10.0.0.1"),
          NodeAddress.internalIp("10.0.0.2"),
          NodeAddress.internalIp("fd00::1"),
          NodeAddress.hostname("node-a"));

  private static List<String> render(List<NodeAddress> addresses) {
    return addresses.stream().map(a -> a.type() + "=" + a.address()).toList();
  }

  @ParameterizedTest(name = "node-ip {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "10.0.0.2          | InternalIP=10.0.0.2,ExternalIP=203.0.113.5,Hostname=node-a",
        "203.0.113.5       | ExternalIP=203.0.113.5,InternalIP=10.0.0.1,InternalIP=10.0.0.2,InternalIP=fd00::1,Hostname=node-a",
        "'fd00::1,10.0.0.1' | InternalIP=fd00::1,InternalIP=10.0.0.1,ExternalIP=203.0.113.5,Hostname=node-a",
      })
  void N12_annotatedIpsComeFirstAndAreTheOnlyAddressesOfTheirType(String nodeIp, String expected) {
    assertThat(render(NodeAddresses.pinToProvidedNodeIp(nodeIp, CLOUD)))
        .containsExactlyElementsOf(Arrays.asList(expected.split(",")));
  }

  @ParameterizedTest(name = "node-ip [{0}]")
  @CsvSource(
      delimiter = '|',
      value = {
        "10.9.9.9                  | failed to get node address from cloud provider that matches ip: 10.9.9.9",
        "'10.0.0.1,10.0.0.2'       | must contain at most one IPv4 and one IPv6 address",
        "'10.0.0.1,fd00::1,fd00::2' | must contain at most one IPv4 and one IPv6 address",
        "'0.0.0.0,fd00::1'         | cannot use \"0.0.0.0\" or \"::\" in dual-stack node IPs",
        "node-a                    | \"node-a\" is not a valid IP address",
        "''                        | is not a valid IP address",
        "010.0.0.1                 | \"010.0.0.1\" is not a valid IP address: octet \"010\" has a leading zero",
        // Upstream reads the annotation strictly (ParseNodeIPAnnotation, not the kubelet's sloppy
        // --node-ip): a space is part of the token, and the token is no IP.
        "' 10.0.0.1'               | \" 10.0.0.1\" is not a valid IP address",
        "'10.0.0.1 '               | \"10.0.0.1 \" is not a valid IP address",
        "'10.0.0.1, fd00::1'       | \" fd00::1\" is not a valid IP address",
      })
  void N12_invalidAnnotationsAreErrors(String nodeIp, String message) {
    assertThatThrownBy(() -> NodeAddresses.pinToProvidedNodeIp(nodeIp, CLOUD))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void N11_hostnameFromTheKubeletIsKeptWhenTheCloudHasNone() {
    List<NodeAddress> desired =
        NodeAddresses.desired(
            List.of(NodeAddress.internalIp("10.0.0.1")),
            List.of(NodeAddress.hostname("kubelet-name")),
            null);

    assertThat(render(desired)).containsExactly("InternalIP=10.0.0.1", "Hostname=kubelet-name");
  }

  @Test
  void N11_changeDetectionIgnoresOrderButNotContent() {
    List<NodeAddress> a = List.of(NodeAddress.internalIp("10.0.0.1"), NodeAddress.hostname("n"));
    List<NodeAddress> reordered =
        List.of(NodeAddress.hostname("n"), NodeAddress.internalIp("10.0.0.1"));
    List<NodeAddress> changed =
        List.of(NodeAddress.internalIp("10.0.0.9"), NodeAddress.hostname("n"));

    assertThat(NodeAddresses.changed(a, reordered)).isFalse();
    assertThat(NodeAddresses.changed(a, changed)).isTrue();
    assertThat(NodeAddresses.changed(a, List.of(NodeAddress.hostname("n")))).isTrue();
  }

  /**
   * N11.5, where ccm4j does better: a dual-stack node's unchanged addresses are not a change.
   * Upstream's last-of-a-type map found one at every pass, and patched the node's status for
   * nothing each time.
   */
  @Test
  void N11_aDualStackNodesUnchangedAddressesAreNoChange() {
    List<NodeAddress> dualStack =
        List.of(
            NodeAddress.internalIp("10.0.0.1"),
            NodeAddress.internalIp("fd00::1"),
            NodeAddress.hostname("n"));
    List<NodeAddress> sameOtherTypeOrder =
        List.of(
            NodeAddress.hostname("n"),
            NodeAddress.internalIp("10.0.0.1"),
            NodeAddress.internalIp("fd00::1"));
    List<NodeAddress> swapped =
        List.of(
            NodeAddress.internalIp("fd00::1"),
            NodeAddress.internalIp("10.0.0.1"),
            NodeAddress.hostname("n"));
    List<NodeAddress> oneChanged =
        List.of(
            NodeAddress.internalIp("10.0.0.1"),
            NodeAddress.internalIp("fd00::2"),
            NodeAddress.hostname("n"));

    assertThat(NodeAddresses.changed(dualStack, dualStack)).isFalse();
    assertThat(NodeAddresses.changed(dualStack, sameOtherTypeOrder)).isFalse();
    assertThat(NodeAddresses.changed(dualStack, swapped)).as("the node IP's place").isTrue();
    assertThat(NodeAddresses.changed(dualStack, oneChanged)).isTrue();
  }
}
