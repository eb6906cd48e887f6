package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeletionSlotsTest {

  @Test
  void aDeletionWaitsWhileEverySlotIsHeldByATryThatIsNotStuck() throws Exception {
    DeletionSlots slots = new DeletionSlots(2, Duration.ofDays(1));
    DeletionSlots.Slot first = slots.take("a");
    slots.take("b");

    CompletableFuture<DeletionSlots.Slot> third =
        CompletableFuture.supplyAsync(() -> takeUnchecked(slots, "c"), virtualThread());

    await().during(Duration.ofMillis(300)).atMost(5, TimeUnit.SECONDS).until(() -> !third.isDone());
    first.close();
    await().atMost(5, TimeUnit.SECONDS).until(third::isDone);
  }

  @Test
  void aStuckTrysSlotIsTakenOverAndItsCloseFreesNoSecondOne() throws Exception {
    DeletionSlots slots = new DeletionSlots(1, Duration.ofMillis(100));
    DeletionSlots.Slot stuck = slots.take("stuck");

    DeletionSlots.Slot next = slots.take("next"); // after 100 ms, stuck's slot taken over
    stuck.close(); // the stuck try ends: the slot is next's now, nothing is freed
    assertThat(slots.free()).isZero();

    next.close();
    assertThat(slots.free()).isEqualTo(1);
  }

  /**
   * A deletion that comes once a slot has been held longer than the stuck time takes it over at
   * once: it waited a whole stuck time more before it looked, so up to twice that long behind a
   * stuck try. The slots' clock says 45 s have passed; the stuck time (30 s) is never waited for.
   */
  @Test
  void aDeletionComingWhenASlotIsStuckAlreadyTakesItOverWithoutWaiting() throws Exception {
    AtomicLong now = new AtomicLong();
    DeletionSlots slots = new DeletionSlots(1, DeletionSlots.STUCK_AFTER, now::get);
    slots.take("stuck");
    now.addAndGet(Duration.ofSeconds(45).toNanos());

    CompletableFuture<DeletionSlots.Slot> next =
        CompletableFuture.supplyAsync(() -> takeUnchecked(slots, "next"), virtualThread());

    await().atMost(10, TimeUnit.SECONDS).until(next::isDone);
    assertThat(slots.free()).isZero();
  }

  private static java.util.concurrent.Executor virtualThread() {
    return runnable -> Thread.ofVirtual().start(runnable);
  }

  private static DeletionSlots.Slot takeUnchecked(DeletionSlots slots, String pod) {
    try {
      return slots.take(pod);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
