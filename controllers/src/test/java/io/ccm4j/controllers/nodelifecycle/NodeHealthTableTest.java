package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The controller's memory of each node (node-lifecycle spec §2.1) and its named operations. */
class NodeHealthTableTest {

  private static final Instant EARLIER = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant NOW = Instant.parse("2026-01-01T00:10:00Z");

  private final NodeHealthTable table = new NodeHealthTable();

  private static NodeHealth withReady(String status) {
    return new NodeHealth(
        EARLIER,
        EARLIER,
        status == null
            ? null
            : new NodeConditionBuilder().withType("Ready").withStatus(status).build(),
        EARLIER);
  }

  @Test
  void leavingTheEveryZoneOutageRestartsEveryNodesGracePeriodAndKeepsTheRest() {
    table.record("a", withReady("True"));
    table.record("b", withReady("Unknown"));

    table.restartGracePeriods(NOW);

    for (String node : new String[] {"a", "b"}) {
      NodeHealth health = table.get(node);
      assertThat(health.probeTimestamp()).isEqualTo(NOW);
      assertThat(health.readyTransitionTimestamp()).isEqualTo(NOW);
      assertThat(health.leaseRenewTime()).isEqualTo(EARLIER);
    }
    assertThat(table.get("b").savedReady().getStatus()).isEqualTo("Unknown");
  }

  @Test
  void aForgottenNodeIsNewAgain() {
    table.record("a", withReady("False"));

    table.forget("a");

    assertThat(table.get("a")).isNull();
    assertThat(table.isKnownNotReady("a")).isFalse();
  }

  @ParameterizedTest(name = "Ready {0}: known not ready {1}")
  @CsvSource(
      nullValues = "none",
      value = {"True, false", "False, true", "Unknown, true", "none, false"})
  void onlyANodeSeenWithReadyOtherThanTrueIsKnownNotReady(String ready, boolean notReady) {
    table.record("a", withReady(ready));

    assertThat(table.isKnownNotReady("a")).isEqualTo(notReady);
    assertThat(table.isKnownNotReady("never-seen")).isFalse();
  }
}
