package io.ccm4j.runtime.controller;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A controller's periodic loop: a pass that fails is logged and the next one runs on time. A bare
 * scheduled task that throws is never run again and the failure sits unread in its future, so one
 * bad node could silently stop a controller's loop while its health stayed green.
 *
 * <p>What a pass throws decides what happens, as in {@link QueueWorkers}:
 *
 * <ul>
 *   <li>an exception or a bug hit by one pass (any {@link Error} but the JVM's own, including a
 *       stack overflow, which unwinds cleanly): logged, the next pass as scheduled;
 *   <li>an error of the JVM itself ({@link VirtualMachineError}: out of memory, an internal error):
 *       the loop stops, {@link #health()} reports it, and the error goes to the thread's uncaught
 *       exception handler, which in {@code ccm4j run} ends the process, as a panic ends upstream's.
 * </ul>
 */
public final class PeriodicPass {

  private static final Logger log = LoggerFactory.getLogger(PeriodicPass.class);

  private final String name;
  private final Runnable pass;
  private final AtomicReference<Throwable> fatal = new AtomicReference<>();

  private PeriodicPass(String name, Runnable pass) {
    this.name = name;
    this.pass = pass;
  }

  /**
   * Runs the pass after {@code initialDelay}, then {@code delay} after the end of each pass.
   *
   * @param name what the pass does, for the log and the health check ("node health pass")
   */
  public static PeriodicPass withFixedDelay(
      ScheduledExecutorService executor,
      String name,
      Runnable pass,
      Duration initialDelay,
      Duration delay) {
    PeriodicPass loop = new PeriodicPass(name, pass);
    executor.scheduleWithFixedDelay(
        loop::runOnce, initialDelay.toNanos(), delay.toNanos(), TimeUnit.NANOSECONDS);
    return loop;
  }

  /**
   * Runs the pass now, then every period counted from the start of the previous pass, as upstream's
   * {@code wait.NonSlidingUntil}: a pass that took longer than the period is followed by one pass
   * at once, not by one for each period it missed ({@code scheduleAtFixedRate} would run those back
   * to back). Ends when the executor shuts down.
   */
  public static PeriodicPass nonSliding(
      ScheduledExecutorService executor, String name, Runnable pass, Duration period) {
    PeriodicPass loop = new PeriodicPass(name, pass);
    long periodNanos = period.toNanos();
    Runnable next =
        new Runnable() {
          @Override
          public void run() {
            long started = System.nanoTime();
            loop.runOnce();
            long delay = Math.max(0, started + periodNanos - System.nanoTime());
            try {
              executor.schedule(this, delay, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
              // Shut down: the loop ends.
            }
          }
        };
    executor.execute(next);
    return loop;
  }

  /** Empty while the loop runs; otherwise why it stopped. Served in its controller's health. */
  public Optional<String> health() {
    return Optional.ofNullable(fatal.get()).map(error -> name + " stopped: " + error);
  }

  private void runOnce() {
    try {
      pass.run();
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        // The executor is shutting down: the pass was cut short, nothing failed.
        log.debug("{} stopped by the shutdown: {}", name, e.toString());
        return;
      }
      log.error("{} failed, next pass as scheduled: {}", name, e.toString());
    } catch (StackOverflowError e) {
      log.error("{}: bug, next pass as scheduled", name, e);
    } catch (VirtualMachineError e) {
      fatal.set(e);
      log.error("{}: {}; this loop stops", name, e.toString());
      Thread current = Thread.currentThread();
      current.getUncaughtExceptionHandler().uncaughtException(current, e);
      throw e;
    } catch (Error e) {
      log.error("{}: bug, next pass as scheduled", name, e);
    }
  }
}
