package io.ccm4j.controllers.route;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.OfflineContext;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodeipam.NodeIpamController;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** R1 and node IPAM's start conditions: checked before anything is registered. */
class NodeRouteControllerTest {

  private static NetworkSettings network(
      String clusterCidrs, boolean configureRoutes, boolean allocate, int ipv4Mask) {
    return new NetworkSettings(
        clusterCidrs.isEmpty() ? List.of() : NetworkSettings.parseDualStack(clusterCidrs),
        configureRoutes,
        Duration.ofSeconds(10),
        allocate,
        ipv4Mask,
        64,
        List.of(),
        false);
  }

  @Test
  void R1_notStartedWhenRoutesAreNotToBeConfigured() {
    assertThatThrownBy(
            () ->
                new NodeRouteController(
                    OfflineContext.of(SimCloudProviderFactory.fromYaml("")),
                    network("10.0.0.0/16", false, false, 24)))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage("--configure-cloud-routes is false, so cloud routes are not configured");
  }

  @Test
  void R1_notStartedWhenTheCloudHasNoRoutes() {
    CloudProvider withoutRoutes = () -> "no-routes";

    assertThatThrownBy(
            () ->
                new NodeRouteController(
                    OfflineContext.of(withoutRoutes), network("10.0.0.0/16", true, false, 24)))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage(
            "--configure-cloud-routes is set, but the cloud provider does not support routes");
  }

  @Test
  void R1_notStartedWithoutAClusterCidr() {
    assertThatThrownBy(
            () ->
                new NodeRouteController(
                    OfflineContext.of(SimCloudProviderFactory.fromYaml("")),
                    network("", true, false, 24)))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessageContaining("--cluster-cidr is not set");
  }

  @Test
  void nodeIpamRunsOnlyWithAllocateNodeCidrsAndAFittingMask() {
    assertThatThrownBy(
            () ->
                new NodeIpamController(
                    OfflineContext.of(SimCloudProviderFactory.fromYaml("")),
                    network("10.0.0.0/16", true, false, 24)))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage("--allocate-node-cidrs is false, so pod CIDRs are not allocated");
    assertThatThrownBy(
            () ->
                new NodeIpamController(
                    OfflineContext.of(SimCloudProviderFactory.fromYaml("")),
                    network("", true, true, 24)))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessageContaining("needs --cluster-cidr");
    assertThatThrownBy(
            () ->
                new NodeIpamController(
                    OfflineContext.of(SimCloudProviderFactory.fromYaml("")),
                    network("10.0.0.0/16", true, true, 8)))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessageContaining("node CIDR mask size must be between");
  }

  @Test
  void R3_atMostOnePassPer10sAndNoWaitLongerThan10s() {
    var limiter = NodeRouteController.watchRateLimiter();

    org.assertj.core.api.Assertions.assertThat(limiter.when("routes")).isZero();
    org.assertj.core.api.Assertions.assertThat(limiter.when("routes"))
        .isGreaterThan(Duration.ofSeconds(9))
        .isLessThanOrEqualTo(Duration.ofSeconds(10));
    org.assertj.core.api.Assertions.assertThat(limiter.when("routes"))
        .as("the bucket owes 20 s, the cap says 10")
        .isEqualTo(Duration.ofSeconds(10));
  }

  /** Upstream's handleNodeUpdate: a change queues node_change, a resync (same version) periodic. */
  @org.junit.jupiter.params.ParameterizedTest(name = "{0}: {1}")
  @org.junit.jupiter.params.provider.CsvSource({
    "heartbeat only, ",
    "resync, periodic",
    "pod CIDRs, node_change",
    "addresses, node_change",
  })
  void R3_onlyChangesThatMatterTriggerAPass(String change, String key) {
    io.fabric8.kubernetes.api.model.Node before =
        new io.fabric8.kubernetes.api.model.NodeBuilder()
            .withNewMetadata()
            .withName("n")
            .withResourceVersion("1")
            .endMetadata()
            .withNewSpec()
            .withPodCIDRs("10.0.0.0/24")
            .endSpec()
            .withNewStatus()
            .addNewAddress("10.1.0.1", "InternalIP")
            .endStatus()
            .build();
    var after = new io.fabric8.kubernetes.api.model.NodeBuilder(before);
    switch (change) {
      case "heartbeat only" ->
          after
              .editMetadata()
              .withResourceVersion("2")
              .endMetadata()
              .editStatus()
              .addNewCondition()
              .withType("Ready")
              .withStatus("True")
              .endCondition()
              .endStatus();
      case "pod CIDRs" ->
          after
              .editMetadata()
              .withResourceVersion("2")
              .endMetadata()
              .editSpec()
              .withPodCIDRs("10.0.0.0/24", "fd00::/64")
              .endSpec();
      case "addresses" ->
          after
              .editMetadata()
              .withResourceVersion("2")
              .endMetadata()
              .editStatus()
              .withAddresses(
                  new io.fabric8.kubernetes.api.model.NodeAddress("10.1.0.2", "InternalIP"))
              .endStatus();
      default -> {}
    }

    org.assertj.core.api.Assertions.assertThat(NodeRouteController.trigger(before, after.build()))
        .isEqualTo(java.util.Optional.ofNullable(key));
  }
}
