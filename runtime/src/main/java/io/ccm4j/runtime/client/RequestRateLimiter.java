package io.ccm4j.runtime.client;

import io.ccm4j.runtime.workqueue.TokenBucketRateLimiter;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.vertx.core.Context;
import java.time.Duration;

/**
 * client-go's client-side throttle ({@code --kube-api-qps}, {@code --kube-api-burst}) for fabric8,
 * which has none: every request takes a token of a shared bucket before it is sent, and the thread
 * that sends it waits for the token, as client-go's caller waits in {@code rateLimiter.Wait}.
 *
 * <p>Except on a thread the whole process shares: fabric8 sends its retries (after a 5xx, a 429 or
 * a connection failure) from its one scheduler thread, the thread that also fires every request's
 * timeout and the leader elector's renew ticks, and a Vert.x event loop carries every connection. A
 * wait there would stall the Lease renewals of every client in the process behind one client's
 * throttle. There the request takes its token without waiting (the bucket goes into debt, so the
 * requests after it wait for it instead): the rate holds, and nothing shared sleeps.
 */
public final class RequestRateLimiter implements Interceptor {

  /** The name prefix of fabric8's shared scheduler thread ({@code Utils.schedule}). */
  static final String SHARED_SCHEDULER_THREAD = "CachedSingleThreadScheduler-";

  private final TokenBucketRateLimiter<Object> bucket;

  public RequestRateLimiter(double qps, int burst) {
    this.bucket = new TokenBucketRateLimiter<>(qps, burst);
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    Duration wait = bucket.when(request);
    if (wait.isZero() || onSharedThread()) {
      return;
    }
    try {
      Thread.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether the current thread is one that every client of the process depends on. */
  static boolean onSharedThread() {
    return Context.isOnEventLoopThread()
        || Thread.currentThread().getName().startsWith(SHARED_SCHEDULER_THREAD);
  }
}
