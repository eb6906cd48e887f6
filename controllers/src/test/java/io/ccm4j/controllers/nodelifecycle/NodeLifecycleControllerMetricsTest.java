package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
  void aForgottenZoneLeavesTheGauges() {
    metrics.recordZones(Map.of("a", List.of(ready("True")), "b", List.of(ready("True"))));

    metrics.remove("b");

    assertThat(registry.find("node_collector_zone_size").tag("zone", "b").gauge()).isNull();
    assertThat(gauge("node_collector_zone_size", "a")).isEqualTo(1);
  }
}
