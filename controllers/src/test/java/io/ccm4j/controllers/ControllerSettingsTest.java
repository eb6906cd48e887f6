package io.ccm4j.controllers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.controllers.cloudnodelifecycle.CloudNodeLifecycleSettings;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.node.CloudNodeSettings;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import io.ccm4j.controllers.service.ServiceControllerSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ControllerSettingsTest {

  /**
   * One flag ({@code --node-monitor-period}) sets both lifecycle controllers' periods, so their
   * records, which cannot read each other, must default alike.
   */
  @Test
  void bothLifecycleControllersDefaultToOneMonitorPeriod() {
    assertThat(CloudNodeLifecycleSettings.defaults().monitorPeriod())
        .isEqualTo(NodeHealthSettings.defaults().monitorPeriod());
  }

  @Test
  void eachControllerIsGivenItsOwnRecord() {
    ControllerSettings settings =
        ControllerSettings.defaults()
            .withConcurrentNodeSyncs(3)
            .withConcurrentServiceSyncs(4)
            .withCloudNodeLifecycle(
                CloudNodeLifecycleSettings.defaults().withMonitorPeriod(Duration.ofSeconds(7)))
            .withNetwork(NetworkSettings.defaults().withAllocateNodeCidrs(true));

    assertThat(settings.cloudNode())
        .isEqualTo(CloudNodeSettings.defaults().withConcurrentNodeSyncs(3));
    assertThat(settings.service())
        .isEqualTo(ServiceControllerSettings.defaults().withConcurrentServiceSyncs(4));
    assertThat(settings.cloudNodeLifecycle().monitorPeriod()).isEqualTo(Duration.ofSeconds(7));
    assertThat(settings.nodeHealth()).isEqualTo(NodeHealthSettings.defaults());
    assertThat(settings.network().allocateNodeCidrs()).isTrue();
    assertThat(settings.network().withAllocateNodeCidrs(false))
        .isEqualTo(NetworkSettings.defaults());
  }

  /** Each record checks its own values, naming the flag that sets them. */
  @Test
  void eachRecordRefusesBadValuesNamingTheFlag() {
    assertThatThrownBy(() -> CloudNodeSettings.defaults().withConcurrentNodeSyncs(0))
        .hasMessage("--concurrent-node-syncs must be greater than 0, got 0");
    assertThatThrownBy(() -> CloudNodeSettings.defaults().withConcurrentNodeStatusUpdates(-1))
        .hasMessage("--concurrent-node-status-updates must not be negative, got -1");
    assertThatThrownBy(
            () -> CloudNodeSettings.defaults().withNodeStatusUpdateFrequency(Duration.ZERO))
        .hasMessage("--node-status-update-frequency must be greater than 0");
    assertThatThrownBy(() -> CloudNodeLifecycleSettings.defaults().withMonitorPeriod(Duration.ZERO))
        .hasMessage("--node-monitor-period must be greater than 0");
    assertThatThrownBy(() -> ServiceControllerSettings.defaults().withConcurrentServiceSyncs(0))
        .hasMessage("--concurrent-service-syncs must be greater than 0, got 0");
    assertThatThrownBy(
            () ->
                ServiceControllerSettings.defaults()
                    .withLoadBalancerResyncPeriod(Duration.ofSeconds(-1)))
        .hasMessage("--load-balancer-resync-period must not be negative");
    assertThatThrownBy(
            () -> NetworkSettings.defaults().withRouteReconciliationPeriod(Duration.ZERO))
        .hasMessage("--route-reconciliation-period must be greater than 0");
  }

  @Test
  void theAddressRefreshUsesTheInitWorkersWhenUnset() {
    assertThat(CloudNodeSettings.defaults().withConcurrentNodeSyncs(7).nodeStatusUpdateWorkers())
        .as("N13: 0 means --concurrent-node-syncs")
        .isEqualTo(7);
    assertThat(
            CloudNodeSettings.defaults()
                .withConcurrentNodeSyncs(7)
                .withConcurrentNodeStatusUpdates(2)
                .nodeStatusUpdateWorkers())
        .isEqualTo(2);
  }
}
