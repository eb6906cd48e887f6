package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalInstancesAndRoutesTest {

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
  void routesAreKeptPerClusterAndVisibleInTheSnapshot() throws Exception {
    LocalRoutes routes = new LocalRoutes();
    routes.createRoute(
        "c1", "uid-1", new Route("", "n1", false, List.of(), "10.244.1.0/24", false));
    routes.createRoute(
        "c1", "uid-2", new Route("", "n2", false, List.of(), "10.244.2.0/24", false));
    routes.createRoute(
        "c2", "uid-3", new Route("", "n3", false, List.of(), "10.245.0.0/24", false));

    assertThat(routes.listRoutes("c1"))
        .extracting(Route::name, Route::targetNode, Route::destinationCidr)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("c1-uid-1", "n1", "10.244.1.0/24"),
            org.assertj.core.groups.Tuple.tuple("c1-uid-2", "n2", "10.244.2.0/24"));
    assertThat(routes.snapshot()).hasSize(3);

    routes.deleteRoute("c1", routes.listRoutes("c1").get(0));
    routes.deleteRoute("c2", new Route("", "n3", false, List.of(), "10.245.0.0/24", false));
    assertThat(routes.snapshot()).extracting(r -> r.route().name()).containsExactly("c1-uid-2");
    assertThatThrownBy(() -> routes.snapshot().add(null))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(
            () ->
                routes.createRoute(
                    "c1", "uid-9", new Route("", "n9", false, List.of(), "10.300.0.0/24", false)))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("n9");
  }
}
