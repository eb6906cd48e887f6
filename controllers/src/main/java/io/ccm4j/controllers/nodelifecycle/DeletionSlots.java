package io.ccm4j.controllers.nodelifecycle;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many of taint eviction's deletions may send requests at once. Each due deletion runs on a
 * thread of its own, as upstream's timed workers each run in a goroutine; but where upstream's
 * taint-eviction controller has a client of its own, ccm4j's deletions share the node-lifecycle
 * controller's client, and its rate limit ({@code --kube-api-qps}), with the health pass: were all
 * of a burst's deletions to queue their requests at once, the health pass's would wait behind all
 * of them. So a few slots are shared, taken for each try; and a try that has held its slot for
 * {@code stuckAfter} is taken to be stuck on a slow API server (a hanging webhook, say): the next
 * deletion waiting takes its slot over, and a few stuck deletions never hold up the others (§4.5).
 */
final class DeletionSlots {

  private static final Logger log = LoggerFactory.getLogger(DeletionSlots.class);

  /** Deletions sending requests at once, as many as ccm4j's deletion threads were before. */
  static final int SLOTS = 4;

  /**
   * A try that has held its slot this long is stuck: three requests, each cut short by the client's
   * request timeout (10 s), while a try waiting only for the rate limit, behind the other slots'
   * requests, takes a few seconds even at 1 request a second.
   */
  static final Duration STUCK_AFTER = Duration.ofSeconds(30);

  /** A slot taken: closed when the try is done. */
  final class Slot implements AutoCloseable {
    private final long since = nanoTime.getAsLong();

    @Override
    public void close() {
      release(this);
    }
  }

  private final Semaphore permits;
  private final long stuckAfterNanos;
  private final LongSupplier nanoTime;

  /** The slots taken and not taken over, oldest first; each holds a permit. Guarded by this. */
  private final Set<Slot> held = new LinkedHashSet<>();

  DeletionSlots() {
    this(SLOTS, STUCK_AFTER);
  }

  DeletionSlots(int slots, Duration stuckAfter) {
    this(slots, stuckAfter, System::nanoTime);
  }

  /** As above, with the clock that tells how long a slot has been held: tests give their own. */
  DeletionSlots(int slots, Duration stuckAfter, LongSupplier nanoTime) {
    this.permits = new Semaphore(slots, true);
    this.stuckAfterNanos = stuckAfter.toNanos();
    this.nanoTime = nanoTime;
  }

  /**
   * Waits for a free slot, or for one held by a try stuck for {@code stuckAfter}, which is taken
   * over: the stuck try goes on, its slot no longer its own.
   *
   * @param pod the deletion's pod, for the log
   */
  Slot take(String pod) throws InterruptedException {
    long wait = 0; // a slot free now first, behind the deletions already waiting for one
    while (true) {
      if (permits.tryAcquire(wait, TimeUnit.NANOSECONDS)) {
        synchronized (this) {
          Slot slot = new Slot();
          held.add(slot);
          return slot;
        }
      }
      synchronized (this) {
        if (held.isEmpty()) {
          // Freed just now, and deletions that waited before this one are taking the slots.
          wait = stuckAfterNanos;
          continue;
        }
        // The oldest slot is the first to count as stuck: waited for until then, not a whole
        // stuckAfter, or a deletion that came while the slots were stuck already waited up to
        // twice that long behind them.
        long now = nanoTime.getAsLong();
        Slot oldest = held.iterator().next();
        long heldFor = now - oldest.since;
        if (heldFor < stuckAfterNanos) {
          wait = stuckAfterNanos - heldFor;
          continue;
        }
        held.remove(oldest);
        Slot taken = new Slot();
        held.add(taken);
        log.info(
            "pod {}: its eviction goes ahead of one stuck on the API server for {} s",
            pod,
            Duration.ofNanos(heldFor).toSeconds());
        return taken;
      }
    }
  }

  /** The slots free now. */
  int free() {
    return permits.availablePermits();
  }

  /** Frees the slot, unless another deletion took it over. */
  private synchronized void release(Slot slot) {
    if (held.remove(slot)) {
      permits.release();
    }
  }
}
