package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Iterator;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** Two labs at once on one machine never share a block of the loopback. */
class LabLoopbackTest {

  private static IntSupplier draws(Integer... octets) {
    Iterator<Integer> it = List.of(octets).iterator();
    return it::next;
  }

  @Test
  void aSecondLabThatDrawsAHeldBlockDrawsAgain() {
    try (LabLoopback first = LabLoopback.claim(draws(77));
        LabLoopback second = LabLoopback.claim(draws(77, 77, 78))) {
      assertThat(first.prefix()).isEqualTo("127.77.");
      assertThat(second.prefix()).isEqualTo("127.78.");
    }
  }

  @Test
  void aBlockIsFreeAgainOnceItsLabIsDone() {
    try (LabLoopback first = LabLoopback.claim(draws(91))) {
      assertThat(first.prefix()).isEqualTo("127.91.");
    }
    try (LabLoopback again = LabLoopback.claim(draws(91))) {
      assertThat(again.prefix()).isEqualTo("127.91.");
    }
  }

  @Test
  void whenEveryDrawIsHeldTheLabSaysSo() {
    try (LabLoopback held = LabLoopback.claim(draws(83))) {
      assertThatThrownBy(() -> LabLoopback.claim(() -> 83))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no free block of the loopback");
    }
  }
}
