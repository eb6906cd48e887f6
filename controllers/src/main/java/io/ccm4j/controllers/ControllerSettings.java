package io.ccm4j.controllers;

import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodehealth.NodeHealthSettings;
import java.time.Duration;

/**
 * The tunables the controllers read, already validated by the command line.
 *
 * @param concurrentNodeSyncs workers initialising nodes ({@code --concurrent-node-syncs})
 * @param concurrentNodeStatusUpdates parallelism of the periodic address refresh ({@code
 *     --concurrent-node-status-updates}; 0 means the same as {@code concurrentNodeSyncs})
 * @param nodeStatusUpdateFrequency period of the address refresh ({@code
 *     --node-status-update-frequency})
 * @param nodeMonitorPeriod period of the cloud-node-lifecycle pass ({@code --node-monitor-period})
 * @param concurrentServiceSyncs workers of the service-lb controller ({@code
 *     --concurrent-service-syncs})
 * @param nodeHealth the node-lifecycle controller's periods, grace periods and eviction rates
 * @param network the pod network: cluster CIDRs, routes and node IPAM
 */
public record ControllerSettings(
    int concurrentNodeSyncs,
    int concurrentNodeStatusUpdates,
    Duration nodeStatusUpdateFrequency,
    Duration nodeMonitorPeriod,
    int concurrentServiceSyncs,
    NodeHealthSettings nodeHealth,
    NetworkSettings network) {

  public ControllerSettings {
    if (concurrentNodeSyncs < 1 || concurrentServiceSyncs < 1 || concurrentNodeStatusUpdates < 0) {
      throw new IllegalArgumentException("controller concurrency must be at least 1");
    }
    if (!nodeStatusUpdateFrequency.isPositive() || !nodeMonitorPeriod.isPositive()) {
      throw new IllegalArgumentException("controller periods must be positive");
    }
  }

  /** Upstream's defaults, except the node-init workers (see {@code ControllerOptions}). */
  public static ControllerSettings defaults() {
    return new ControllerSettings(
        1,
        0,
        Duration.ofMinutes(5),
        Duration.ofSeconds(5),
        1,
        NodeHealthSettings.defaults(),
        NetworkSettings.defaults());
  }

  /** The parallelism of the address refresh, with 0 resolved (N13). */
  public int nodeStatusUpdateWorkers() {
    return concurrentNodeStatusUpdates == 0 ? concurrentNodeSyncs : concurrentNodeStatusUpdates;
  }
}
