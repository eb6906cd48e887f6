package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.okhttp.OkHttpClientFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;

/**
 * The transport of the manager's API clients, as client-go's: HTTP/2 to the API server (one
 * connection per client, its requests multiplexed on it, where HTTP/1.1 needs one connection per
 * request in flight), every connection pinged every {@link #PING_INTERVAL} so one that died
 * silently is dropped rather than carrying requests until TCP gives up. fabric8's OkHttp client
 * does the HTTP; the clients share one pool of daemon threads for their calls, where each would
 * have its own. Each client keeps its own connections, rate limiter and interceptors. Close it
 * after the clients built on it.
 */
public final class SharedTransport implements AutoCloseable {

  /**
   * How often each HTTP/2 connection is pinged; one whose answer has not come by the next ping is
   * closed and its requests fail (client-go pings a connection silent for 30 s and closes it when
   * no answer came within 15 s).
   */
  static final Duration PING_INTERVAL = Duration.ofSeconds(30);

  /** The name of the threads that make the clients' calls: {@code <prefix><n>}. */
  static final String THREAD_PREFIX = "ccm4j-api-call-";

  private final ThreadPoolExecutor calls;
  private final OkHttpClientFactory httpClients;

  public SharedTransport() {
    AtomicInteger threads = new AtomicInteger();
    // As OkHttp's own dispatcher pool (a thread for each call in flight, kept a minute when idle),
    // but daemon threads: a client not closed keeps no process alive.
    calls =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            task ->
                Thread.ofPlatform()
                    .daemon()
                    .name(THREAD_PREFIX + threads.incrementAndGet())
                    .unstarted(task));
    ExecutorService shared = new Unclosable(calls);
    httpClients =
        new OkHttpClientFactory() {
          @Override
          protected Dispatcher initDispatcher() {
            // A dispatcher of each client's own (closing a client cancels its calls only), its
            // calls on the shared threads, unlimited as fabric8's: the rate limiter decides.
            Dispatcher dispatcher = new Dispatcher(shared);
            dispatcher.setMaxRequests(Integer.MAX_VALUE);
            dispatcher.setMaxRequestsPerHost(Integer.MAX_VALUE);
            return dispatcher;
          }

          @Override
          protected void additionalConfig(OkHttpClient.Builder builder) {
            builder.pingInterval(PING_INTERVAL);
          }
        };
  }

  /** The HTTP client factory to build the sharing clients with. */
  public HttpClient.Factory httpClients() {
    return httpClients;
  }

  @Override
  public void close() {
    calls.shutdownNow();
  }

  /**
   * The shared threads as one client's dispatcher sees them: fabric8 shuts its client's dispatcher
   * pool down when the client is closed, which must not stop the other clients' calls; the pool
   * stops with the transport.
   */
  private static final class Unclosable extends AbstractExecutorService {

    private final ExecutorService threads;

    Unclosable(ExecutorService threads) {
      this.threads = threads;
    }

    @Override
    public void execute(Runnable command) {
      threads.execute(command);
    }

    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return threads.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return threads.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
      return threads.awaitTermination(timeout, unit);
    }
  }
}
