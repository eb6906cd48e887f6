package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The node-lifecycle controller's metrics: upstream's node collector per zone (node-lifecycle spec
 * §3.2), registered when a zone appears and removed with it, and taint eviction's deletions.
 */
final class NodeLifecycleControllerMetrics {

  private final MeterRegistry registry;
  private final Map<String, Zone> zones = new ConcurrentHashMap<>();

  /** Taint eviction's deletions (upstream's taint-eviction controller). */
  final Counter podDeletions;

  NodeLifecycleControllerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.podDeletions =
        Counter.builder("taint_eviction_controller_pod_deletions")
            .description("Pods deleted because of NoExecute taints they do not tolerate")
            .register(registry);
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

  /** Removes the zone's gauges (its evictions stay counted). */
  void remove(String zone) {
    Zone gone = zones.remove(zone);
    if (gone != null) {
      gone.unregister(registry);
    }
  }

  /** The per-zone metrics of upstream's node collector (§3.2), plus the zone's state. */
  static final class Zone {
    final AtomicReference<Double> size = new AtomicReference<>(0.0);
    final AtomicReference<Double> unhealthy = new AtomicReference<>(0.0);
    final AtomicReference<Double> health = new AtomicReference<>(100.0);
    final AtomicReference<ZoneState> state = new AtomicReference<>(ZoneState.INITIAL);
    final Counter evictions;
    private final List<Gauge> registered = new ArrayList<>();

    Zone(MeterRegistry registry, String zone) {
      registered.add(
          Gauge.builder("node_collector_zone_size", size, AtomicReference::get)
              .tag("zone", zone)
              .register(registry));
      registered.add(
          Gauge.builder("node_collector_unhealthy_nodes_in_zone", unhealthy, AtomicReference::get)
              .tag("zone", zone)
              .register(registry));
      registered.add(
          Gauge.builder("node_collector_zone_health", health, AtomicReference::get)
              .tag("zone", zone)
              .register(registry));
      registered.add(
          Gauge.builder("node_collector_zone_state", state, s -> s.get().ordinal())
              .description("0 Initial, 1 Normal, 2 PartialDisruption, 3 FullDisruption")
              .tag("zone", zone)
              .register(registry));
      // Counted for good, as upstream's evictions total (not deleted with the zone). Exported as
      // node_collector_evictions_total, upstream's modern name (a counter gains "_total").
      evictions = Counter.builder("node_collector_evictions").tag("zone", zone).register(registry);
    }

    void unregister(MeterRegistry registry) {
      registered.forEach(registry::remove);
    }
  }
}
