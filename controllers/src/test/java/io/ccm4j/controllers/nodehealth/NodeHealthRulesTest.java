package io.ccm4j.controllers.nodehealth;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pure rules of the node-lifecycle controller, case by case from the spec. */
class NodeHealthRulesTest {

  private static List<NodeCondition> readies(int ready, int notReady) {
    return Stream.concat(
            IntStream.range(0, ready).mapToObj(i -> condition("True")),
            IntStream.range(0, notReady).mapToObj(i -> condition("False")))
        .toList();
  }

  private static NodeCondition condition(String status) {
    return new NodeConditionBuilder().withType("Ready").withStatus(status).build();
  }

  @ParameterizedTest(name = "{0} not ready of {1} -> {2}")
  @CsvSource({
    "11, 20, PARTIAL_DISRUPTION",
    "10, 20, NORMAL",
    "2, 2, FULL_DISRUPTION",
    "2, 3, NORMAL",
    "3, 4, PARTIAL_DISRUPTION",
    "3, 5, PARTIAL_DISRUPTION",
    "3, 6, NORMAL",
    "0, 5, NORMAL",
  })
  void zoneStateUsesAtLeastThreeNotReadyAndAShareOfAtLeastTheThreshold(
      int notReady, int size, ZoneState expected) {
    assertThat(ZoneState.compute(readies(size - notReady, notReady), 0.55f)).isEqualTo(expected);
  }

  @Test
  void aMissingReadyConditionCountsAsNotReady() {
    List<NodeCondition> conditions = new ArrayList<>();
    conditions.add(null);
    assertThat(ZoneState.compute(conditions, 0.55f)).isEqualTo(ZoneState.FULL_DISRUPTION);
  }

  @ParameterizedTest(name = "state {0}, size {1} -> {2}/s")
  @CsvSource({
    "NORMAL, 10, 0.1",
    "FULL_DISRUPTION, 10, 0.1",
    "PARTIAL_DISRUPTION, 50, 0.0",
    "PARTIAL_DISRUPTION, 51, 0.01",
    "PARTIAL_DISRUPTION, 15, 0.0",
  })
  void theZoneRateFollowsItsStateAndSize(ZoneState state, int size, double rate) {
    assertThat(NodeHealthSettings.defaults().rateFor(state, size)).isEqualTo(rate);
  }

  @Test
  void zoneKeysPreferTheBetaLabelsEvenWhenEmpty() {
    assertThat(ZoneState.zoneKey(Map.of(WellKnownLabels.REGION, "r", WellKnownLabels.ZONE, "z")))
        .isEqualTo("r:\u0000:z");
    assertThat(
            ZoneState.zoneKey(
                Map.of(
                    WellKnownLabels.ZONE_BETA,
                    "",
                    WellKnownLabels.ZONE,
                    "z",
                    WellKnownLabels.REGION,
                    "r")))
        .isEqualTo("r:\u0000:");
    assertThat(ZoneState.zoneKey(Map.of("other", "x"))).isEmpty();
  }

  private static Taint taint(String key, String value) {
    return new TaintBuilder().withKey(key).withValue(value).withEffect("NoExecute").build();
  }

  private static Toleration toleration(
      String key, String operator, String value, String effect, Long seconds) {
    return new TolerationBuilder()
        .withKey(key)
        .withOperator(operator)
        .withValue(value)
        .withEffect(effect)
        .withTolerationSeconds(seconds)
        .build();
  }

  @Test
  void tolerationsMatchByKeyEffectOperatorAndValue() {
    Taint unreachable = taint("node.kubernetes.io/unreachable", null);
    assertThat(
            Tolerations.tolerates(
                toleration("node.kubernetes.io/unreachable", "Exists", null, "NoExecute", null),
                unreachable))
        .isTrue();
    assertThat(Tolerations.tolerates(toleration("", "Exists", null, "", null), unreachable))
        .isTrue();
    assertThat(Tolerations.tolerates(toleration("", "Equal", null, "", null), unreachable))
        .isFalse();
    assertThat(
            Tolerations.tolerates(
                toleration("node.kubernetes.io/unreachable", "Exists", null, "NoSchedule", null),
                unreachable))
        .isFalse();
    assertThat(
            Tolerations.tolerates(
                toleration("dedicated", "Equal", "a", null, null), taint("dedicated", "a")))
        .isTrue();
    assertThat(
            Tolerations.tolerates(
                toleration("dedicated", "Equal", "b", null, null), taint("dedicated", "a")))
        .isFalse();
    assertThat(
            Tolerations.tolerates(
                toleration("dedicated", "Gt", "a", null, null), taint("dedicated", "a")))
        .isFalse();
  }

