package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.controlplane.junit.TlsImpostor;
import io.ccm4j.tls.ClusterTrust;
import io.ccm4j.tls.SelfSignedCertificate;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterTrustTest {

  private static final Duration DAY = Duration.ofDays(1);
  private static final String VERSION =
      "{\"major\":\"1\",\"minor\":\"37\",\"gitVersion\":\"v1.37.2\"}";

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
    try (AutoCloseable jdk = TlsImpostor.trustedByTheJdk(publicCa, dir);
        TlsImpostor impostor = TlsImpostor.start(publicCa, 200, VERSION);
        TlsImpostor cluster = TlsImpostor.start(clusterCa, 200, VERSION);
        KubernetesClient toImpostor = KubeClients.create(config(impostor.url()), 100, 100);
        KubernetesClient toCluster = KubeClients.create(config(cluster.url()), 100, 100)) {
      assertThat(toCluster.getKubernetesVersion().getGitVersion()).isEqualTo("v1.37.2");
      assertThatThrownBy(toImpostor::getKubernetesVersion)
          .hasStackTraceContaining("SSLHandshakeException");
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

  private static List<String> issuers(TrustManager[] managers) {
    return Arrays.stream(managers)
        .filter(X509TrustManager.class::isInstance)
        .flatMap(m -> Arrays.stream(((X509TrustManager) m).getAcceptedIssuers()))
        .map(issuer -> issuer.getSubjectX500Principal().getName())
        .toList();
  }
}
