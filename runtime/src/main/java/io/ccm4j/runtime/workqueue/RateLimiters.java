package io.ccm4j.runtime.workqueue;

import java.time.Duration;

/** The rate limiters the upstream controllers use. */
public final class RateLimiters {

  private RateLimiters() {}

  /**
   * client-go's {@code DefaultTypedControllerRateLimiter} (N2): per-item backoff from 5 ms to 1000
   * s, and a global bucket of 10 retries a second with a burst of 100.
   */
  public static <T> RateLimiter<T> controllerDefault() {
    return new MaxOfRateLimiter<>(
        new ExponentialFailureRateLimiter<>(Duration.ofMillis(5), Duration.ofSeconds(1000)),
        new TokenBucketRateLimiter<>(10, 100));
  }

  /** Per-item backoff only, as the service controller's queues use (S2: 5 s to 300 s). */
  public static <T> RateLimiter<T> exponential(Duration base, Duration max) {
    return new ExponentialFailureRateLimiter<>(base, max);
  }
}
