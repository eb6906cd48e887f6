package io.ccm4j.runtime.workqueue;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * A global token bucket shared by all items: {@code qps} tokens a second, at most {@code burst}
 * saved up. Each retry reserves a token, possibly one not yet earned, and waits until it is
 * (golang's {@code rate.Limiter.Reserve}).
 */
public final class TokenBucketRateLimiter<T> implements RateLimiter<T> {

  private final double qps;
  private final double burst;
  private final LongSupplier nanoTime;
  private double tokens;
  private long lastNanos;

  public TokenBucketRateLimiter(double qps, int burst) {
    this(qps, burst, System::nanoTime);
  }

  TokenBucketRateLimiter(double qps, int burst, LongSupplier nanoTime) {
    if (!(qps > 0) || burst < 1) {
      throw new IllegalArgumentException(
          "token bucket needs qps > 0 and burst >= 1, got qps " + qps + ", burst " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.nanoTime = nanoTime;
    this.tokens = burst;
    this.lastNanos = nanoTime.getAsLong();
  }

  @Override
  public synchronized Duration when(T item) {
    long now = nanoTime.getAsLong();
    tokens = Math.min(burst, tokens + (now - lastNanos) / 1e9 * qps);
    lastNanos = now;
    tokens -= 1;
    if (tokens >= 0) {
      return Duration.ZERO;
    }
    return Duration.ofNanos((long) Math.ceil(-tokens / qps * 1e9));
  }

  /**
   * Takes a token only if one is saved up now, without borrowing ahead: for callers that would
   * rather refuse than wait (golang's {@code rate.Limiter.Allow}).
   */
  public synchronized boolean tryAcquire() {
    long now = nanoTime.getAsLong();
    tokens = Math.min(burst, tokens + (now - lastNanos) / 1e9 * qps);
    lastNanos = now;
    if (tokens < 1) {
      return false;
    }
    tokens -= 1;
    return true;
  }

  @Override
  public void forget(T item) {}

  @Override
  public int numRequeues(T item) {
    return 0;
  }
}
