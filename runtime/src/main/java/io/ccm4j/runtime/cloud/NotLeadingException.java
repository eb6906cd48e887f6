package io.ccm4j.runtime.cloud;

import io.ccm4j.cloudprovider.CloudException;

/**
 * A cloud call the {@link CloudFence} did not let start: this instance no longer leads (it stops,
 * or lost its Lease). Not a failure of the cloud: a pass that meets it stops quietly.
 */
public final class NotLeadingException extends CloudException {

  public NotLeadingException(String description) {
    super("not called: this instance no longer leads (" + description + ")");
  }
}
