package io.ccm4j.controlplane.junit;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.ccm4j.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * For tests of a client's trust in its API server: an HTTPS server on a loopback port whose
 * certificate (for 127.0.0.1) a given CA issued, answering every path with one JSON document; and a
 * CA made one of the JDK's default trusted ones, as the public CAs are, until closed.
 */
public final class TlsImpostor implements AutoCloseable {

  private static final Duration DAY = Duration.ofDays(1);
  private static final char[] PASSWORD = "changeit".toCharArray();

  private final HttpsServer server;

  private TlsImpostor(HttpsServer server) {
    this.server = server;
  }

  /** A server whose certificate {@code ca} issued, answering {@code status} and {@code json}. */
  public static TlsImpostor start(SelfSignedCertificate ca, int status, String json) {
    SelfSignedCertificate serving =
        SelfSignedCertificate.serving("api", List.of(), List.of("127.0.0.1"), DAY, ca);
    try {
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(serving.toKeyStore(PASSWORD), PASSWORD);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(keys.getKeyManagers(), null, null);
      HttpsServer server =
          HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.setHttpsConfigurator(new HttpsConfigurator(tls));
      byte[] body = json.getBytes(StandardCharsets.UTF_8);
      server.createContext(
          "/",
          exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      server.start();
      return new TlsImpostor(server);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public String url() {
    return "https://127.0.0.1:" + port();
  }

  @Override
  public void close() {
    server.stop(0);
  }

  /**
   * Makes {@code ca} the JDK's default trust store (a store in {@code dir}, named by {@code
   * javax.net.ssl.trustStore}, which fabric8 reads as the JDK does) until the returned handle is
   * closed, which puts the properties back.
   */
  public static AutoCloseable trustedByTheJdk(SelfSignedCertificate ca, Path dir) {
    Path store = dir.resolve("cacerts-" + System.nanoTime() + ".p12");
    try {
      KeyStore defaults = KeyStore.getInstance("PKCS12");
      defaults.load(null, null);
      defaults.setCertificateEntry("trusted", ca.certificate());
      try (OutputStream out = Files.newOutputStream(store)) {
        defaults.store(out, PASSWORD);
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> before = new HashMap<>();
    Map.of(
            "javax.net.ssl.trustStore",
            store.toString(),
            "javax.net.ssl.trustStorePassword",
            new String(PASSWORD))
        .forEach(
            (name, value) -> {
              before.put(name, System.getProperty(name));
              System.setProperty(name, value);
            });
    return () ->
        before.forEach(
            (name, value) -> {
              if (value == null) {
                System.clearProperty(name);
              } else {
                System.setProperty(name, value);
              }
            });
  }
}
