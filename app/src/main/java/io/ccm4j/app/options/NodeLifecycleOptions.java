package io.ccm4j.app.options;

import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/** node-lifecycle-controller's flags: grace periods and zone-aware eviction rates. */
public final class NodeLifecycleOptions {

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
          "node-lifecycle: NoExecute tainting rate per zone (nodes/s) in a healthy zone; at 0, one node of a zone new to"
              + " the controller is still tainted, as upstream's. Default: ${DEFAULT-VALUE}.")
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
      converter = GoInt.class,
      paramLabel = "<n>",
      description =
          "node-lifecycle: a zone with more nodes than this keeps the secondary rate when"
              + " partially disrupted. Default: ${DEFAULT-VALUE}.")
  int largeClusterSizeThreshold;

  /**
   * The record's own checks (one place per setting), on this group's flags; {@code
   * --node-monitor-period} is {@link CloudNodeLifecycleOptions}'s to check.
   */
  public Optional<String> validate() {
    try {
      settings(NodeHealthSettings.defaults().monitorPeriod());
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }

  /**
   * node-lifecycle-controller's settings, as the flags say.
   *
   * @param monitorPeriod {@code --node-monitor-period}, which {@link CloudNodeLifecycleOptions}
   *     holds: one flag for both lifecycle controllers, as upstream's
   */
  public NodeHealthSettings settings(Duration monitorPeriod) {
    return new NodeHealthSettings(
        monitorPeriod,
        nodeMonitorGracePeriod,
        nodeStartupGracePeriod,
        nodeEvictionRate,
        secondaryNodeEvictionRate,
        unhealthyZoneThreshold,
        largeClusterSizeThreshold);
  }
}
