package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/** client-go's {@code RetryOnConflict}: repeat a read-modify-write while the API answers 409. */
public final class Conflicts {

  /** Upstream's {@code UpdateNodeSpecBackoff}: 20 steps from 50 ms, jitter 1.0 (N9). */
  public static final Backoff NODE_SPEC_BACKOFF = new Backoff(20, Duration.ofMillis(50), 1.0);

  /** Upstream's default conflict backoff for patches: 5 steps from 100 ms, jitter 1.0 (H1, N14). */
  public static final Backoff PATCH_BACKOFF = new Backoff(5, Duration.ofMillis(100), 1.0);

  /** How often and how long to wait between attempts. */
  public record Backoff(int steps, Duration duration, double jitter) {}

  private Conflicts() {}

  public static boolean isConflict(Throwable error) {
    return error instanceof KubernetesClientException e && e.getCode() == 409;
  }

  /**
   * Runs {@code attempt} until it does not fail with a conflict, at most {@code backoff.steps()}
   * times; the last conflict, or any other error, is thrown.
   */
  public static <T> T retryOnConflict(Backoff backoff, Supplier<T> attempt) {
    for (int step = 1; ; step++) {
      try {
        return attempt.get();
      } catch (KubernetesClientException e) {
        if (!isConflict(e) || step >= backoff.steps()) {
          throw e;
        }
      }
      long base = backoff.duration().toMillis();
      long wait =
          base + (long) (base * backoff.jitter() * ThreadLocalRandom.current().nextDouble());
      try {
        Thread.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while retrying a conflicting write", e);
      }
    }
  }
}
