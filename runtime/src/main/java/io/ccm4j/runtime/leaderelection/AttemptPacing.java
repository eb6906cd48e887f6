package io.ccm4j.runtime.leaderelection;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * The executor of one elector's attempts on the Lease, spacing them as client-go's elector does.
 *
 * <p>fabric8's elector schedules its attempts at a fixed rate: each is due a retry period (jittered
 * while acquiring) after the previous one was due, however long that one took. An attempt that
 * hangs past several periods (an API server that stopped answering) is followed, once it returns,
 * by one attempt for each period it missed, back to back. client-go waits after each attempt: while
 * acquiring, a jittered retry period from its end ({@code wait.JitterUntil}, sliding); while
 * renewing, a retry period from its start ({@code PollUntilContextTimeout}'s timer). An attempt
 * fabric8 hands over sooner waits here until a retry period after the previous one ended
 * (acquiring) or started (renewing); fabric8's own schedule, and its jitter, still apply when they
 * are later. Two small differences remain: the attempt after one that hung waits the retry period
 * without jitter, and the first renewal comes a retry period after the attempt that acquired the
 * Lease, where client-go renews at once (writing the record it has just written).
 */
final class AttemptPacing implements Executor {

  private final Executor runner;
  private final ScheduledExecutorService timer;
  private final long periodNanos;
  private final BooleanSupplier renewing;
  private final LongSupplier nanoTime;
  private boolean attempted; // guarded by this
  private long lastStarted; // guarded by this
  private long lastEnded; // guarded by this
  private boolean running; // guarded by this

  /**
   * @param runner runs the attempts
   * @param timer holds back an attempt handed over early
   * @param renewing whether the elector holds the Lease (renews) or campaigns for it (acquires)
   */
  AttemptPacing(
      Executor runner,
      ScheduledExecutorService timer,
      Duration retryPeriod,
      BooleanSupplier renewing,
      LongSupplier nanoTime) {
    this.runner = runner;
    this.timer = timer;
    this.periodNanos = retryPeriod.toNanos();
    this.renewing = renewing;
    this.nanoTime = nanoTime;
  }

  @Override
  public void execute(Runnable attempt) {
    Runnable timed = () -> run(attempt);
    long wait = nanosUntilNextAttempt();
    try {
      if (wait <= 0) {
        runner.execute(timed);
      } else {
        timer.schedule(() -> runner.execute(timed), wait, TimeUnit.NANOSECONDS);
      }
    } catch (RejectedExecutionException closed) {
      // The election was closed: its elector is cancelled and makes no further attempt.
    }
  }

  /** How long an attempt handed over now waits; at most zero for the first. */
  synchronized long nanosUntilNextAttempt() {
    if (!attempted) {
      return 0;
    }
    long now = nanoTime.getAsLong();
    // The attempt completes fabric8's future from within run(), and fabric8 may hand the next one
    // over before run() returns: an attempt still running has just ended.
    long from = renewing.getAsBoolean() ? lastStarted : running ? now : lastEnded;
    return from + periodNanos - now;
  }

  private void run(Runnable attempt) {
    synchronized (this) {
      attempted = true;
      running = true;
      lastStarted = nanoTime.getAsLong();
    }
    try {
      attempt.run();
    } finally {
      synchronized (this) {
        running = false;
        lastEnded = nanoTime.getAsLong();
      }
    }
  }
}
