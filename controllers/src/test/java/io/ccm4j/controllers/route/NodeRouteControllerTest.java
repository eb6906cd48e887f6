package io.ccm4j.controllers.route;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodehealth.NodeHealthSettings;
import io.ccm4j.controllers.nodeipam.NodeIpamController;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** R1 and node IPAM's start conditions: checked before anything is registered. */
class NodeRouteControllerTest {

  private static ControllerContext context(CloudProvider cloud, NetworkSettings network) {
    return new ControllerContext(
        null,
        null,
        cloud,
        "kubernetes",
        new SimpleMeterRegistry(),
        component -> null,
        new ControllerSettings(
            1,
            0,
            Duration.ofMinutes(5),
            Duration.ofSeconds(5),
            1,
            NodeHealthSettings.defaults(),
            network));
  }

  private static NetworkSettings network(
      String clusterCidrs, boolean configureRoutes, boolean allocate, int ipv4Mask) {
    return new NetworkSettings(
        clusterCidrs.isEmpty() ? List.of() : NetworkSettings.parseDualStack(clusterCidrs),
        configureRoutes,
        Duration.ofSeconds(10),
        allocate,
        ipv4Mask,
        64,
        List.of());
  }

  @Test
  void R1_notStartedWhenRoutesAreNotToBeConfigured() {
    assertThatThrownBy(
            () ->
                new NodeRouteController(
                    context(
                        SimCloudProviderFactory.fromYaml(""),
                        network("10.0.0.0/16", false, false, 24))))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage("--configure-cloud-routes is false, so cloud routes are not configured");
  }

  @Test
  void R1_notStartedWhenTheCloudHasNoRoutes() {
    CloudProvider withoutRoutes = () -> "no-routes";

    assertThatThrownBy(
            () ->
                new NodeRouteController(
                    context(withoutRoutes, network("10.0.0.0/16", true, false, 24))))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage(
            "--configure-cloud-routes is set, but the cloud provider does not support routes");
  }

  @Test
  void R1_notStartedWithoutAClusterCidr() {
    assertThatThrownBy(
            () ->
                new NodeRouteController(
                    context(SimCloudProviderFactory.fromYaml(""), network("", true, false, 24))))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessageContaining("--cluster-cidr is not set");
  }

  @Test
  void nodeIpamRunsOnlyWithAllocateNodeCidrsAndAFittingMask() {
    assertThatThrownBy(
            () ->
                new NodeIpamController(
                    context(
                        SimCloudProviderFactory.fromYaml(""),
                        network("10.0.0.0/16", true, false, 24))))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage("--allocate-node-cidrs is false, so pod CIDRs are not allocated");
    assertThatThrownBy(
            () ->
                new NodeIpamController(
                    context(SimCloudProviderFactory.fromYaml(""), network("", true, true, 24))))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessageContaining("needs --cluster-cidr");
    assertThatThrownBy(
            () ->
                new NodeIpamController(
                    context(
                        SimCloudProviderFactory.fromYaml(""),
                        network("10.0.0.0/16", true, true, 8))))
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessageContaining("node CIDR mask size must be between");
  }
}
