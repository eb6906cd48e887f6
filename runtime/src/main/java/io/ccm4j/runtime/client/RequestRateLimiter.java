package io.ccm4j.runtime.client;

import io.ccm4j.runtime.workqueue.TokenBucketRateLimiter;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Duration;

/**
 * client-go's client-side throttle ({@code --kube-api-qps}, {@code --kube-api-burst}) for fabric8,
 * which has none: every request waits for a token of a shared bucket before it is sent.
 */
public final class RequestRateLimiter implements Interceptor {

  private final TokenBucketRateLimiter<Object> bucket;

  public RequestRateLimiter(double qps, int burst) {
    this.bucket = new TokenBucketRateLimiter<>(qps, burst);
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    Duration wait = bucket.when(request);
    if (wait.isZero()) {
      return;
    }
    try {
      Thread.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
