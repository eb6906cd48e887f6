package io.ccm4j.runtime.serving;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.ccm4j.runtime.health.HealthChecks;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The manager's HTTPS endpoint (A4): {@code /healthz}, {@code /livez} and {@code /readyz} with
 * every health check, {@code /healthz/<check>} for one, and {@code /metrics} in the Prometheus text
 * format. Health answers {@code 200 ok} or {@code 500} with the failed checks; {@code ?verbose}
 * lists them all.
 */
public final class ManagementServer implements AutoCloseable {

  private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpsServer server;
  private final ExecutorService executor;
  private final HealthChecks health;
  private final PrometheusMeterRegistry metrics;

  /**
   * Binds at once (so a port conflict fails start-up) and starts serving.
   *
   * @param keys the serving key and certificate
   */
  public ManagementServer(
      InetSocketAddress address,
      ServingKeys keys,
      HealthChecks health,
      PrometheusMeterRegistry metrics)
      throws IOException {
    this.health = health;
    this.metrics = metrics;
    this.server = HttpsServer.create(address, 0);
    server.setHttpsConfigurator(
        new HttpsConfigurator(sslContext(keys.keyStore(), keys.password())));
    for (String path : new String[] {"/healthz", "/livez", "/readyz"}) {
      server.createContext(path, this::serveHealth);
    }
    server.createContext("/metrics", this::serveMetrics);
    server.createContext(
        "/", exchange -> respond(exchange, 404, "text/plain", "404 page not found\n"));
    this.executor =
        Executors.newFixedThreadPool(
            2,
            runnable -> Thread.ofPlatform().daemon().name("management-http").unstarted(runnable));
    server.setExecutor(executor);
    server.start();
  }

  private static SSLContext sslContext(KeyStore keyStore, char[] password) {
    try {
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(keyStore, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), null, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot use the serving certificate: " + e.getMessage(), e);
    }
  }

  /** The bound address; with port 0 requested, the port the system chose. */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  private void serveHealth(HttpExchange exchange) throws IOException {
    URI uri = exchange.getRequestURI();
    String path = uri.getPath();
    String endpoint = exchange.getHttpContext().getPath();
    if (path.length() > endpoint.length() + 1 && path.startsWith(endpoint + "/")) {
      String name = path.substring(endpoint.length() + 1);
      Optional<Optional<String>> result = health.run(name);
      if (result.isEmpty()) {
        respond(exchange, 404, "text/plain", "no health check named " + name + "\n");
      } else if (result.get().isEmpty()) {
        respond(exchange, 200, "text/plain", "ok");
      } else {
        respond(
            exchange, 500, "text/plain", "[-]" + name + " failed: " + result.get().get() + "\n");
      }
      return;
    }
    boolean verbose = uri.getQuery() != null && uri.getQuery().contains("verbose");
    Map<String, Optional<String>> results = health.run();
    boolean healthy = results.values().stream().allMatch(Optional::isEmpty);
    StringBuilder body = new StringBuilder();
    if (verbose || !healthy) {
      results.forEach(
          (name, problem) -> {
            if (problem.isEmpty()) {
              body.append("[+]").append(name).append(" ok\n");
            } else {
              body.append("[-]")
                  .append(name)
                  .append(" failed: ")
                  .append(problem.get())
                  .append('\n');
            }
          });
      body.append(endpoint.substring(1)).append(healthy ? " check passed\n" : " check failed\n");
    } else {
      body.append("ok");
    }
    respond(exchange, healthy ? 200 : 500, "text/plain", body.toString());
  }

  private void serveMetrics(HttpExchange exchange) throws IOException {
    respond(exchange, 200, PROMETHEUS_TEXT, metrics.scrape());
  }

  private static void respond(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
