package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

  @Test
  void nodesAreQueuedAndRemovedWhileAnotherIsBeingTainted() throws Exception {
    // One token, the next 100 s away: b, queued meanwhile, must still wait when a's write ends
    // (at 10 nodes/s a write held up for 100 ms on a busy machine let b through).
    ZoneTainter tainter = new ZoneTainter(0.01, InstantSource.system());
    tainter.add("a");
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch written = new CountDownLatch(1);
    Thread tainting =
        Thread.ofPlatform()
            .start(
                () ->
                    tainter.tryProcess(
                        name -> {
                          // A taint write waiting for the client's rate limit.
                          writing.countDown();
                          awaitQuietly(written);
                          return ZoneTainter.Outcome.DONE;
                        }));
    try {
      assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();
      // The health pass, meanwhile: it must not wait for the write.
      CompletableFuture<Void> pass =
          CompletableFuture.runAsync(
              () -> {
                tainter.remove("b");
                tainter.add("b");
                tainter.remove("a");
              });
      pass.get(5, TimeUnit.SECONDS);
    } finally {
      written.countDown();
      tainting.join(10_000);
    }
    assertThat(tainter.contains("b")).isTrue();
    assertThat(tainter.add("a"))
        .as("removed while it was tainted: it can be queued again")
        .isTrue();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
