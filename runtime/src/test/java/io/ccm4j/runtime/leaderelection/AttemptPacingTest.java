package io.ccm4j.runtime.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AttemptPacingTest {

  private static final Duration PERIOD = Duration.ofSeconds(2);

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final AtomicBoolean renewing = new AtomicBoolean();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final AttemptPacing pacing =
      new AttemptPacing(Runnable::run, timer, PERIOD, renewing::get, now::get);

  @AfterEach
  void stopTimer() {
    timer.shutdownNow();
  }

  @Test
  void theFirstAttemptIsNotHeldBack() {
    assertThat(pacing.nanosUntilNextAttempt()).isZero();
  }

  /** client-go's acquire loop waits a retry period after each attempt ends (sliding). */
  @Test
  void whileAcquiringTheNextAttemptWaitsARetryPeriodFromTheEndOfAHungOne() {
    pacing.execute(() -> advance(Duration.ofSeconds(9)));

    assertThat(Duration.ofNanos(pacing.nanosUntilNextAttempt())).isEqualTo(PERIOD);
  }

  /** fabric8 hands the next attempt over from within the one that just completed its future. */
  @Test
  void anAttemptHandedOverAsThePreviousCompletesWaitsARetryPeriod() {
    AtomicLong waitFromWithin = new AtomicLong();
    pacing.execute(
        () -> {
          advance(Duration.ofSeconds(9));
          waitFromWithin.set(pacing.nanosUntilNextAttempt());
        });

    assertThat(Duration.ofNanos(waitFromWithin.get())).isEqualTo(PERIOD);
  }

  /**
   * client-go's renew loop polls on a timer started with each attempt: one that took longer than
   * the period is followed at once, and the one after a period later.
   */
  @Test
  void whileRenewingTheNextAttemptIsDueARetryPeriodAfterThePreviousStarted() {
    renewing.set(true);
    pacing.execute(() -> advance(Duration.ofMillis(500)));
    assertThat(Duration.ofNanos(pacing.nanosUntilNextAttempt())).isEqualTo(Duration.ofMillis(1500));

    advance(Duration.ofMillis(1500));
    pacing.execute(() -> advance(Duration.ofSeconds(3)));
    assertThat(pacing.nanosUntilNextAttempt()).isNotPositive();
  }

  private void advance(Duration by) {
    now.addAndGet(by.toNanos());
  }
}
