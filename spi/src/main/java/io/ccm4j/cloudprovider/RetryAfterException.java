package io.ccm4j.cloudprovider;

import java.time.Duration;
import java.util.Objects;

/**
 * The call should be retried after a fixed delay rather than with exponential backoff (upstream's
 * {@code api.RetryError}), for example while a cloud operation is still in progress.
 */
public class RetryAfterException extends CloudException {

  private final Duration retryAfter;

  public RetryAfterException(String message, Duration retryAfter) {
    super(message);
    this.retryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
    if (retryAfter.isNegative()) {
      throw new IllegalArgumentException("retryAfter must not be negative, got " + retryAfter);
    }
  }

  public Duration retryAfter() {
    return retryAfter;
  }
}
