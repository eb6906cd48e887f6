package io.ccm4j.cloudprovider;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The call should be retried after a fixed delay rather than with exponential backoff (upstream's
 * {@code api.RetryError}), for example while a cloud operation is still in progress. As upstream's,
 * the service controller records it as a Warning event ({@code SyncLoadBalancerFailed}) on each
 * retry, unless it is made with {@link #inProgress}: a load balancer being provisioned, which a
 * provider would otherwise wait for inside the call, is no failure.
 */
public class RetryAfterException extends CloudException {

  private final Duration retryAfter;
  private final boolean inProgress;

  public RetryAfterException(String message, Duration retryAfter) {
    this(message, retryAfter, false);
  }

  private RetryAfterException(String message, Duration retryAfter, boolean inProgress) {
    super(message);
    this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
    if (retryAfter.isNegative()) {
      throw new IllegalArgumentException("retryAfter must not be negative, got " + retryAfter);
    }
    this.inProgress = inProgress;
  }

  /**
   * The operation goes on in the cloud and is to be looked at again after {@code retryAfter}: the
   * controllers retry as for any {@code RetryAfterException}, logging it, without a Warning event.
   */
  public static RetryAfterException inProgress(String message, Duration retryAfter) {
    return new RetryAfterException(message, retryAfter, true);
  }

  /** The {@code RetryAfterException} a failure is, or wraps: where a controller finds its wait. */
  public static Optional<RetryAfterException> in(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof RetryAfterException retry) {
        return Optional.of(retry);
      }
    }
    return Optional.empty();
  }

  public Duration retryAfter() {
    return retryAfter;
  }

  /** Whether the operation is in progress rather than failed ({@link #inProgress}). */
  public boolean inProgress() {
    return inProgress;
  }
}
