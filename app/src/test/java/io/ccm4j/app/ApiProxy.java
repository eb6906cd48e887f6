package io.ccm4j.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.Config;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Base64;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * An HTTP proxy on loopback in front of the API server that sees what it forwards, unlike {@link
 * PartitionProxy}: the manager talks plain HTTP to it, it talks HTTPS to the API server and passes
 * the manager's own credentials ({@code Authorization}) on. Like {@code kubectl proxy} it does not
 * upgrade to WebSocket, so watches run over plain HTTP, one event a line. A test can corrupt a
 * frame of the live Node watches, or end every watch (as an API server that restarts does).
 */
final class ApiProxy implements AutoCloseable {

  /** Headers the JDK's client sets itself, and encodings a line-by-line copy cannot read. */
  private static final Set<String> NOT_FORWARDED =
      Set.of(
          "connection",
          "content-length",
          "expect",
          "host",
          "upgrade",
          "transfer-encoding",
          "keep-alive",
          "te",
          "accept-encoding");

  private final URI upstream;
  private final HttpClient http;
  private final HttpServer server;
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
  private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
  private final AtomicInteger nodeWatchesOpened = new AtomicInteger();

  /**
   * A watch being forwarded: a JSON one a line (one event) at a time, a protobuf one as its bytes
   * come (length-prefixed frames, no lines).
   */
  private record Watch(boolean nodes, boolean protobuf, InputStream upstream, OutputStream client) {
    synchronized void write(byte[] line) throws IOException {
      client.write(line);
      client.flush();
    }

    /** Ends the response to the client, and the request to the API server. */
    synchronized void end() throws IOException {
      try {
        client.close();
      } finally {
        upstream.close();
      }
    }
  }

  /** A proxy to the API server the given configuration names, trusting its CA. */
  ApiProxy(Config apiServer) throws Exception {
    this.upstream = URI.create(apiServer.getMasterUrl().replaceAll("/$", ""));
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(trusting(apiServer.getCaCertData()))
            .build();
    this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(threads);
    server.createContext("/", this::forward);
    server.start();
  }

  /** The address for a kubeconfig's {@code server}. */
  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Node watches opened through this proxy so far. */
  int nodeWatchesOpened() {
    return nodeWatchesOpened.get();
  }

  /** Node watches open through this proxy now. */
  long liveNodeWatches() {
    return watches.stream().filter(Watch::nodes).count();
  }

  /**
   * Sends every live Node watch a frame its client cannot parse: half a JSON watch event, or on a
   * protobuf watch a length prefix beyond any frame's.
   *
   * @return how many watches got one
   */
  int corruptNodeWatches() {
    byte[] half =
        "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Node\",\"metadata\":{\"na\n"
            .getBytes(StandardCharsets.UTF_8);
    byte[] badLength = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
    int corrupted = 0;
    for (Watch watch : watches) {
      if (watch.nodes()) {
        try {
          watch.write(watch.protobuf() ? badLength : half);
          corrupted++;
        } catch (IOException e) {
          // that watch just ended
        }
      }
    }
    return corrupted;
  }

  /**
   * Ends every live watch mid-stream, as an API server that restarts does: each client has to watch
   * again.
   *
   * @return how many were ended
   */
  int endWatches() {
    int ended = 0;
    for (Watch watch : watches) {
      try {
        watch.end();
        ended++;
      } catch (IOException e) {
        // ended already
      }
    }
    return ended;
  }

  private void forward(HttpExchange exchange) throws IOException {
    try (exchange) {
      if ("websocket".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Upgrade"))) {
        // As kubectl proxy: no WebSocket; a 200 makes fabric8 watch over plain HTTP instead.
        byte[] refusal =
            "this proxy does not upgrade to WebSocket\n".getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, refusal.length);
        exchange.getResponseBody().write(refusal);
        return;
      }
      URI target = URI.create(upstream + exchange.getRequestURI().toString());
      byte[] body = exchange.getRequestBody().readAllBytes();
      HttpRequest.Builder request =
          HttpRequest.newBuilder(target)
              .method(
                  exchange.getRequestMethod(),
                  body.length == 0
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofByteArray(body));
      exchange
          .getRequestHeaders()
          .forEach(
              (name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase())) {
                  values.forEach(value -> request.header(name, value));
                }
              });
      HttpResponse<InputStream> response;
      try {
        response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exchange.sendResponseHeaders(502, -1);
        return;
      } catch (IOException e) {
        exchange.sendResponseHeaders(502, -1);
        return;
      }
      response
          .headers()
          .map()
          .forEach(
              (name, values) -> {
                if (!NOT_FORWARDED.contains(name.toLowerCase())) {
                  exchange.getResponseHeaders().put(name, values);
                }
              });
      String query = String.valueOf(exchange.getRequestURI().getQuery());
      boolean watch = query.contains("watch=true") || query.contains("watch=1");
      try (InputStream in = response.body()) {
        if (response.statusCode() == 204 || response.statusCode() == 304) {
          exchange.sendResponseHeaders(response.statusCode(), -1);
          return;
        }
        exchange.sendResponseHeaders(response.statusCode(), 0);
        OutputStream out = exchange.getResponseBody();
        out.flush(); // a watch's client waits for the headers
        if (!watch || response.statusCode() != 200) {
          in.transferTo(out);
          return;
        }
        boolean nodes = exchange.getRequestURI().getPath().equals("/api/v1/nodes");
        if (nodes) {
          nodeWatchesOpened.incrementAndGet();
        }
        boolean protobuf =
            String.valueOf(response.headers().firstValue("Content-Type").orElse(""))
                .startsWith("application/vnd.kubernetes.protobuf");
        Watch live = new Watch(nodes, protobuf, in, out);
        watches.add(live);
        try {
          if (protobuf) {
            copyChunks(in, live);
          } else {
            // fabric8 counts a JSON watch over plain HTTP as watching once a byte of it arrives,
            // and a quiet API server sends the first only at its first bookmark: a space, which
            // the next event begins with, is that byte.
            live.write(new byte[] {' '});
            copyLines(in, live);
          }
        } finally {
          watches.remove(live);
        }
      }
    } catch (IOException e) {
      // the client or the API server went away
    } catch (RuntimeException e) {
      System.err.println("api-proxy: " + exchange.getRequestURI() + ": " + e);
      throw e;
    }
  }

  private static void copyChunks(InputStream in, Watch watch) throws IOException {
    byte[] buffer = new byte[8192];
    int read;
    try {
      while ((read = in.read(buffer)) >= 0) {
        watch.write(java.util.Arrays.copyOf(buffer, read));
      }
    } catch (IOException e) {
      // ended by endWatches(), or by the API server
    }
  }

  private static void copyLines(InputStream in, Watch watch) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    try {
      while ((b = in.read()) >= 0) {
        line.write(b);
        if (b == '\n') {
          watch.write(line.toByteArray());
          line.reset();
        }
      }
    } catch (IOException e) {
      // ended by endWatches(), or by the API server
    }
  }

  private static SSLContext trusting(String caData) throws Exception {
    KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
    trusted.load(null, null);
    trusted.setCertificateEntry(
        "api-server",
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(Base64.getDecoder().decode(caData))));
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }

  @Override
  public void close() {
    server.stop(0);
    endWatches();
    threads.shutdownNow();
    http.close();
  }
}
