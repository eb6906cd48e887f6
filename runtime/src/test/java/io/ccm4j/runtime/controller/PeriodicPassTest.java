package io.ccm4j.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class PeriodicPassTest {

  @Test
  void aPassThatFailsDoesNotStopTheSchedule() {
    AtomicInteger passes = new AtomicInteger();
    Runnable failingTwice =
        () -> {
          switch (passes.incrementAndGet()) {
            case 1 -> throw new IllegalStateException("informer cache broken");
            case 2 -> throw new StackOverflowError();
            case 3 -> throw new NoClassDefFoundError("io/ccm4j/Missing");
            default -> {
              // a good pass
            }
          }
        };
    ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    try {
      PeriodicPass pass =
          PeriodicPass.withFixedDelay(
              loop, "test pass", failingTwice, Duration.ZERO, Duration.ofMillis(10));
      await().atMost(Duration.ofSeconds(5)).until(() -> passes.get() >= 4);
      assertThat(pass.health()).as("the schedule goes on").isEmpty();
    } finally {
      loop.shutdownNow();
    }
  }

  @Test
  void withoutItTheFirstFailureEndsTheSchedule() {
    AtomicInteger passes = new AtomicInteger();
    ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    try {
      var scheduled =
          loop.scheduleWithFixedDelay(
              () -> {
                passes.incrementAndGet();
                throw new IllegalStateException("boom");
              },
              0,
              10,
              TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(5)).until(scheduled::isDone);
      assertThat(passes).hasValue(1);
    } finally {
      loop.shutdownNow();
    }
  }

  /** An error of the JVM itself stops the loop, shows in its health and reaches the handler. */
  @Test
  void anErrorOfTheJvmStopsTheLoopTurnsHealthRedAndReachesTheUncaughtHandler() {
    List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    AtomicInteger passes = new AtomicInteger();
    ScheduledExecutorService loop =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "test-loop");
              thread.setUncaughtExceptionHandler((t, error) -> uncaught.add(error));
              return thread;
            });
    try {
      PeriodicPass pass =
          PeriodicPass.withFixedDelay(
              loop,
              "test pass",
              () -> {
                passes.incrementAndGet();
                throw new InternalError(
                    "the JVM's own"); // as OutOfMemoryError, which surefire dislikes
              },
              Duration.ZERO,
              Duration.ofMillis(10));

      await().atMost(Duration.ofSeconds(5)).until(() -> pass.health().isPresent());
      assertThat(pass.health())
          .hasValue("test pass stopped: java.lang.InternalError: the JVM's own");
      assertThat(uncaught).singleElement().isInstanceOf(InternalError.class);
      assertThat(passes).hasValue(1);
    } finally {
      loop.shutdownNow();
    }
  }

  /**
   * After a pass that took three periods, one pass follows at once and the next a period after it
   * starts: the missed periods are not run back to back (what scheduleAtFixedRate does).
   */
  @Test
  void aSlowPassIsFollowedByOnePassNotByOnePerMissedPeriod() {
    java.util.List<Long> starts = new java.util.concurrent.CopyOnWriteArrayList<>();
    Runnable slowFirst =
        () -> {
          starts.add(System.nanoTime());
          if (starts.size() == 1) {
            try {
              Thread.sleep(300);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    try {
      PeriodicPass.nonSliding(loop, "test pass", slowFirst, Duration.ofMillis(100));
      await().atMost(Duration.ofSeconds(5)).until(() -> starts.size() >= 4);

      // A scheduler never runs early: each start after the slow pass is a full period after the
      // one before it.
      assertThat(Duration.ofNanos(starts.get(2) - starts.get(1)))
          .isGreaterThanOrEqualTo(Duration.ofMillis(100));
      assertThat(Duration.ofNanos(starts.get(3) - starts.get(2)))
          .isGreaterThanOrEqualTo(Duration.ofMillis(100));
    } finally {
      loop.shutdownNow();
    }
  }

  /**
   * A pass cut short by the executor's shutdown (its thread interrupted, a retry's sleep ended) is
   * no failure: an operator stopping the manager sees no ERROR line for it. A pass that fails
   * otherwise still logs one.
   */
  @Test
  void aPassInterruptedByTheShutdownLogsNoError() throws InterruptedException {
    Logger logger = (Logger) LoggerFactory.getLogger(PeriodicPass.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    Level level = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    CountDownLatch started = new CountDownLatch(1);
    ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    try {
      PeriodicPass.withFixedDelay(
          loop,
          "test pass",
          () -> {
            started.countDown();
            try {
              Thread.sleep(60_000);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException("interrupted while retrying a conflicting write", e);
            }
          },
          Duration.ZERO,
          Duration.ofMillis(10));
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
      loop.shutdownNow();
      assertThat(loop.awaitTermination(5, TimeUnit.SECONDS)).isTrue();

      assertThat(logged.list)
          .extracting(event -> event.getLevel() + " " + event.getFormattedMessage())
          .containsExactly(
              "DEBUG test pass stopped by the shutdown: java.lang.IllegalStateException:"
                  + " interrupted while retrying a conflicting write");

      logged.list.clear();
      ScheduledExecutorService failing = Executors.newSingleThreadScheduledExecutor();
      try {
        PeriodicPass.withFixedDelay(
            failing,
            "test pass",
            () -> {
              throw new IllegalStateException("informer cache broken");
            },
            Duration.ZERO,
            Duration.ofHours(1));
        await()
            .atMost(Duration.ofSeconds(5))
            .untilAsserted(
                () ->
                    assertThat(logged.list)
                        .extracting(ILoggingEvent::getFormattedMessage)
                        .contains(
                            "test pass failed, next pass as scheduled:"
                                + " java.lang.IllegalStateException: informer cache broken"));
      } finally {
        failing.shutdownNow();
      }
    } finally {
      loop.shutdownNow();
      logger.setLevel(level);
      logger.detachAppender(logged);
    }
  }
}
