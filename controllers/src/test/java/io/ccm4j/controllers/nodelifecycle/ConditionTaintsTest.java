package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The NoSchedule taints that mirror a node's conditions (node-lifecycle spec §2.5 A). */
class ConditionTaintsTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  /** A node with {@code type=status} conditions, e.g. {@code Ready=False}. */
  private static Node node(String conditions, boolean unschedulable) {
    NodeBuilder builder =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n")
            .endMetadata()
            .withNewSpec()
            .withUnschedulable(unschedulable)
            .endSpec()
            .withNewStatus()
            .endStatus();
    for (String condition : conditions.isBlank() ? new String[0] : conditions.split(" ")) {
      String[] typeAndStatus = condition.split("=");
      builder
          .editStatus()
          .addNewCondition()
          .withType(typeAndStatus[0])
          .withStatus(typeAndStatus[1])
          .endCondition()
          .endStatus();
    }
    return builder.build();
  }

  @ParameterizedTest(name = "[{0}] unschedulable={1} -> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "Ready=True                          | false | ''",
        "Ready=False                         | false | node.kubernetes.io/not-ready",
        "Ready=Unknown                       | false | node.kubernetes.io/unreachable",
        "''                                  | false | ''",
        "Ready=True MemoryPressure=True      | false | node.kubernetes.io/memory-pressure",
        "Ready=True DiskPressure=True        | false | node.kubernetes.io/disk-pressure",
        "Ready=True NetworkUnavailable=True  | false | node.kubernetes.io/network-unavailable",
        "Ready=True PIDPressure=True         | false | node.kubernetes.io/pid-pressure",
        "Ready=True MemoryPressure=False      | false | ''",
        "Ready=True MemoryPressure=Unknown    | false | ''",
        "Ready=True                          | true  | node.kubernetes.io/unschedulable",
        "Ready=False PIDPressure=True        | true  | node.kubernetes.io/not-ready,node.kubernetes.io/pid-pressure,node.kubernetes.io/unschedulable",
      })
  void eachConditionCallsForItsTaint(String conditions, boolean unschedulable, String expected) {
    List<String> keys = expected.isEmpty() ? List.of() : Arrays.asList(expected.split(","));

    assertThat(ConditionTaints.desiredKeys(node(conditions, unschedulable)))
        .containsExactlyInAnyOrderElementsOf(keys);
  }

  private static Taint taint(String key, String effect) {
    return new TaintBuilder().withKey(key).withEffect(effect).build();
  }

  @Test
  void missingTaintsAreAddedWithTheirTimeAndStaleOnesRemoved() {
    Taint stale = taint(WellKnownTaints.NODE_MEMORY_PRESSURE, WellKnownTaints.EFFECT_NO_SCHEDULE);
    Taint kept = taint(WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_SCHEDULE);

    List<Taint> result =
        ConditionTaints.reconcile(
            List.of(stale, kept),
            Set.of(WellKnownTaints.NODE_NOT_READY, WellKnownTaints.NODE_DISK_PRESSURE),
            NOW);

    assertThat(result)
        .containsExactly(
            kept,
            new TaintBuilder()
                .withKey(WellKnownTaints.NODE_DISK_PRESSURE)
                .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
                .withTimeAdded(NOW.toString())
                .build());
  }

  @Test
  void taintsItDoesNotOwnStayAsTheyAre() {
    List<Taint> others =
        List.of(
            taint("dedicated", WellKnownTaints.EFFECT_NO_SCHEDULE),
            // the NoExecute twin of a managed key belongs to the eviction pass
            taint(WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE),
            taint(WellKnownTaints.UNINITIALIZED, WellKnownTaints.EFFECT_NO_SCHEDULE));

    assertThat(ConditionTaints.reconcile(others, Set.of(), NOW)).isEqualTo(others);
  }
}
