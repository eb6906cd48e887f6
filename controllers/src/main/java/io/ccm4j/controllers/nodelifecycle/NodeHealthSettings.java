package io.ccm4j.controllers.nodelifecycle;

import java.time.Duration;

/**
 * The node-lifecycle controller's tunables (node-lifecycle spec §1); their defaults are in {@link
 * #defaults()}. How the rates apply to a zone is {@link ZoneEvictionRate}'s rule.
 *
 * @param monitorPeriod how often health is checked ({@code --node-monitor-period})
 * @param monitorGracePeriod silence after which a node that has reported becomes Unknown ({@code
 *     --node-monitor-grace-period})
 * @param startupGracePeriod the same for a node that never reported ({@code
 *     --node-startup-grace-period})
 * @param evictionRate NoExecute tainting rate per zone, nodes/s ({@code --node-eviction-rate})
 * @param secondaryEvictionRate the rate in a partially disrupted large zone ({@code
 *     --secondary-node-eviction-rate})
 * @param unhealthyZoneThreshold share of NotReady nodes that makes a zone partially disrupted
 *     ({@code --unhealthy-zone-threshold})
 * @param largeClusterSizeThreshold zones with more nodes than this keep the secondary rate when
 *     partially disrupted, smaller ones stop ({@code --large-cluster-size-threshold})
 */
public record NodeHealthSettings(
    Duration monitorPeriod,
    Duration monitorGracePeriod,
    Duration startupGracePeriod,
    double evictionRate,
    double secondaryEvictionRate,
    float unhealthyZoneThreshold,
    int largeClusterSizeThreshold) {

  /** The one check of each setting; its messages name the flag ({@code ccm4j run} prints them). */
  public NodeHealthSettings {
    if (!monitorPeriod.isPositive()) {
      throw new IllegalArgumentException("--node-monitor-period must be greater than 0");
    }
    if (!monitorGracePeriod.isPositive() || !startupGracePeriod.isPositive()) {
      throw new IllegalArgumentException(
          "--node-monitor-grace-period and --node-startup-grace-period must be greater than 0");
    }
    if (evictionRate < 0 || secondaryEvictionRate < 0) {
      throw new IllegalArgumentException(
          "--node-eviction-rate and --secondary-node-eviction-rate must not be negative");
    }
    // NaN and Infinity parse as numbers, but a token bucket of either never fills: no node would
    // ever be tainted.
    if (!Double.isFinite(evictionRate) || !Double.isFinite(secondaryEvictionRate)) {
      throw new IllegalArgumentException(
          "--node-eviction-rate and --secondary-node-eviction-rate must be finite numbers");
    }
    if (!(unhealthyZoneThreshold > 0 && unhealthyZoneThreshold <= 1)) {
      throw new IllegalArgumentException(
          "--unhealthy-zone-threshold must be in (0, 1], got " + unhealthyZoneThreshold);
    }
    if (largeClusterSizeThreshold < 0) {
      throw new IllegalArgumentException(
          "--large-cluster-size-threshold must not be negative, got " + largeClusterSizeThreshold);
    }
  }

  /** Upstream's defaults, each written only here (the flags read them). */
  public static NodeHealthSettings defaults() {
    return new NodeHealthSettings(
        Duration.ofSeconds(5),
        Duration.ofSeconds(50),
        Duration.ofSeconds(60),
        0.1,
        0.01,
        0.55f,
        50);
  }

  public NodeHealthSettings withMonitorPeriod(Duration value) {
    return new NodeHealthSettings(
        value,
        monitorGracePeriod,
        startupGracePeriod,
        evictionRate,
        secondaryEvictionRate,
        unhealthyZoneThreshold,
        largeClusterSizeThreshold);
  }

  public NodeHealthSettings withMonitorGracePeriod(Duration value) {
    return new NodeHealthSettings(
        monitorPeriod,
        value,
        startupGracePeriod,
        evictionRate,
        secondaryEvictionRate,
        unhealthyZoneThreshold,
        largeClusterSizeThreshold);
  }

  public NodeHealthSettings withStartupGracePeriod(Duration value) {
    return new NodeHealthSettings(
        monitorPeriod,
        monitorGracePeriod,
        value,
        evictionRate,
        secondaryEvictionRate,
        unhealthyZoneThreshold,
        largeClusterSizeThreshold);
  }

  public NodeHealthSettings withEvictionRate(double value) {
    return new NodeHealthSettings(
        monitorPeriod,
        monitorGracePeriod,
        startupGracePeriod,
        value,
        secondaryEvictionRate,
        unhealthyZoneThreshold,
        largeClusterSizeThreshold);
  }

  public NodeHealthSettings withSecondaryEvictionRate(double value) {
    return new NodeHealthSettings(
        monitorPeriod,
        monitorGracePeriod,
        startupGracePeriod,
        evictionRate,
        value,
        unhealthyZoneThreshold,
        largeClusterSizeThreshold);
  }

  public NodeHealthSettings withUnhealthyZoneThreshold(float value) {
    return new NodeHealthSettings(
        monitorPeriod,
        monitorGracePeriod,
        startupGracePeriod,
        evictionRate,
        secondaryEvictionRate,
        value,
        largeClusterSizeThreshold);
  }

  public NodeHealthSettings withLargeClusterSizeThreshold(int value) {
    return new NodeHealthSettings(
        monitorPeriod,
        monitorGracePeriod,
        startupGracePeriod,
        evictionRate,
        secondaryEvictionRate,
        unhealthyZoneThreshold,
        value);
  }
}
