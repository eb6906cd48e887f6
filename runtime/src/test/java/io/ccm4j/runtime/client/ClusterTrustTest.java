package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.ccm4j.tls.ClusterTrust;
import io.ccm4j.tls.SelfSignedCertificate;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterTrustTest {

  private static final Duration DAY = Duration.ofDays(1);
  private static final char[] PASSWORD = "changeit".toCharArray();

  private final SelfSignedCertificate clusterCa =
      SelfSignedCertificate.certificateAuthority("cluster-ca", DAY);
  private final SelfSignedCertificate publicCa =
      SelfSignedCertificate.certificateAuthority("a-public-ca", DAY);

  @Test
  void aConfigNamingACaTrustsThatCaAloneWhereFabric8AddsTheJdksDefaultStore() throws Exception {
    Config config = config("https://127.0.0.1:6443");

    assertThat(issuers(ClusterTrust.trustManagers(config).orElseThrow()))
        .containsExactly(clusterCa.certificate().getSubjectX500Principal().getName());
    assertThat(issuers(SSLUtils.trustManagers(config))).hasSizeGreaterThan(1);
  }

  @Test
  void withoutACaOrWithVerificationOffFabric8sTrustStands() {
    Config noCa = new ConfigBuilder(Config.empty()).withMasterUrl("https://127.0.0.1:6443").build();
    Config insecure =
        new ConfigBuilder(config("https://127.0.0.1:6443")).withTrustCerts(true).build();

    assertThat(ClusterTrust.trustManagers(noCa)).isEmpty();
    assertThat(ClusterTrust.trustManagers(insecure)).isEmpty();
  }

  /**
   * An API server address answered with a certificate another CA issued (one in the JDK's default
   * trust store, as the public CAs are) is refused; the cluster CA's is taken.
   */
  @Test
  void theManagersClientsRefuseAServerCertificateFromAnotherTrustedCa(@TempDir Path dir)
      throws Exception {
    Path jdkStore = dir.resolve("cacerts.p12");
    KeyStore defaults = KeyStore.getInstance("PKCS12");
    defaults.load(null, null);
    defaults.setCertificateEntry("public", publicCa.certificate());
    try (OutputStream out = Files.newOutputStream(jdkStore)) {
      defaults.store(out, PASSWORD);
    }
    // The JDK's default trust store, which fabric8 reads by these properties as the JDK does.
    Map<String, String> properties =
        Map.of(
            "javax.net.ssl.trustStore",
            jdkStore.toString(),
            "javax.net.ssl.trustStorePassword",
            new String(PASSWORD));
    Map<String, String> before = new HashMap<>();
    properties.forEach(
        (name, value) -> {
          before.put(name, System.getProperty(name));
          System.setProperty(name, value);
        });
    HttpsServer impostor = server(publicCa);
    HttpsServer cluster = server(clusterCa);
    try (KubernetesClient toImpostor = KubeClients.create(config(url(impostor)), 100, 100);
        KubernetesClient toCluster = KubeClients.create(config(url(cluster)), 100, 100)) {
      assertThat(toCluster.getKubernetesVersion().getGitVersion()).isEqualTo("v1.37.2");
      assertThatThrownBy(toImpostor::getKubernetesVersion)
          .hasStackTraceContaining("SSLHandshakeException");
    } finally {
      impostor.stop(0);
      cluster.stop(0);
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

  private Config config(String url) {
    String pem = clusterCa.certificatePem();
    return new ConfigBuilder(Config.empty())
        .withMasterUrl(url)
        .withCaCertData(Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8)))
        .withOauthToken("token")
        .build();
  }

  /** An HTTPS server on a loopback port answering /version, its certificate from {@code ca}. */
  private static HttpsServer server(SelfSignedCertificate ca) throws Exception {
    SelfSignedCertificate serving =
        SelfSignedCertificate.serving("api", List.of(), List.of("127.0.0.1"), DAY, ca);
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(serving.toKeyStore(PASSWORD), PASSWORD);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keys.getKeyManagers(), null, null);
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    byte[] version =
        "{\"major\":\"1\",\"minor\":\"37\",\"gitVersion\":\"v1.37.2\"}"
            .getBytes(StandardCharsets.UTF_8);
    server.createContext(
        "/version",
        exchange -> {
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, version.length);
          try (OutputStream body = exchange.getResponseBody()) {
            body.write(version);
          }
        });
    server.start();
    return server;
  }

  private static String url(HttpsServer server) {
    return "https://127.0.0.1:" + server.getAddress().getPort();
  }

  private static List<String> issuers(TrustManager[] managers) {
    return Arrays.stream(managers)
        .filter(X509TrustManager.class::isInstance)
        .flatMap(m -> Arrays.stream(((X509TrustManager) m).getAcceptedIssuers()))
        .map(issuer -> issuer.getSubjectX500Principal().getName())
        .toList();
  }
}
