package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeadlockProofTest {

  private static final long S = Duration.ofSeconds(1).toNanos();
  private static final List<String> CYCLE =
      List.of("deadlock: nodes wait for the cloud-controller-manager, which waits for a node");

  private final DeadlockProof proof = new DeadlockProof(Duration.ofSeconds(10));

  @Test
  void aCycleWithNothingChangingForTheWindowIsProven() {
    assertThat(proof.look(0, "6 tainted", CYCLE)).isFalse();
    assertThat(proof.look(5 * S, "6 tainted", CYCLE)).isFalse();
    assertThat(proof.look(10 * S - 1, "6 tainted", CYCLE)).isFalse();
    assertThat(proof.look(10 * S, "6 tainted", CYCLE)).isTrue();
    assertThat(proof.cycles()).isEqualTo(CYCLE);
  }

  @Test
  void noCycleIsNeverADeadlockHoweverStillTheClusterIs() {
    for (int second = 0; second <= 60; second++) {
      assertThat(proof.look(second * S, "6 tainted", List.of())).isFalse();
    }
    assertThat(proof.cycles()).isEmpty();
  }

  @Test
  void aChangeOfStateRestartsTheWindow() {
    proof.look(0, "6 tainted", CYCLE);
    proof.look(8 * S, "5 tainted", CYCLE); // a node was initialised: the cluster still moves

    assertThat(proof.look(12 * S, "5 tainted", CYCLE)).isFalse();
    assertThat(proof.look(18 * S, "5 tainted", CYCLE)).isTrue();
  }

  @Test
  void aCycleThatGoesAwayAndComesBackStartsAgain() {
    proof.look(0, "6 tainted", CYCLE);
    proof.look(4 * S, "6 tainted", List.of());
    proof.look(5 * S, "6 tainted", CYCLE);

    assertThat(proof.look(10 * S, "6 tainted", CYCLE)).isFalse();
    assertThat(proof.look(15 * S, "6 tainted", CYCLE)).isTrue();
  }

  @Test
  void anotherCycleRestartsTheWindow() {
    proof.look(0, "6 tainted", CYCLE);
    List<String> other =
        List.of(
            "deadlock: the network waits for the cloud-controller-manager, which waits for the"
                + " network");

    assertThat(proof.look(6 * S, "6 tainted", other)).isFalse();
    assertThat(proof.look(12 * S, "6 tainted", other)).isFalse();
    assertThat(proof.look(16 * S, "6 tainted", other)).isTrue();
  }
}
