package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** When a node becomes Unknown: the grace periods, heartbeats and Leases. */
class HealthEvaluationTest {

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
}
