package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The per-zone rate-limited queue of nodes to taint. */
class ZoneTainterTest {

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
