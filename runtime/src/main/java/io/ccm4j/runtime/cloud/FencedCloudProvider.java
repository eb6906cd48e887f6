package io.ccm4j.runtime.cloud;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;

/**
 * A cloud provider whose every facet call passes a {@link CloudFence}: refused once the fence is
 * closed, and, for the calls that change the cloud (ensure, update and delete a load balancer,
 * create and delete a route), counted while in flight. Made by {@link CloudFence#guard}.
 */
final class FencedCloudProvider extends InterceptedCloudProvider {

  private final CloudFence fence;

  FencedCloudProvider(CloudProvider delegate, CloudFence fence) {
    super(delegate);
    this.fence = fence;
  }

  @Override
  <T> T around(String request, String subject, boolean write, Call<T> call) throws CloudException {
    String description = subject.isEmpty() ? request : request + " " + subject;
    try (CloudFence.Call ignored = fence.enter(description, write)) {
      return call.call();
    }
  }
}
