package io.ccm4j.controllers;

import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
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
 * @param loadBalancerResyncPeriod every load balancer is ensured again once per this period, spread
 *     over it; zero turns that off ({@code --load-balancer-resync-period})
 */
public record ControllerSettings(
    int concurrentNodeSyncs,
    int concurrentNodeStatusUpdates,
    Duration nodeStatusUpdateFrequency,
    Duration nodeMonitorPeriod,
    int concurrentServiceSyncs,
    NodeHealthSettings nodeHealth,
    NetworkSettings network,
    Duration loadBalancerResyncPeriod) {

  /**
   * The shortest resync period the flag accepts: below it the re-ensures would come close to a
   * storm (tests use shorter ones).
   */
  public static final Duration MIN_LOAD_BALANCER_RESYNC_PERIOD = Duration.ofMinutes(1);

  /**
   * The one check of each setting; its messages name the flag, since {@code ccm4j run} reports them
   * as they are (the flag groups' {@code validate()} builds the record).
   */
  public ControllerSettings {
    // Upstream never validates this (§8.6): 0 silently starts no workers.
    if (concurrentNodeSyncs < 1) {
      throw new IllegalArgumentException(
          "--concurrent-node-syncs must be greater than 0, got " + concurrentNodeSyncs);
    }
    if (concurrentNodeStatusUpdates < 0) {
      throw new IllegalArgumentException(
          "--concurrent-node-status-updates must not be negative, got "
              + concurrentNodeStatusUpdates);
    }
    if (!nodeStatusUpdateFrequency.isPositive()) {
      throw new IllegalArgumentException("--node-status-update-frequency must be greater than 0");
    }
    if (!nodeMonitorPeriod.isPositive()) {
      throw new IllegalArgumentException("--node-monitor-period must be greater than 0");
    }
    if (concurrentServiceSyncs < 1) {
      throw new IllegalArgumentException(
          "--concurrent-service-syncs must be greater than 0, got " + concurrentServiceSyncs);
    }
    if (loadBalancerResyncPeriod.isNegative()) {
      // The flag also refuses less than MIN_LOAD_BALANCER_RESYNC_PERIOD (tests use less).
      throw new IllegalArgumentException("--load-balancer-resync-period must not be negative");
    }
  }

  /**
   * ccm4j's defaults, each written only here (the flags read them): upstream's, except 10 node-init
   * workers where upstream has 1, which makes a 1,000-node scale-up wait minutes for its taints,
   * and a load balancer resync of 1h (ccm4j's own).
   */
  public static ControllerSettings defaults() {
    NodeHealthSettings nodeHealth = NodeHealthSettings.defaults();
    return new ControllerSettings(
        10,
        0,
        Duration.ofMinutes(5),
        nodeHealth.monitorPeriod(), // one --node-monitor-period for both lifecycle controllers
        1,
        nodeHealth,
        NetworkSettings.defaults(),
        Duration.ofHours(1));
  }

  public ControllerSettings withConcurrentNodeSyncs(int value) {
    return new ControllerSettings(
        value,
        concurrentNodeStatusUpdates,
        nodeStatusUpdateFrequency,
        nodeMonitorPeriod,
        concurrentServiceSyncs,
        nodeHealth,
        network,
        loadBalancerResyncPeriod);
  }

  public ControllerSettings withConcurrentNodeStatusUpdates(int value) {
    return new ControllerSettings(
        concurrentNodeSyncs,
        value,
        nodeStatusUpdateFrequency,
        nodeMonitorPeriod,
        concurrentServiceSyncs,
        nodeHealth,
        network,
        loadBalancerResyncPeriod);
  }

  public ControllerSettings withNodeStatusUpdateFrequency(Duration value) {
    return new ControllerSettings(
        concurrentNodeSyncs,
        concurrentNodeStatusUpdates,
        value,
        nodeMonitorPeriod,
        concurrentServiceSyncs,
        nodeHealth,
        network,
        loadBalancerResyncPeriod);
  }

  /** The cloud-node-lifecycle pass's period; the node-lifecycle controller's is its own. */
  public ControllerSettings withNodeMonitorPeriod(Duration value) {
    return new ControllerSettings(
        concurrentNodeSyncs,
        concurrentNodeStatusUpdates,
        nodeStatusUpdateFrequency,
        value,
        concurrentServiceSyncs,
        nodeHealth,
        network,
        loadBalancerResyncPeriod);
  }

  public ControllerSettings withConcurrentServiceSyncs(int value) {
    return new ControllerSettings(
        concurrentNodeSyncs,
        concurrentNodeStatusUpdates,
        nodeStatusUpdateFrequency,
        nodeMonitorPeriod,
        value,
        nodeHealth,
        network,
        loadBalancerResyncPeriod);
  }

  public ControllerSettings withNodeHealth(NodeHealthSettings value) {
    return new ControllerSettings(
        concurrentNodeSyncs,
        concurrentNodeStatusUpdates,
        nodeStatusUpdateFrequency,
        nodeMonitorPeriod,
        concurrentServiceSyncs,
        value,
        network,
        loadBalancerResyncPeriod);
  }

  public ControllerSettings withNetwork(NetworkSettings value) {
    return new ControllerSettings(
        concurrentNodeSyncs,
        concurrentNodeStatusUpdates,
        nodeStatusUpdateFrequency,
        nodeMonitorPeriod,
        concurrentServiceSyncs,
        nodeHealth,
        value,
        loadBalancerResyncPeriod);
  }

  public ControllerSettings withLoadBalancerResyncPeriod(Duration value) {
    return new ControllerSettings(
        concurrentNodeSyncs,
        concurrentNodeStatusUpdates,
        nodeStatusUpdateFrequency,
        nodeMonitorPeriod,
        concurrentServiceSyncs,
        nodeHealth,
        network,
        value);
  }

  /** The parallelism of the address refresh, with 0 resolved (N13). */
  public int nodeStatusUpdateWorkers() {
    return concurrentNodeStatusUpdates == 0 ? concurrentNodeSyncs : concurrentNodeStatusUpdates;
  }
}
