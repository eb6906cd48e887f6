package io.ccm4j.cloudprovider;

import java.time.Duration;

/**
 * The cloud refused the call because the account's API quota is spent (EC2's {@code
 * RequestLimitExceeded}, HTTP 429): retry after {@link #retryAfter()}. Unlike a plain {@link
 * RetryAfterException} (an operation still in progress) it also tells ccm4j's cloud-wide limiter
 * ({@code --cloud-api-qps}) to slow down for every controller; it recovers step by step once calls
 * succeed again. Providers throw it for the cloud's throttling answer instead of a plain {@link
 * CloudException}; the wait may be zero when the cloud names none.
 */
public class ThrottledException extends RetryAfterException {

  public ThrottledException(String message, Duration retryAfter) {
    super(message, retryAfter);
  }
}
