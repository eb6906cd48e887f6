package io.ccm4j.runtime.client;

import io.ccm4j.runtime.workqueue.TokenBucketRateLimiter;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Duration;

/**
 * client-go's client-side throttle ({@code --kube-api-qps}, {@code --kube-api-burst}) for fabric8,
 * which has none: every request takes a token of a shared bucket before it is sent, and the thread
 * that sends it waits for the token, as client-go's caller waits in {@code rateLimiter.Wait}.
 *
 * <p>Except on the thread the whole process shares: fabric8 sends its retries (after a 5xx, a 429
 * or a connection failure) from its one scheduler thread, the thread that also fires every
 * request's timeout and the leader elector's renew ticks. A wait there would stall the Lease
 * renewals of every client in the process behind one client's throttle. There the request takes its
 * token without waiting (the bucket goes into debt, so the requests after it wait for it instead):
 * the rate holds, and nothing shared sleeps.
 */
public final class RequestRateLimiter implements Interceptor {

  /** The name prefix of fabric8's shared scheduler thread ({@code Utils.schedule}). */
  static final String SHARED_SCHEDULER_THREAD = "CachedSingleThreadScheduler-";

  private final TokenBucketRateLimiter<Object> bucket;

  /** Where the waits are recorded ({@code rest_client_rate_limiter_duration_seconds}), or null. */
  private final RestClientMetrics metrics;

  private final String host;

  public RequestRateLimiter(double qps, int burst) {
    this(qps, burst, null, null);
  }

  /**
   * @param metrics where each request's wait is recorded, or null
   * @param host the requests' {@code host} label ({@link RestClientMetrics#host})
   */
  public RequestRateLimiter(double qps, int burst, RestClientMetrics metrics, String host) {
    this.bucket = new TokenBucketRateLimiter<>(qps, burst);
    this.metrics = metrics;
    this.host = host;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    Duration wait = bucket.when(request);
    if (wait.isZero() || onSharedThread()) {
      throttled(request, 0);
      return;
    }
    long start = System.nanoTime();
    try {
      Thread.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throttled(request, System.nanoTime() - start);
  }

  private void throttled(HttpRequest request, long nanos) {
    if (metrics != null) {
      metrics.throttled(host, request.method(), nanos);
    }
  }

  /** Whether the current thread is one that every client of the process depends on. */
  static boolean onSharedThread() {
    return Thread.currentThread().getName().startsWith(SHARED_SCHEDULER_THREAD);
  }
}
