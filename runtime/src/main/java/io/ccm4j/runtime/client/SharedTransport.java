package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.vertx.VertxHttpClientFactory;
import io.netty.resolver.AddressResolverGroup;
import io.netty.util.concurrent.MultithreadEventExecutorGroup;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.impl.VertxInternal;
import io.vertx.core.spi.resolver.ResolverProvider;
import java.net.InetSocketAddress;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One Vert.x for several API clients, as client-go's clientsets share one process's transport: its
 * event loops, timers and buffer pools once, rather than a set for every client (fabric8 gives each
 * client a Vert.x of its own). Each client keeps its own connections, rate limiter and
 * interceptors. Close it after the clients built on it.
 */
public final class SharedTransport implements AutoCloseable {

  /**
   * Held while the name-resolution switch is set for a Vert.x being made: two transports made at
   * once would otherwise take each other's setting for the operator's, or clear it while the other
   * is still being made (which then resolves with Netty's DNS client after all).
   */
  private static final Object NAME_RESOLUTION_SWITCH = new Object();

  private final Vertx vertx;
  private final VertxHttpClientFactory httpClients;

  public SharedTransport() {
    this(Vertx::vertx);
  }

  /** With how the Vert.x is made from its options; for tests that hold it while it is made. */
  SharedTransport(Function<VertxOptions, Vertx> makeVertx) {
    // As fabric8 makes its own (daemon threads, no file caching or class-path lookups, the JDK's
    // name resolution), with one event loop per processor instead of Vert.x's two: a manager's
    // connections carry small requests, and fewer loops each serve more of them per wake-up, with
    // fewer buffer arenas.
    VertxOptions options =
        new VertxOptions()
            .setEventLoopPoolSize(Runtime.getRuntime().availableProcessors())
            .setUseDaemonThread(true)
            .setFileSystemOptions(
                new FileSystemOptions()
                    .setFileCachingEnabled(false)
                    .setClassPathResolvingEnabled(false));
    vertx = withJdkNameResolution(() -> makeVertx.apply(options));
    httpClients = new VertxHttpClientFactory(vertx);
  }

  /**
   * Makes the Vert.x resolve host names as the JDK does ({@code /etc/hosts}, the system's resolver
   * configuration), as fabric8's own Vert.x does and client-go's resolver does, rather than with
   * Netty's DNS client (which reads {@code resolv.conf} itself and loads some fifty classes at
   * every start to resolve, most often, an API server given by its address). Vert.x reads its
   * switch, a system property, only while it is made; an operator's own setting is kept. One
   * transport at a time sets it ({@link #NAME_RESOLUTION_SWITCH}).
   */
  private static Vertx withJdkNameResolution(Supplier<Vertx> make) {
    String property = ResolverProvider.DISABLE_DNS_RESOLVER_PROP_NAME;
    synchronized (NAME_RESOLUTION_SWITCH) {
      String set = System.getProperty(property);
      if (set != null) {
        return make.get();
      }
      System.setProperty(property, "true");
      try {
        return make.get();
      } finally {
        System.clearProperty(property);
      }
    }
  }

  /** How host names are resolved for the clients' connections. */
  AddressResolverGroup<InetSocketAddress> nameResolution() {
    return ((VertxInternal) vertx).nettyAddressResolverGroup();
  }

  /** How many event loops the clients' connections are spread over. */
  int eventLoops() {
    return ((MultithreadEventExecutorGroup) ((VertxInternal) vertx).getEventLoopGroup())
        .executorCount();
  }

  /** The HTTP client factory to build the sharing clients with. */
  public HttpClient.Factory httpClients() {
    return httpClients;
  }

  @Override
  public void close() {
    vertx.close();
  }
}
