package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.net.Cidr;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which nodes a local load balancer sends to: addresses of this network namespace, and with {@code
 * backendNetworks} those of this machine's other network namespaces (a lab's nodes behind a
 * bridge); never anything else.
 */
class LocalLoadBalancerTargetsTest {

  private static Node node(String name, String ip) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .addNewAddress()
        .withType("InternalIP")
        .withAddress(ip)
        .endAddress()
        .endStatus()
        .build();
  }

  @ParameterizedTest(name = "{0} with backendNetworks [{1}]: a backend {2}")
  @CsvSource({
    "127.0.0.1,       '',           true",
    // a node in a network namespace of its own: not an address of this namespace
    "10.77.0.20,      '',           false",
    "10.77.0.20,      10.77.0.0/24, true",
    "10.77.1.20,      10.77.0.0/24, false",
    // TEST-NET-2, off the host: never, whatever the networks
    "198.51.100.10,   10.77.0.0/24, false",
  })
  void sendsOnlyToThisMachine(String ip, String network, boolean backend) {
    List<Cidr> networks = network.isEmpty() ? List.of() : List.of(Cidr.parse(network));

    List<BackendPool.Target> targets =
        LocalLoadBalancers.targets(List.of(node("worker-0", ip)), networks);

    assertThat(targets).hasSize(backend ? 1 : 0);
  }
}
