package io.ccm4j.runtime.workqueue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Per-item exponential backoff: {@code base · 2^failures}, capped at {@code max}. */
public final class ExponentialFailureRateLimiter<T> implements RateLimiter<T> {

  private final long baseNanos;
  private final long maxNanos;
  private final Map<T, Integer> failures = new HashMap<>();

  public ExponentialFailureRateLimiter(Duration base, Duration max) {
    if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
      throw new IllegalArgumentException(
          "backoff needs 0 < base <= max, got base " + base + ", max " + max);
    }
    this.baseNanos = base.toNanos();
    this.maxNanos = max.toNanos();
  }

  @Override
  public synchronized Duration when(T item) {
    int exponent = failures.merge(item, 1, Integer::sum) - 1;
    // Shifting past 62 bits overflows; long before that the cap applies anyway.
    if (exponent >= 62 || baseNanos > (maxNanos >> exponent)) {
      return Duration.ofNanos(maxNanos);
    }
    return Duration.ofNanos(Math.min(maxNanos, baseNanos << exponent));
  }

  @Override
  public synchronized void forget(T item) {
    failures.remove(item);
  }

  @Override
  public synchronized int numRequeues(T item) {
    return failures.getOrDefault(item, 0);
  }
}
