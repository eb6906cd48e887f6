package io.ccm4j.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PeriodicPassTest {

  @Test
  void aPassThatFailsDoesNotStopTheSchedule() {
    AtomicInteger passes = new AtomicInteger();
    Runnable failingTwice =
        () -> {
          switch (passes.incrementAndGet()) {
            case 1 -> throw new IllegalStateException("informer cache broken");
            case 2 -> throw new StackOverflowError();
            default -> {
              // a good pass
            }
          }
        };
    ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    try {
      var scheduled =
          loop.scheduleWithFixedDelay(
              PeriodicPass.of("test pass", failingTwice), 0, 10, TimeUnit.MILLISECONDS);
      await().atMost(Duration.ofSeconds(5)).until(() -> passes.get() >= 4);
      assertThat(scheduled.isDone()).as("the schedule goes on").isFalse();
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

  @Test
  void errorsOfTheJvmItselfPropagate() {
    Runnable pass =
        PeriodicPass.of(
            "test pass",
            () -> {
              throw new OutOfMemoryError("Java heap space");
            });
    assertThatThrownBy(pass::run).isInstanceOf(OutOfMemoryError.class);
  }
}
