package io.ccm4j.runtime.workqueue;

import java.time.Duration;
import java.util.List;

/** Asks every limiter and waits for the longest answer. */
public final class MaxOfRateLimiter<T> implements RateLimiter<T> {

  private final List<RateLimiter<T>> limiters;

  @SafeVarargs
  public MaxOfRateLimiter(RateLimiter<T>... limiters) {
    this.limiters = List.of(limiters);
  }

  @Override
  public Duration when(T item) {
    Duration longest = Duration.ZERO;
    for (RateLimiter<T> limiter : limiters) {
      Duration delay = limiter.when(item);
      if (delay.compareTo(longest) > 0) {
        longest = delay;
      }
    }
    return longest;
  }

  @Override
  public void forget(T item) {
    limiters.forEach(limiter -> limiter.forget(item));
  }

  @Override
  public int numRequeues(T item) {
    return limiters.stream().mapToInt(limiter -> limiter.numRequeues(item)).max().orElse(0);
  }
}
