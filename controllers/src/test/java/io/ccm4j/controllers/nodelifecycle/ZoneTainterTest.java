package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
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

  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
  private final List<String> tainted = new ArrayList<>();

  /** One tainting pass over the queue at the test's clock, the nodes it lets through recorded. */
  private void pass(ZoneTainter tainter) {
    tainter.tryProcess(
        name -> {
          tainted.add(name);
          return ZoneTainter.Outcome.DONE;
        });
  }

  /**
   * §3.5: upstream's new queue is NewTokenBucketRateLimiter(qps, 1), whose bucket x/time fills
   * whatever the rate; at 0 that one token lets one node through and none refills.
   */
  @Test
  void aNewQueueAtRateZeroLetsOneNodeThroughAndNoMore() {
    ZoneTainter tainter = new ZoneTainter(0, now::get);
    tainter.add("a");
    tainter.add("b");

    pass(tainter);
    now.set(now.get().plus(Duration.ofDays(1)));
    pass(tainter);

    assertThat(tainted).containsExactly("a");
    assertThat(tainter.contains("b")).isTrue();
  }

  /**
   * SwapLimiter keeps a limiter whose rate is the one asked for: a new queue at 0 set to 0 (a zone
   * turning Normal with a rate of 0) keeps its token.
   */
  @Test
  void aNewQueueAtRateZeroSetToZeroKeepsItsToken() {
    ZoneTainter tainter = new ZoneTainter(0, now::get);

    tainter.setRate(0);
    tainter.add("a");
    pass(tainter);

    assertThat(tainted).containsExactly("a");
  }

  /**
   * SwapLimiter(0) swaps in a never-limiter: a zone stopped by the disruption rules taints nothing,
   * its full bucket gone with the old limiter.
   */
  @Test
  void aQueueWhoseRateIsSetToZeroLetsNoNodeThrough() {
    ZoneTainter tainter = new ZoneTainter(0.1, now::get);

    tainter.setRate(0);
    tainter.add("a");
    now.set(now.get().plus(Duration.ofDays(1)));
    pass(tainter);

    assertThat(tainted).isEmpty();
  }

  /**
   * A rate set on a new queue at 0: the new bucket starts full only if the old one still had its
   * token (SwapLimiter's TryAccept on the old limiter).
   */
  @Test
  void aNewQueueAtRateZeroGivenARatePassesOnItsTokenOnlyIfUnspent() {
    ZoneTainter unspent = new ZoneTainter(0, now::get);
    unspent.setRate(0.1);
    unspent.add("a");
    pass(unspent);
    assertThat(tainted).containsExactly("a");

    ZoneTainter spent = new ZoneTainter(0, now::get);
    spent.add("b");
    pass(spent);
    spent.setRate(0.1);
    spent.add("c");
    pass(spent);
    assertThat(tainted).as("c waits for a token").containsExactly("a", "b");
    now.set(now.get().plusSeconds(10));
    pass(spent);
    assertThat(tainted).containsExactly("a", "b", "c");
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
