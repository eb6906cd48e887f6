package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Counts a client's requests into {@link RestClientMetrics}: every request of the client passes
 * here, fabric8's own calls and the protobuf writes and lists sent through its HTTP client alike.
 * fabric8 calls every interceptor's {@code before} (this one's ahead of the throttle's), then every
 * interceptor's {@link #consumer}, on the thread that sends the attempt, and hands the consumer to
 * {@link #after} with the answer. So {@link #before} notes the time on its thread, {@link
 * #consumer} carries it: an attempt's time includes the throttle's wait, as client-go's does. A
 * watch is counted by the code it was established with, as client-go counts it, and its time is not
 * recorded, as client-go's is not. A transport failure reaches {@link #afterConnectionFailure} when
 * fabric8 retries it, which it does up to {@code requestRetryBackoffLimit} (10) times; the attempt
 * that ends the retries is not seen by any interceptor, so it is not counted.
 */
final class MeasuredRequests implements Interceptor {

  static final String NAME = "rest-client-metrics";

  /**
   * The answer that opens a watch over a WebSocket, as fabric8 opens them; client-go opens a watch
   * with a GET answered 200.
   */
  static final int SWITCHING_PROTOCOLS = 101;

  private static final int WATCH_ESTABLISHED = 200;

  /** When the attempt this thread is sending passed {@link #before}. */
  private static final ThreadLocal<long[]> STARTED = ThreadLocal.withInitial(() -> new long[1]);

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
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    STARTED.get()[0] = System.nanoTime();
  }

  @Override
  public AsyncBody.Consumer<List<ByteBuffer>> consumer(
      AsyncBody.Consumer<List<ByteBuffer>> consumer, HttpRequest request) {
    return isWatch(request) ? consumer : new Attempt(consumer, STARTED.get()[0]);
  }

  @Override
  public void after(
      HttpRequest request,
      HttpResponse<?> response,
      AsyncBody.Consumer<List<ByteBuffer>> consumer) {
    Attempt attempt = consumer == null ? null : consumer.unwrap(Attempt.class);
    long nanos = attempt == null ? -1 : System.nanoTime() - attempt.start;
    int code = response.code();
    metrics.answered(
        host, request.method(), code == SWITCHING_PROTOCOLS ? WATCH_ESTABLISHED : code, nanos);
  }

  @Override
  public void afterConnectionFailure(HttpRequest request, Throwable failure) {
    metrics.unanswered(host, request.method());
  }

  /** Whether {@code request} is a watch ({@code ?watch=true}, as fabric8 and client-go ask). */
  static boolean isWatch(HttpRequest request) {
    String query = request.uri().getRawQuery();
    return query != null && query.contains("watch=true");
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
