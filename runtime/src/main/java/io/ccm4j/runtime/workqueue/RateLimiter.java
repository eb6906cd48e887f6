package io.ccm4j.runtime.workqueue;

import java.time.Duration;

/** Decides how long an item waits before it is retried (client-go's {@code TypedRateLimiter}). */
public interface RateLimiter<T> {

  /** The delay before {@code item} may be processed again; counts one more failure for it. */
  Duration when(T item);

  /** Stops tracking the item: its next failure starts from the base delay again. */
  void forget(T item);

  /** How many times the item has been rate limited since it was last forgotten. */
  int numRequeues(T item);
}
