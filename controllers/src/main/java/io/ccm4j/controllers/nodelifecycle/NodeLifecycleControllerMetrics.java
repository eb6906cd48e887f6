package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The node-lifecycle controller's metrics: upstream's node collector per zone (node-lifecycle spec
 * §3.2), registered when a zone is first recorded and kept for good (a forgotten zone's show no
 * node), and taint eviction's deletions.
 */
final class NodeLifecycleControllerMetrics {

  private final MeterRegistry registry;
  private final Map<String, Zone> zones = new ConcurrentHashMap<>();

  /** Taint eviction's deletions (upstream's taint-eviction controller). */
  final Counter podDeletions;

  /**
   * Taint eviction's time from a deletion's due time to the pod's deletion. Upstream's observes
   * {@code float64(time.Since(fireAt) * time.Second)}, a duration multiplied by a duration, so its
   * values are nanoseconds times 10^9 (wrapping around past 9.2 s) and land in no bucket they
   * belong to; this one is in seconds.
   */
  final Timer podDeletionDuration;

  /** The time of one node's part of the health pass (§2.2). */
  final Timer updateNodeHealthDuration;

  /** The time of a whole health pass (§2.2). */
  final Timer updateAllNodesHealthDuration;

  NodeLifecycleControllerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.podDeletions =
        Counter.builder("taint_eviction_controller_pod_deletions")
            .description(
                "[ALPHA] Total number of Pods deleted by TaintEvictionController since its start.")
            .register(registry);
    // Upstream's names and buckets; a Timer is served with the "_seconds" suffix.
    this.podDeletionDuration =
        Timer.builder("taint_eviction_controller_pod_deletion_duration")
            .description(
                "[ALPHA] Latency, in seconds, between the time when a taint effect has been activated for"
                    + " the Pod and its deletion via TaintEvictionController.")
            .serviceLevelObjectives(
                seconds(0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 180, 240))
            .register(registry);
    this.updateNodeHealthDuration =
        Timer.builder("node_collector_update_node_health_duration")
            .description(
                "[ALPHA] Duration in seconds for NodeController to update the health of a single"
                    + " node.")
            .serviceLevelObjectives(exponential(0.001, 4, 8))
            .register(registry);
    this.updateAllNodesHealthDuration =
        Timer.builder("node_collector_update_all_nodes_health_duration")
            .description(
                "[ALPHA] Duration in seconds for NodeController to update the health of all nodes.")
            .serviceLevelObjectives(exponential(0.01, 4, 8))
            .register(registry);
  }

  /** Upstream's ExponentialBuckets(start, factor, count), as durations. */
  private static Duration[] exponential(double start, double factor, int count) {
    double[] bounds = new double[count];
    for (int i = 0; i < count; i++) {
      bounds[i] = start * Math.pow(factor, i);
    }
    return seconds(bounds);
  }

  private static Duration[] seconds(double... bounds) {
    return Arrays.stream(bounds)
        .mapToObj(s -> Duration.ofNanos(Math.round(s * 1e9)))
        .toArray(Duration[]::new);
  }

  /** The zone's metrics, registered on first use. */
  Zone zone(String zone) {
    return zones.computeIfAbsent(zone, z -> new Zone(registry, ZoneState.describe(z)));
  }

  /** §3.2: each zone's size, nodes not Ready (a missing condition counts) and health share. */
  void recordZones(Map<String, List<NodeCondition>> zoneConditions) {
    zoneConditions.forEach(
        (zone, conditions) -> {
          int size = conditions.size();
          long unhealthy =
              conditions.stream()
                  .filter(c -> c == null || !ConditionStatus.TRUE.equals(c.getStatus()))
                  .count();
          Zone gauges = zone(zone);
          gauges.size.set((double) size);
          gauges.unhealthy.set((double) unhealthy);
          gauges.health.set(size == 0 ? 100.0 : 100.0 * (size - unhealthy) / size);
        });
  }

  /** Sets the zone's state gauge; a zone never counted has no gauges and gets none. */
  void recordState(String zone, ZoneState state) {
    Zone gauges = zones.get(zone);
    if (gauges != null) {
      gauges.state.set(state);
    }
  }

  /**
   * A zone a pass forgot (§3.3): its series stay, showing no node (size 0, none unhealthy, health
   * 100), as upstream's handleDisruption sets them, which also makes them for a zone never counted;
   * its state reads Initial, the state it starts in when seen again. Its evictions stay counted.
   */
  void forget(String zone) {
    Zone gauges = zone(zone);
    gauges.size.set(0.0);
    gauges.unhealthy.set(0.0);
    gauges.health.set(100.0);
    gauges.state.set(ZoneState.INITIAL);
  }

  /** The per-zone metrics of upstream's node collector (§3.2), plus the zone's state. */
  static final class Zone {
    final AtomicReference<Double> size = new AtomicReference<>(0.0);
    final AtomicReference<Double> unhealthy = new AtomicReference<>(0.0);
    final AtomicReference<Double> health = new AtomicReference<>(100.0);
    final AtomicReference<ZoneState> state = new AtomicReference<>(ZoneState.INITIAL);
    final Counter evictions;

    Zone(MeterRegistry registry, String zone) {
      Gauge.builder("node_collector_zone_size", size, AtomicReference::get)
          .description("[ALPHA] Gauge measuring number of registered Nodes per zones.")
          .tag("zone", zone)
          .register(registry);
      Gauge.builder("node_collector_unhealthy_nodes_in_zone", unhealthy, AtomicReference::get)
          .description("[ALPHA] Gauge measuring number of not Ready Nodes per zones.")
          .tag("zone", zone)
          .register(registry);
      Gauge.builder("node_collector_zone_health", health, AtomicReference::get)
          .description("[ALPHA] Gauge measuring percentage of healthy nodes per zone.")
          .tag("zone", zone)
          .register(registry);
      Gauge.builder("node_collector_zone_state", state, s -> s.get().ordinal())
          .description("0 Initial, 1 Normal, 2 PartialDisruption, 3 FullDisruption")
          .tag("zone", zone)
          .register(registry);
      // Counted for good, as upstream's evictions total (not deleted with the zone). Exported as
      // node_collector_evictions_total, upstream's modern name (a counter gains "_total").
      evictions =
          Counter.builder("node_collector_evictions")
              .description(
                  "[STABLE] Number of Node evictions that happened since current instance of"
                      + " NodeController started.")
              .tag("zone", zone)
              .register(registry);
    }
  }
}
