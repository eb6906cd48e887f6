package io.ccm4j.cloudprovider;

/**
 * A cloud call failed. Controllers retry it with backoff unless it is one of the sentinel outcomes
 * below, which they treat as the spec prescribes: {@link InstanceNotFoundException}, {@link
 * NotImplementedException}, {@link ImplementedElsewhereException} and {@link RetryAfterException}.
 */
public class CloudException extends Exception {

  public CloudException(String message) {
    super(message);
  }

  public CloudException(String message, Throwable cause) {
    super(message, cause);
  }
}
