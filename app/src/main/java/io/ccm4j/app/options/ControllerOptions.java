package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/** Which controllers run, and how many workers each gets. */
public final class ControllerOptions {

  @Option(
      names = "--controllers",
      split = ",",
      paramLabel = "<names>",
      defaultValue = "*",
      descriptionKey = "controllers") // RunHelp: the names come from Controllers.ALL
  List<String> controllers;

  @Option(
      names = "--concurrent-node-syncs",
      paramLabel = "<n>",
      description =
          "Workers initialising nodes (cloud-node-controller). Default: ${DEFAULT-VALUE}"
              + " (upstream: 1, which makes a 1,000-node scale-up wait minutes for its taints).")
  int concurrentNodeSyncs;

  @Option(
      names = "--concurrent-node-status-updates",
      paramLabel = "<n>",
      description =
          "Parallelism of the periodic node address refresh; 0 uses --concurrent-node-syncs."
              + " Default: ${DEFAULT-VALUE}.")
  int concurrentNodeStatusUpdates;

  @Option(
      names = "--node-status-update-frequency",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "How often node addresses are refreshed from the cloud. Default: ${DEFAULT-VALUE}.")
  Duration nodeStatusUpdateFrequency;

  @Option(
      names = "--node-monitor-period",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "How often the cloud-node-lifecycle controller checks NotReady nodes against the cloud."
              + " Default: ${DEFAULT-VALUE}.")
  Duration nodeMonitorPeriod;

  @Option(
      names = "--node-monitor-grace-period",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "node-lifecycle: silence after which a node that has reported becomes Unknown. Default: ${DEFAULT-VALUE}.")
  Duration nodeMonitorGracePeriod;

  @Option(
      names = "--node-startup-grace-period",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "node-lifecycle: the same for a node that never reported. Default: ${DEFAULT-VALUE}.")
  Duration nodeStartupGracePeriod;

  @Option(
      names = "--node-eviction-rate",
      paramLabel = "<qps>",
      description =
          "node-lifecycle: NoExecute tainting rate per zone (nodes/s) in a healthy zone. Default: ${DEFAULT-VALUE}.")
  double nodeEvictionRate;

  @Option(
      names = "--secondary-node-eviction-rate",
      paramLabel = "<qps>",
      description =
          "node-lifecycle: the rate in a partially disrupted zone larger than"
              + " --large-cluster-size-threshold (smaller ones stop). Default: ${DEFAULT-VALUE}.")
  double secondaryNodeEvictionRate;

  @Option(
      names = "--unhealthy-zone-threshold",
      paramLabel = "<fraction>",
      description =
          "node-lifecycle: share of NotReady nodes (at least 3) that makes a zone partially"
              + " disrupted. Default: ${DEFAULT-VALUE}.")
  float unhealthyZoneThreshold;

  @Option(
      names = "--large-cluster-size-threshold",
      paramLabel = "<n>",
      description =
          "node-lifecycle: a zone with more nodes than this keeps the secondary rate when"
              + " partially disrupted. Default: ${DEFAULT-VALUE}.")
  int largeClusterSizeThreshold;

  @Option(
      names = "--concurrent-service-syncs",
      paramLabel = "<n>",
      description =
          "Workers syncing load balancers (service-lb-controller). Default: ${DEFAULT-VALUE}.")
  int concurrentServiceSyncs;

  @Option(
      names = "--load-balancer-resync-period",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "service-lb-controller: every load balancer is ensured again once per this period,"
              + " spread evenly over it, so drift in the cloud is corrected at a bounded rate"
              + " (ccm4j's; upstream ensures all of them at each start instead). 0 turns it off;"
              + " otherwise at least 1m. Default: ${DEFAULT-VALUE}.")
  Duration loadBalancerResyncPeriod;

  public Optional<String> validate() {
    try {
      selection();
    } catch (IllegalArgumentException e) {
      return Optional.of("--controllers: " + e.getMessage());
    }
    // Upstream never validates this (§8.6): 0 silently starts no workers.
    if (concurrentNodeSyncs < 1) {
      return Optional.of(
          "--concurrent-node-syncs must be greater than 0, got " + concurrentNodeSyncs);
    }
    if (concurrentNodeStatusUpdates < 0) {
      return Optional.of(
          "--concurrent-node-status-updates must not be negative, got "
              + concurrentNodeStatusUpdates);
    }
    if (!nodeStatusUpdateFrequency.isPositive()) {
      return Optional.of("--node-status-update-frequency must be greater than 0");
    }
    if (!nodeMonitorPeriod.isPositive()) {
      return Optional.of("--node-monitor-period must be greater than 0");
    }
    if (!nodeMonitorGracePeriod.isPositive() || !nodeStartupGracePeriod.isPositive()) {
      return Optional.of(
          "--node-monitor-grace-period and --node-startup-grace-period must be greater than 0");
    }
    if (nodeEvictionRate < 0 || secondaryNodeEvictionRate < 0) {
      return Optional.of(
          "--node-eviction-rate and --secondary-node-eviction-rate must not be negative");
    }
    if (unhealthyZoneThreshold <= 0 || unhealthyZoneThreshold > 1) {
      return Optional.of(
          "--unhealthy-zone-threshold must be in (0, 1], got " + unhealthyZoneThreshold);
    }
    if (largeClusterSizeThreshold < 0) {
      return Optional.of(
          "--large-cluster-size-threshold must not be negative, got " + largeClusterSizeThreshold);
    }
    if (concurrentServiceSyncs < 1) {
      return Optional.of(
          "--concurrent-service-syncs must be greater than 0, got " + concurrentServiceSyncs);
    }
    if (loadBalancerResyncPeriod.isNegative()
        || (!loadBalancerResyncPeriod.isZero()
            && loadBalancerResyncPeriod.compareTo(
                    ControllerSettings.MIN_LOAD_BALANCER_RESYNC_PERIOD)
                < 0)) {
      return Optional.of(
          "--load-balancer-resync-period must be 0 (off) or at least 1m, got "
              + GoDurations.format(loadBalancerResyncPeriod));
    }
    return Optional.empty();
  }

  public ControllerSelection selection() {
    return ControllerSelection.parse(controllers);
  }

  /**
   * @param network the pod network's settings, from their own flag group
   */
  public ControllerSettings settings(NetworkSettings network) {
    return ControllerSettings.defaults()
        .withConcurrentNodeSyncs(concurrentNodeSyncs)
        .withConcurrentNodeStatusUpdates(concurrentNodeStatusUpdates)
        .withNodeStatusUpdateFrequency(nodeStatusUpdateFrequency)
        .withNodeMonitorPeriod(nodeMonitorPeriod)
        .withConcurrentServiceSyncs(concurrentServiceSyncs)
        .withNodeHealth(
            new NodeHealthSettings(
                nodeMonitorPeriod,
                nodeMonitorGracePeriod,
                nodeStartupGracePeriod,
                nodeEvictionRate,
                secondaryNodeEvictionRate,
                unhealthyZoneThreshold,
                largeClusterSizeThreshold))
        .withNetwork(network)
        .withLoadBalancerResyncPeriod(loadBalancerResyncPeriod);
  }
}