  @Test
  void theFirstMatchingTolerationPerTaintDecidesHowLong() {
    Taint unreachable = taint("node.kubernetes.io/unreachable", null);
    Toleration forever =
        toleration("node.kubernetes.io/unreachable", "Exists", null, "NoExecute", null);
    Toleration sixty =
        toleration("node.kubernetes.io/unreachable", "Exists", null, "NoExecute", 60L);

    assertThat(
            Tolerations.minTolerationSeconds(
                Tolerations.matching(List.of(unreachable), List.of(forever, sixty)).orElseThrow()))
        .isEqualTo(-1);
    assertThat(
            Tolerations.minTolerationSeconds(
                Tolerations.matching(List.of(unreachable), List.of(sixty, forever)).orElseThrow()))
        .isEqualTo(60);
    assertThat(Tolerations.matching(List.of(unreachable), List.of())).isEmpty();
    assertThat(
            Tolerations.minTolerationSeconds(
                List.of(toleration("a", "Exists", null, null, 0L), sixty)))
        .isZero();
    assertThat(Tolerations.minTolerationSeconds(List.of())).isZero();
  }

  private static Node nodeWithReady(String heartbeat) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n")
        .withCreationTimestamp("2026-01-01T00:00:00Z")
        .endMetadata()
        .withNewStatus()
        .addNewCondition()
        .withType("Ready")
        .withStatus("True")
        .withLastHeartbeatTime(heartbeat)
        .withLastTransitionTime("2026-01-01T00:00:00Z")
        .endCondition()
        .endStatus()
        .build();
  }

  @Test
  void aNodeBecomesUnknownOnlyStrictlyAfterTheGracePeriod() {
    Duration grace = Duration.ofSeconds(40);
    Instant t0 = Instant.parse("2026-01-01T01:00:00Z");
    Node node = nodeWithReady("2026-01-01T00:00:30Z");
    // First sight: the probe is the controller's own clock, whatever the heartbeat's age.
    HealthEvaluation.Result first =
        HealthEvaluation.evaluate(node, null, null, t0, grace, Duration.ofSeconds(60));
    assertThat(first.conditionsToWrite()).isEmpty();

    HealthEvaluation.Result atGrace =
        HealthEvaluation.evaluate(
            node, first.health(), null, t0.plus(grace), grace, Duration.ofSeconds(60));
    assertThat(atGrace.conditionsToWrite()).as("exactly at the grace period: not yet").isEmpty();

    HealthEvaluation.Result after =
        HealthEvaluation.evaluate(
            node, first.health(), null, t0.plus(grace).plusNanos(1), grace, Duration.ofSeconds(60));
    assertThat(after.conditionsToWrite()).isPresent();
    assertThat(after.conditionsToWrite().get())
        .extracting(NodeCondition::getType, NodeCondition::getStatus, NodeCondition::getReason)
        .contains(
            org.assertj.core.groups.Tuple.tuple("Ready", "Unknown", "NodeStatusUnknown"),
            org.assertj.core.groups.Tuple.tuple(
                "MemoryPressure", "Unknown", "NodeStatusNeverUpdated"));
    assertThat(after.observed().getStatus()).isEqualTo("True");
    assertThat(after.current().getStatus()).isEqualTo("Unknown");
  }

  @Test
  void aRenewedLeaseAloneKeepsTheNodeHealthy() {
    Duration grace = Duration.ofSeconds(40);
    Instant t0 = Instant.parse("2026-01-01T01:00:00Z");
    Node node = nodeWithReady("2026-01-01T00:59:59Z");
    HealthEvaluation.Result first =
        HealthEvaluation.evaluate(node, null, t0, t0, grace, Duration.ofSeconds(60));

    Instant later = t0.plusSeconds(35);
    HealthEvaluation.Result renewed =
        HealthEvaluation.evaluate(
            node, first.health(), later, later, grace, Duration.ofSeconds(60));
    HealthEvaluation.Result stillFine =
        HealthEvaluation.evaluate(
            node, renewed.health(), later, later.plusSeconds(39), grace, Duration.ofSeconds(60));

    assertThat(stillFine.conditionsToWrite()).isEmpty();
  }

  @Test
  void theZoneQueueStartsWithOneTokenAndThenKeepsTheRate() {
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    InstantSource clock = now::get;
    ZoneTainter tainter = new ZoneTainter(0.1, clock);
    List<String> tainted = new ArrayList<>();
    tainter.add("a");
    tainter.add("b");
    tainter.add("a");

    tainter.tryProcess(
        name -> {
          tainted.add(name);
          return ZoneTainter.Outcome.DONE;
        });
    assertThat(tainted).containsExactly("a");
    now.set(now.get().plusSeconds(5));
    tainter.tryProcess(
        name -> {
          tainted.add(name);
          return ZoneTainter.Outcome.DONE;
        });
    assertThat(tainted).containsExactly("a");
    now.set(now.get().plusSeconds(5));
    tainter.tryProcess(
        name -> {
          tainted.add(name);
          return ZoneTainter.Outcome.DONE;
        });
    assertThat(tainted).containsExactly("a", "b");
    assertThat(tainter.add("a")).as("processed nodes stay in the set until removed").isFalse();

    tainter.setRate(0);
    tainter.remove("a");
    tainter.add("a");
    now.set(now.get().plusSeconds(60));
    tainter.tryProcess(
        name -> {
          tainted.add(name);
          return ZoneTainter.Outcome.DONE;
        });
    assertThat(tainted).as("a stopped zone taints nothing").containsExactly("a", "b");
  }
}
