package io.ccm4j.runtime.cloud;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The cloud-wide token bucket ({@code --cloud-api-qps}, {@code --cloud-api-burst}) that backs off
 * when the cloud throttles: additive increase, multiplicative decrease, as TCP does with a
 * congestion window. A throttled call halves the rate (at most once a second, so the calls already
 * in flight when the quota ran out count as one signal) down to a floor of 1/64 of the configured
 * rate, and holds every token until the cloud's retry-after has passed; then the rate grows back by
 * 1/20 of the configured rate each second, so it is whole again at most 20 s after the last
 * throttle. Tokens are reserved ahead, as golang's {@code rate.Limiter.Reserve}: a caller waits for
 * its turn, never spins.
 */
public final class CloudRateLimiter {

  static final double DECREASE = 0.5;
  static final double FLOOR_FRACTION = 1.0 / 64;
  static final double INCREASE_FRACTION_PER_SECOND = 1.0 / 20;
  static final long DECREASE_AT_MOST_EVERY_NANOS = 1_000_000_000L;

  private final double maxQps;
  private final double burst;
  private final LongSupplier nanoTime;
  private double qps;
  private double tokens;
  private long lastNanos;
  private long lastDecreaseNanos;
  private boolean decreased;
  private long heldUntilNanos;
  private long throttledCalls;

  public CloudRateLimiter(double qps, int burst) {
    this(qps, burst, System::nanoTime);
  }

  CloudRateLimiter(double qps, int burst, LongSupplier nanoTime) {
    if (!(qps > 0) || burst < 1) {
      throw new IllegalArgumentException(
          "cloud rate limit needs qps > 0 and burst >= 1, got qps " + qps + ", burst " + burst);
    }
    this.maxQps = qps;
    this.qps = qps;
    this.burst = burst;
    this.nanoTime = nanoTime;
    this.tokens = burst;
    this.lastNanos = nanoTime.getAsLong();
    this.heldUntilNanos = lastNanos;
  }

  /** Reserves the next token: how long the caller waits before its call goes out. */
  public synchronized Duration reserve() {
    long now = nanoTime.getAsLong();
    advance(now);
    tokens -= 1;
    long wait = tokens >= 0 ? 0 : (long) Math.ceil(-tokens / qps * 1e9);
    // Held after a throttle: the first call goes when the hold ends, the rest at the rate after it.
    long held = heldUntilNanos - now;
    return Duration.ofNanos(Math.max(wait, held > 0 ? held + Math.max(0, wait) : 0));
  }

  /** The cloud throttled a call and asked for {@code retryAfter} before the next one. */
  public synchronized void throttled(Duration retryAfter) {
    long now = nanoTime.getAsLong();
    advance(now);
    throttledCalls++;
    heldUntilNanos = Math.max(heldUntilNanos, now + Math.max(0, retryAfter.toNanos()));
    if (decreased && now - lastDecreaseNanos < DECREASE_AT_MOST_EVERY_NANOS) {
      return;
    }
    qps = Math.max(maxQps * FLOOR_FRACTION, qps * DECREASE);
    tokens = Math.min(tokens, 0); // nothing saved up survives a throttle
    decreased = true;
    lastDecreaseNanos = now;
  }

  /** The rate now, in calls a second: the configured rate unless the cloud throttled lately. */
  public synchronized double currentQps() {
    advance(nanoTime.getAsLong());
    return qps;
  }

  /** The configured rate. */
  public double maxQps() {
    return maxQps;
  }

  /** How many throttled calls the limiter was told of. */
  public synchronized long throttledCalls() {
    return throttledCalls;
  }

  private void advance(long now) {
    long elapsed = now - lastNanos;
    if (elapsed <= 0) {
      return;
    }
    long earning = Math.max(0, now - Math.max(lastNanos, heldUntilNanos));
    tokens = Math.min(burst, tokens + earning / 1e9 * qps);
    if (qps < maxQps) {
      long growing = Math.max(0, now - Math.max(lastNanos, heldUntilNanos));
      qps = Math.min(maxQps, qps + maxQps * INCREASE_FRACTION_PER_SECOND * growing / 1e9);
    }
    lastNanos = now;
  }
}
