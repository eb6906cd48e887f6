package io.ccm4j.runtime.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CloudRateLimiterTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  private void advance(Duration d) {
    now.addAndGet(d.toNanos());
  }

  /** Takes a token and lets the clock run to the moment the call goes out. */
  private Duration call(CloudRateLimiter limiter) {
    Duration wait = limiter.reserve();
    advance(wait);
    return wait;
  }

  @Test
  void aThrottlingCloudSlowsTheLimiterAndItRecovers() {
    CloudRateLimiter limiter = new CloudRateLimiter(20, 5, now::get);
    for (int i = 0; i < 5; i++) {
      assertThat(call(limiter)).isZero(); // the burst
    }
    assertThat(call(limiter)).isEqualTo(Duration.ofMillis(50)); // then 20 a second

    limiter.throttled(Duration.ofSeconds(2));
    // The calls in flight when the quota ran out are one signal, not three halvings.
    limiter.throttled(Duration.ZERO);
    limiter.throttled(Duration.ZERO);
    assertThat(limiter.currentQps()).isEqualTo(10);
    assertThat(limiter.throttledCalls()).isEqualTo(3);

    // Nothing goes out before the cloud's retry-after; then about one every 100 ms (the rate
    // starts growing back as soon as the hold ends).
    assertThat(call(limiter)).isEqualTo(Duration.ofMillis(2100));
    assertThat(call(limiter).toNanos() / 1e6).isCloseTo(100, within(2.0));

    // Still throttled more than a second later: halved again.
    double before = limiter.currentQps();
    limiter.throttled(Duration.ZERO);
    double slowed = limiter.currentQps();
    assertThat(slowed).isCloseTo(before / 2, within(0.01));

    // Additive increase: +1/s (1/20 of 20) while nothing is throttled, back to the configured rate.
    advance(Duration.ofSeconds(5));
    assertThat(limiter.currentQps()).isCloseTo(slowed + 5, within(0.01));
    advance(Duration.ofSeconds(30));
    assertThat(limiter.currentQps()).isEqualTo(20);
    assertThat(call(limiter)).isZero();
  }

  @Test
  void theRateNeverFallsBelowItsFloor() {
    CloudRateLimiter limiter = new CloudRateLimiter(64, 1, now::get);
    // Each throttle holds the calls for longer than the next one comes: no growth in between.
    for (int i = 0; i < 20; i++) {
      limiter.throttled(Duration.ofSeconds(5));
      advance(Duration.ofMillis(1001));
    }
    assertThat(limiter.currentQps()).isCloseTo(1.0, within(0.1));
  }
}
