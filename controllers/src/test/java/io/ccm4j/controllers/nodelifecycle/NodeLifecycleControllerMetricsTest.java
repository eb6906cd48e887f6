package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The node collector's per-zone gauges (node-lifecycle spec §3.2). */
class NodeLifecycleControllerMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final NodeLifecycleControllerMetrics metrics =
      new NodeLifecycleControllerMetrics(registry);

  private static NodeCondition ready(String status) {
    return new NodeConditionBuilder().withType("Ready").withStatus(status).build();
  }

  private double gauge(String name, String zone) {
    return registry.get(name).tag("zone", zone).gauge().value();
  }

  @Test
  void aZoneCountsItsNodesNotReadyAMissingConditionAmongThem() {
    List<NodeCondition> conditions =
        Arrays.asList(ready("True"), ready("False"), ready("Unknown"), null);

    metrics.recordZones(Map.of("r:\u0000:a", conditions));

    assertThat(gauge("node_collector_zone_size", "r/a")).isEqualTo(4);
    assertThat(gauge("node_collector_unhealthy_nodes_in_zone", "r/a")).isEqualTo(3);
    assertThat(gauge("node_collector_zone_health", "r/a")).isEqualTo(25);
  }

  @Test
  void theCountersAreServedUnderUpstreamsNames() {
    PrometheusMeterRegistry served = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    NodeLifecycleControllerMetrics exported = new NodeLifecycleControllerMetrics(served);

    exported.zone("r:\u0000:a").evictions.increment();
    exported.podDeletions.increment();

    assertThat(served.scrape())
        .contains("node_collector_evictions_total{zone=\"r/a\"} 1.0")
        .contains("taint_eviction_controller_pod_deletions_total 1.0");
  }

  /**
   * A zone's series carry upstream's help, after its stability level (kube-controller-manager's
   * nodelifecycle/metrics.go); the zone state is ccm4j's own and has none.
   */
  @Test
  void theZoneSeriesHaveUpstreamsHelp() {
    PrometheusMeterRegistry served = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new NodeLifecycleControllerMetrics(served).recordZones(Map.of("r:\u0000:a", List.of()));

    assertThat(served.scrape())
        .contains(
            "# HELP node_collector_zone_size [ALPHA] Gauge measuring number of registered Nodes"
                + " per zones.\n",
            "# HELP node_collector_unhealthy_nodes_in_zone [ALPHA] Gauge measuring number of not"
                + " Ready Nodes per zones.\n",
            "# HELP node_collector_zone_health [ALPHA] Gauge measuring percentage of healthy nodes"
                + " per zone.\n",
            "# HELP node_collector_evictions_total [STABLE] Number of Node evictions that happened"
                + " since current instance of NodeController started.\n",
            "# HELP node_collector_zone_state 0 Initial");
  }

  @Test
  void theHistogramsAreServedUnderUpstreamsNamesWithItsBuckets() {
    PrometheusMeterRegistry served = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    NodeLifecycleControllerMetrics exported = new NodeLifecycleControllerMetrics(served);

    exported.podDeletionDuration.record(Duration.ofMillis(20));
    exported.updateNodeHealthDuration.record(Duration.ofMillis(3));
    exported.updateAllNodesHealthDuration.record(Duration.ofMillis(50));

    assertThat(served.scrape())
        .contains("taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"0.005\"} 0")
        .contains("taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"0.025\"} 1")
        .contains("taint_eviction_controller_pod_deletion_duration_seconds_bucket{le=\"240.0\"} 1")
        .contains("node_collector_update_node_health_duration_seconds_bucket{le=\"0.001\"} 0")
        .contains("node_collector_update_node_health_duration_seconds_bucket{le=\"0.004\"} 1")
        .contains("node_collector_update_node_health_duration_seconds_bucket{le=\"16.384\"} 1")
        .contains("node_collector_update_all_nodes_health_duration_seconds_bucket{le=\"0.04\"} 0")
        .contains("node_collector_update_all_nodes_health_duration_seconds_bucket{le=\"0.16\"} 1")
        .contains(
            "node_collector_update_all_nodes_health_duration_seconds_bucket{le=\"163.84\"} 1");
  }

  /**
   * §3.3: upstream's handleDisruption sets a forgotten zone's series to no node (size 0, health
   * 100, none unhealthy) and keeps them; so does ccm4j, its state series back to Initial.
   */
  @Test
  void aForgottenZoneKeepsItsSeriesShowingNoNode() {
    metrics.recordZones(
        Map.of("a", List.of(ready("True")), "b", List.of(ready("True"), ready("False"))));
    metrics.recordState("b", ZoneState.PARTIAL_DISRUPTION);

    metrics.forget("b");

    assertThat(gauge("node_collector_zone_size", "b")).isZero();
    assertThat(gauge("node_collector_unhealthy_nodes_in_zone", "b")).isZero();
    assertThat(gauge("node_collector_zone_health", "b")).isEqualTo(100);
    assertThat(gauge("node_collector_zone_state", "b")).isEqualTo(ZoneState.INITIAL.ordinal());
    assertThat(gauge("node_collector_zone_size", "a")).isEqualTo(1);
  }

  /** Upstream's WithLabelValues(k).Set makes the series of a zone forgotten before any count. */
  @Test
  void aZoneForgottenBeforeItWasEverCountedGetsTheSeriesOfNoNode() {
    metrics.forget("never-counted");

    assertThat(gauge("node_collector_zone_size", "never-counted")).isZero();
    assertThat(gauge("node_collector_unhealthy_nodes_in_zone", "never-counted")).isZero();
    assertThat(gauge("node_collector_zone_health", "never-counted")).isEqualTo(100);
  }
}
