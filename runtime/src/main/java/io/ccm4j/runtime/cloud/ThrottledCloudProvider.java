package io.ccm4j.runtime.cloud;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.ThrottledException;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * A cloud provider whose calls, across all facets, wait for a token of one {@link CloudRateLimiter}
 * ({@code --cloud-api-qps}, {@code --cloud-api-burst}): ccm4j stays under a cloud's API quota
 * instead of being throttled by it, and when the cloud throttles anyway ({@link
 * ThrottledException}) the limiter slows down for every controller and recovers. A bulk call is one
 * token. Upstream has no such limit (§8.2, cloud-provider#30).
 */
public final class ThrottledCloudProvider extends InterceptedCloudProvider {

  private final CloudRateLimiter limiter;

  public ThrottledCloudProvider(CloudProvider delegate, double qps, int burst) {
    this(delegate, new CloudRateLimiter(qps, burst));
  }

  ThrottledCloudProvider(CloudProvider delegate, CloudRateLimiter limiter) {
    super(delegate);
    this.limiter = limiter;
  }

  /** The limiter, for its gauge. */
  public CloudRateLimiter limiter() {
    return limiter;
  }

  /**
   * The same throttle (the same limiter) in front of what {@code inner} makes of the provider
   * behind it: a {@link CloudFence} goes there, to be checked after a call's wait for its token.
   */
  public ThrottledCloudProvider inFrontOf(UnaryOperator<CloudProvider> inner) {
    return new ThrottledCloudProvider(inner.apply(delegate), limiter);
  }

  @Override
  <T> T around(String request, String subject, boolean write, Call<T> call) throws CloudException {
    Duration wait = limiter.reserve();
    if (!wait.isZero()) {
      try {
        Thread.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CloudException("interrupted while waiting for the cloud API rate limit");
      }
    }
    try {
      return call.call();
    } catch (ThrottledException e) {
      limiter.throttled(e.retryAfter());
      throw e;
    }
  }
}
