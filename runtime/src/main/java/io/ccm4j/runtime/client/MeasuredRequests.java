package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Counts a client's requests into {@link RestClientMetrics}: every request of the client passes
 * here, fabric8's own calls and the protobuf writes and lists sent through its HTTP client alike.
 * fabric8 calls {@link #consumer} once per attempt, right after this interceptor's {@code before}
 * and before the throttle's (so the attempt's time includes the throttle's wait, as client-go's),
 * and hands the same consumer to {@link #after} with the answer: the consumer carries the start. A
 * transport failure reaches {@link #afterConnectionFailure} when fabric8 retries it, which it does
 * up to {@code requestRetryBackoffLimit} (10) times; the attempt that ends the retries is not seen
 * by any interceptor, so it is not counted.
 */
final class MeasuredRequests implements Interceptor {

  static final String NAME = "rest-client-metrics";

  private final RestClientMetrics metrics;
  private final String host;

  /**
   * @param host the requests' {@code host} label ({@link RestClientMetrics#host})
   */
  MeasuredRequests(RestClientMetrics metrics, String host) {
    this.metrics = metrics;
    this.host = host;
  }

  @Override
  public AsyncBody.Consumer<List<ByteBuffer>> consumer(
      AsyncBody.Consumer<List<ByteBuffer>> consumer, HttpRequest request) {
    return new Attempt(consumer, System.nanoTime());
  }

  @Override
  public void after(
      HttpRequest request,
      HttpResponse<?> response,
      AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    Attempt attempt = consumer == null ? null : consumer.unwrap(Attempt.class);
    long nanos = attempt == null ? -1 : System.nanoTime() - attempt.start;
    metrics.answered(host, request.method(), response.code(), nanos);
  }

  @Override
  public void afterConnectionFailure(HttpRequest request, Throwable failure) {
    metrics.unanswered(host, request.method());
  }

  /** The body's consumer, with the time its attempt started. */
  private static final class Attempt implements AsyncBody.Consumer<List<ByteBuffer>> {
    private final AsyncBody.Consumer<List<ByteBuffer>> delegate;
    private final long start;

    Attempt(AsyncBody.Consumer<List<ByteBuffer>> delegate, long start) {
      this.delegate = delegate;
      this.start = start;
    }

    @Override
    public void consume(List<ByteBuffer> value, AsyncBody asyncBody) throws Exception {
      delegate.consume(value, asyncBody);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <U> U unwrap(Class<U> target) {
      return target == Attempt.class ? (U) this : delegate.unwrap(target);
    }
  }
}
