package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.tls.SelfSignedCertificate;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The infrastructure cluster's client checks its API server's certificate against the kubeconfig's
 * CA alone, as upstream's (client-go) does: a server whose certificate another CA issued is
 * refused, though that CA is in the JDK's default trust store (as the public CAs are).
 */
class InfraClusterTrustTest {

  private static final Duration DAY = Duration.ofDays(1);
  private static final char[] PASSWORD = "changeit".toCharArray();

  @Test
  void aServerCertifiedByAnotherTrustedCaIsRefused(@TempDir Path dir) throws Exception {
    SelfSignedCertificate infraCa = SelfSignedCertificate.certificateAuthority("infra-ca", DAY);
    SelfSignedCertificate publicCa = SelfSignedCertificate.certificateAuthority("public-ca", DAY);
    Path jdkStore = dir.resolve("cacerts.p12");
    KeyStore defaults = KeyStore.getInstance("PKCS12");
    defaults.load(null, null);
    defaults.setCertificateEntry("public", publicCa.certificate());
    try (OutputStream out = Files.newOutputStream(jdkStore)) {
      defaults.store(out, PASSWORD);
    }
    HttpsServer impostor = impostor(publicCa);
    Path kubeconfig = dir.resolve("infra-kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: infra, cluster: {server: "https://127.0.0.1:%d", certificate-authority-data: %s}}]
        users: [{name: ccm, user: {token: t}}]
        contexts: [{name: infra, context: {cluster: infra, user: ccm}}]
        current-context: infra
        """
            .formatted(
                impostor.getAddress().getPort(),
                Base64.getEncoder().encodeToString(infraCa.certificatePem().getBytes())));
    Path cloudConfig = dir.resolve("cloud.yaml");
    Files.writeString(cloudConfig, "kubeconfig: %s\nnamespace: tenant\n".formatted(kubeconfig));
    Map<String, String> before = new HashMap<>();
    Map.of(
            "javax.net.ssl.trustStore",
            jdkStore.toString(),
            "javax.net.ssl.trustStorePassword",
            new String(PASSWORD))
        .forEach(
            (name, value) -> {
              before.put(name, System.getProperty(name));
              System.setProperty(name, value);
            });
    try (KubeVirtCloud cloud =
        (KubeVirtCloud) new KubeVirtCloudProviderFactory().create(Optional.of(cloudConfig))) {
      cloud.initialize(new ProviderContext("tenant"));
      var node =
          new NodeBuilder()
              .withNewMetadata()
              .withName("vm-1")
              .endMetadata()
              .withNewSpec()
              .withProviderID("kubevirt://vm-1")
              .endSpec()
              .build();

      assertThatThrownBy(() -> cloud.instancesV2().orElseThrow().instanceExists(node))
          .isInstanceOf(CloudException.class)
          .hasStackTraceContaining("SSLHandshakeException");
    } finally {
      impostor.stop(0);
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

  /**
   * An HTTPS server on a loopback port that answers everything, its certificate from {@code ca}.
   */
  private static HttpsServer impostor(SelfSignedCertificate ca) throws Exception {
    SelfSignedCertificate serving =
        SelfSignedCertificate.serving("api", List.of(), List.of("127.0.0.1"), DAY, ca);
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(serving.toKeyStore(PASSWORD), PASSWORD);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(keys.getKeyManagers(), null, null);
    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.createContext(
        "/",
        exchange -> {
          byte[] body = "{\"kind\":\"Status\",\"code\":404}".getBytes();
          exchange.sendResponseHeaders(404, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    return server;
  }
}
