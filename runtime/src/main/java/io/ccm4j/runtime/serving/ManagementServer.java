package io.ccm4j.runtime.serving;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.ccm4j.runtime.health.HealthChecks;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The manager's HTTPS endpoint (A4): {@code /healthz}, {@code /livez} and {@code /readyz} with
 * every health check, {@code /healthz/<check>} for one, {@code /metrics} in the Prometheus text
 * format, and the health checks' SLIs on {@code /metrics/slis} ({@link HealthCheckSlis}). Health
 * answers {@code 200 ok} or {@code 500} with the failed checks, their reasons withheld (the log has
 * them, and so does {@code /healthz/<check>}); {@code ?verbose} lists them all.
 */
public final class ManagementServer implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final Logger log = LoggerFactory.getLogger(ManagementServer.class);

  private static final List<String> READ = List.of("GET", "HEAD");
  private static final List<String> READ_OR_RESET = List.of("GET", "HEAD", "DELETE");

  private final HttpsServer server;
  private final ExecutorService executor;
  private final HealthChecks health;
  private final PrometheusMeterRegistry metrics;
  private final AccessControl access;
  private final HealthCheckSlis slis = new HealthCheckSlis();
  private final RegistryCounters registryCounters = new RegistryCounters();

  /** Whether client certificates are asked for (client CAs given): else none is looked for. */
  private final boolean askForCertificates;

  private final AtomicReference<Map<String, String>> loggedFailures =
      new AtomicReference<>(Map.of());

  /** Serves everyone: for tests and tools on loopback. */
  public ManagementServer(
      InetSocketAddress address,
      ServingKeys keys,
      HealthChecks health,
      PrometheusMeterRegistry metrics)
      throws IOException {
    this(address, keys, health, metrics, AccessControl.ALLOW_ALL);
  }

  /** Without client certificates. */
  public ManagementServer(
      InetSocketAddress address,
      ServingKeys keys,
      HealthChecks health,
      PrometheusMeterRegistry metrics,
      AccessControl access)
      throws IOException {
    this(address, keys, health, metrics, access, List.of());
  }

  /**
   * Binds at once (so a port conflict fails start-up) and starts serving.
   *
   * @param keys the serving key and certificate
   * @param access who may read what (asked only for paths that exist)
   * @param clientCas the authorities whose client certificates identify a user ({@code
   *     --client-ca-file}); with none, no client certificate is asked for
   */
  public ManagementServer(
      InetSocketAddress address,
      ServingKeys keys,
      HealthChecks health,
      PrometheusMeterRegistry metrics,
      AccessControl access,
      List<X509Certificate> clientCas)
      throws IOException {
    this.health = health;
    this.metrics = metrics;
    this.access = access;
    this.server = HttpsServer.create(address, 0);
    SSLContext context = sslContext(keys.keyStore(), keys.password(), clientCas);
    ServingTls tls = keys.tls();
    this.askForCertificates = !clientCas.isEmpty();
    server.setHttpsConfigurator(
        new HttpsConfigurator(context) {
          @Override
          public void configure(HttpsParameters parameters) {
            SSLParameters ssl = tls.applyTo(context.getDefaultSSLParameters());
            // Asked for, not required: as upstream, a client without one may still bring a token.
            ssl.setWantClientAuth(askForCertificates);
            parameters.setSSLParameters(ssl);
          }
        });
    for (String path : new String[] {"/healthz", "/livez", "/readyz"}) {
      server.createContext(path, guarded(this::isHealthPath, this::serveHealth));
    }
    server.createContext("/metrics", guarded("/metrics"::equals, this::serveMetrics));
    // DELETE empties the SLIs, as upstream's SLIMetricsWithReset: who may do so is the
    // authorizer's to say (verb delete on the path).
    server.createContext(
        "/metrics/slis", guarded("/metrics/slis"::equals, READ_OR_RESET, this::serveSlis));
    server.createContext("/", guarded(path -> false, exchange -> {}));
    // A virtual thread per request: a request waiting on the API server (its token or access
    // review) must not hold up the kubelet's health probes behind it.
    this.executor =
        Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("management-http-", 0).factory());
    server.setExecutor(executor);
    server.start();
  }

  private static SSLContext sslContext(
      KeyStore keyStore, char[] password, List<X509Certificate> clientCas) {
    try {
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(keyStore, password);
      TrustManager[] clients = null;
      if (!clientCas.isEmpty()) {
        KeyStore authorities = KeyStore.getInstance(KeyStore.getDefaultType());
        authorities.load(null, null);
        for (int i = 0; i < clientCas.size(); i++) {
          authorities.setCertificateEntry("client-ca-" + i, clientCas.get(i));
        }
        TrustManagerFactory trust =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(authorities);
        clients = trust.getTrustManagers();
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), clients, null);
      return context;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot use the serving certificate: " + e.getMessage(), e);
    }
  }

  /** {@code /healthz}, {@code /livez}, {@code /readyz}, each alone or with a check's name. */
  private boolean isHealthPath(String path) {
    for (String endpoint : new String[] {"/healthz", "/livez", "/readyz"}) {
      if (path.equals(endpoint)) {
        return true;
      }
      if (path.startsWith(endpoint + "/")) {
        return health.has(path.substring(endpoint.length() + 1));
      }
    }
    return false;
  }

  /**
   * Answers a path that does not exist (404) or a method the path does not take (405) at once; asks
   * {@link AccessControl} about the rest. Only the few paths that exist can cost a token or access
   * review, so requests for random paths cannot spend the API server's quota (upstream reviews
   * first and answers 403).
   */
  private HttpHandler guarded(Predicate<String> exists, HttpHandler handler) {
    return guarded(exists, READ, handler);
  }

  private HttpHandler guarded(Predicate<String> exists, List<String> methods, HttpHandler handler) {
    return exchange -> {
      if (!exists.test(exchange.getRequestURI().getPath())) {
        respond(exchange, 404, "text/plain", "404 page not found\n");
        return;
      }
      String method = exchange.getRequestMethod();
      if (!methods.contains(method)) {
        exchange.getResponseHeaders().set("Allow", String.join(", ", methods));
        respond(exchange, 405, "text/plain", "405 method not allowed\n");
        return;
      }
      Optional<AccessControl.Denial> denial;
      try {
        denial =
            access.check(
                exchange.getRequestMethod(),
                exchange.getRequestURI().getPath(),
                Optional.ofNullable(exchange.getRequestHeaders().getFirst("Authorization")),
                askForCertificates ? clientCertificate(exchange) : Optional.empty());
      } catch (RuntimeException e) {
        denial =
            Optional.of(
                new AccessControl.Denial(
                    500,
                    "InternalError",
                    "authorization check failed: " + KubernetesErrors.reason(e)));
      }
      if (denial.isPresent()) {
        AccessControl.Denial d = denial.get();
        respond(exchange, d.status(), "application/json", status(d));
        return;
      }
      handler.handle(exchange);
    };
  }

  /**
   * The client certificate the handshake verified against the client CAs (the JDK's server refuses
   * the handshake of one they did not issue).
   */
  private static Optional<X509Certificate> clientCertificate(HttpExchange exchange) {
    if (!(exchange instanceof HttpsExchange https) || https.getSSLSession() == null) {
      return Optional.empty();
    }
    try {
      Certificate[] chain = https.getSSLSession().getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate certificate
          ? Optional.of(certificate)
          : Optional.empty();
    } catch (SSLPeerUnverifiedException e) {
      return Optional.empty(); // none presented
    }
  }

  /** A Kubernetes {@code Status}, as the API server's delegated auth answers. */
  private static String status(AccessControl.Denial denial) {
    Status status =
        new StatusBuilder()
            .withStatus("Failure")
            .withMessage(denial.message())
            .withReason(denial.reason())
            .withCode(denial.status())
            .withNewMetadata()
            .endMetadata()
            .withNewDetails()
            .endDetails()
            .build();
    try {
      return JSON.writeValueAsString(status) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
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
    results.forEach(
        (name, problem) -> slis.observe(name, endpoint.substring(1), problem.isEmpty()));
    boolean healthy = results.values().stream().allMatch(Optional::isEmpty);
    logFailures(results);
    StringBuilder body = new StringBuilder();
    if (verbose || !healthy) {
      // The aggregate paths are served to anyone (a kubelet's probe carries no token): a reason
      // may name nodes, Leases or the cloud's errors, so it is withheld there, as upstream does.
      // It is in the log, and on /healthz/<check>, which needs an allowed token.
      results.forEach(
          (name, problem) ->
              body.append(problem.isEmpty() ? "[+]" : "[-]")
                  .append(name)
                  .append(problem.isEmpty() ? " ok\n" : " failed: reason withheld\n"));
      body.append(endpoint.substring(1)).append(healthy ? " check passed\n" : " check failed\n");
    } else {
      body.append("ok");
    }
    respond(exchange, healthy ? 200 : 500, "text/plain", body.toString());
  }

  /** Logs the failed checks with their reasons when they change, not on every probe. */
  private void logFailures(Map<String, Optional<String>> results) {
    Map<String, String> failures = new java.util.TreeMap<>();
    results.forEach((name, problem) -> problem.ifPresent(reason -> failures.put(name, reason)));
    Map<String, String> previous = loggedFailures.getAndSet(failures);
    if (!failures.equals(previous) && !failures.isEmpty()) {
      failures.forEach((name, reason) -> log.warn("health check {} failed: {}", name, reason));
    }
  }

  private void serveMetrics(HttpExchange exchange) throws IOException {
    serveFamilies(exchange, registryCounters.addTo(MetricsText.served(metrics), slis.scrape()));
  }

  private void serveSlis(HttpExchange exchange) throws IOException {
    if (exchange.getRequestMethod().equals("DELETE")) {
      slis.reset();
      respond(exchange, 200, "text/plain; charset=utf-8", "metrics reset\n");
      return;
    }
    serveFamilies(exchange, slis.scrape());
  }

  /** In the text format, or in protobuf when the scraper prefers it. */
  private static void serveFamilies(HttpExchange exchange, MetricSnapshots families)
      throws IOException {
    MetricsFormat format =
        MetricsFormat.negotiate(
            exchange.getRequestHeaders().getFirst("Accept"), MetricsProtobuf.writable());
    respond(
        exchange,
        200,
        format.contentType(),
        format.protobuf()
            ? MetricsProtobuf.write(families)
            : MetricsText.text(families).getBytes(StandardCharsets.UTF_8));
  }

  private static void respond(HttpExchange exchange, int status, String contentType, String body)
      throws IOException {
    respond(exchange, status, contentType, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void respond(HttpExchange exchange, int status, String contentType, byte[] bytes)
      throws IOException {
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
