package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The zone state machine (node-lifecycle spec §3.3) on its own: states from the share of nodes not
 * Ready, the tainting rate each state sets, the events, and the stop when every zone is down. The
 * nodes carry no NoExecute taints, so lifting them asks nothing of the API.
 */
class ZoneDisruptionTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private final List<String> events = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final NodeLifecycleControllerMetrics metrics =
      new NodeLifecycleControllerMetrics(registry);
  private final Map<String, NodeHealth> health = new ConcurrentHashMap<>();
  private final EventRecorder recorder =
      new EventRecorder() {
        @Override
        public void normal(HasMetadata object, String reason, String message) {
          events.add("Normal " + reason + ": " + message);
        }

        @Override
        public void warning(HasMetadata object, String reason, String message) {
          events.add("Warning " + reason + ": " + message);
        }
      };
  private final NoExecuteTainting tainting =
      new NoExecuteTainting(
          null,
          null,
          recorder,
          () -> NOW,
          metrics,
          zone -> ZoneState.INITIAL,
          NodeHealthSettings.defaults().evictionRate());
  private final ZoneDisruption disruption =
      new ZoneDisruption(
          NodeHealthSettings.defaults(), tainting, recorder, () -> NOW, metrics, health);

  private static List<NodeCondition> readies(int ready, int notReady) {
    return Stream.concat(
            IntStream.range(0, ready).mapToObj(i -> condition("True")),
            IntStream.range(0, notReady).mapToObj(i -> condition("False")))
        .toList();
  }

  private static NodeCondition condition(String status) {
    return new NodeConditionBuilder().withType("Ready").withStatus(status).build();
  }

  /** One pass over zones given as {@code zone -> {ready, notReady}}. */
  private void pass(Map<String, int[]> zones) {
    Map<String, List<NodeCondition>> conditions = new LinkedHashMap<>();
    zones.forEach((zone, counts) -> conditions.put(zone, readies(counts[0], counts[1])));
    for (String zone : zones.keySet()) {
      if (!disruption.knows(zone)) {
        disruption.addZone(zone);
      }
    }
    disruption.handle(conditions, List.of());
  }

  @Test
  void aZoneBecomingNormalFromInitialIsSilent() {
    pass(Map.of("a", new int[] {3, 0}));

    assertThat(disruption.state("a")).isEqualTo(ZoneState.NORMAL);
    assertThat(tainting.tainter("a").rate()).isEqualTo(0.1);
    assertThat(events).isEmpty();
  }

  @Test
  void aSmallPartiallyDisruptedZoneStopsTaintingAndSaysSo() {
    pass(Map.of("a", new int[] {10, 0}, "b", new int[] {10, 0}));
    pass(Map.of("a", new int[] {4, 6}, "b", new int[] {10, 0}));

    assertThat(disruption.state("a")).isEqualTo(ZoneState.PARTIAL_DISRUPTION);
    assertThat(tainting.tainter("a").rate()).as("10 nodes: not a large zone").isZero();
    assertThat(tainting.tainter("b").rate()).isEqualTo(0.1);
    assertThat(events)
        .containsExactly(
            "Warning ZoneStateChanged: Zone a changed from Normal to PartialDisruption:"
                + " NoExecute tainting at 0.0 nodes/s");
    assertThat(registry.get("node_collector_zone_state").tag("zone", "a").gauge().value())
        .isEqualTo(ZoneState.PARTIAL_DISRUPTION.ordinal());
  }

  @Test
  void whenEveryZoneIsDownTaintingStopsEverywhereAndResumesAfter() {
    pass(Map.of("a", new int[] {5, 0}, "b", new int[] {5, 0}));
    health.put("n", new NodeHealth(Instant.EPOCH, Instant.EPOCH, null, null));

    pass(Map.of("a", new int[] {0, 5}, "b", new int[] {0, 5}));

    assertThat(List.of(disruption.state("a"), disruption.state("b")))
        .containsOnly(ZoneState.FULL_DISRUPTION);
    assertThat(List.of(tainting.tainter("a").rate(), tainting.tainter("b").rate()))
        .containsOnly(0.0);
    assertThat(events)
        .allMatch(
            event ->
                event.endsWith("(every zone is fully disrupted: tainting and evictions stopped)"))
        .hasSize(2);

    pass(Map.of("a", new int[] {5, 0}, "b", new int[] {0, 5}));

    assertThat(disruption.state("a")).isEqualTo(ZoneState.NORMAL);
    assertThat(tainting.tainter("a").rate()).isEqualTo(0.1);
    assertThat(disruption.state("b")).isEqualTo(ZoneState.FULL_DISRUPTION);
    assertThat(tainting.tainter("b").rate())
        .as("a fully disrupted zone alone keeps the rate")
        .isEqualTo(0.1);
    assertThat(health.get("n").probeTimestamp())
        .as("the nodes' silence during the outage does not count")
        .isEqualTo(NOW);
  }

  @Test
  void aZoneWithoutNodesThatCountIsForgottenWithItsGauges() {
    pass(Map.of("a", new int[] {3, 0}, "b", new int[] {3, 0}));

    pass(Map.of("a", new int[] {3, 0}));

    assertThat(disruption.knows("b")).isFalse();
    assertThat(registry.find("node_collector_zone_size").tag("zone", "b").gauge()).isNull();
    assertThat(registry.find("node_collector_zone_size").tag("zone", "a").gauge().value())
        .isEqualTo(3);
  }
}
