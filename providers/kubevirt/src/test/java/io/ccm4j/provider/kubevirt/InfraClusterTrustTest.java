package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.controlplane.junit.TlsImpostor;
import io.ccm4j.tls.SelfSignedCertificate;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The infrastructure cluster's client checks its API server's certificate against the kubeconfig's
 * CA alone, as upstream's (client-go) does: a server whose certificate another CA issued is
 * refused, though that CA is in the JDK's default trust store (as the public CAs are).
 */
class InfraClusterTrustTest {

  @Test
  void aServerCertifiedByAnotherTrustedCaIsRefused(@TempDir Path dir) throws Exception {
    SelfSignedCertificate infraCa =
        SelfSignedCertificate.certificateAuthority("infra-ca", Duration.ofDays(1));
    SelfSignedCertificate publicCa =
        SelfSignedCertificate.certificateAuthority("public-ca", Duration.ofDays(1));
    try (AutoCloseable jdk = TlsImpostor.trustedByTheJdk(publicCa, dir);
        TlsImpostor impostor =
            TlsImpostor.start(publicCa, 404, "{\"kind\":\"Status\",\"code\":404}")) {
      Path kubeconfig = dir.resolve("infra-kubeconfig");
      Files.writeString(
          kubeconfig,
          """
          apiVersion: v1
          kind: Config
          clusters: [{name: infra, cluster: {server: "%s", certificate-authority-data: %s}}]
          users: [{name: ccm, user: {token: t}}]
          contexts: [{name: infra, context: {cluster: infra, user: ccm}}]
          current-context: infra
          """
              .formatted(
                  impostor.url(),
                  Base64.getEncoder()
                      .encodeToString(infraCa.certificatePem().getBytes(StandardCharsets.UTF_8))));
      Path cloudConfig = dir.resolve("cloud.yaml");
      Files.writeString(cloudConfig, "kubeconfig: %s\nnamespace: tenant\n".formatted(kubeconfig));
      Node node =
          new NodeBuilder()
              .withNewMetadata()
              .withName("vm-1")
              .endMetadata()
              .withNewSpec()
              .withProviderID("kubevirt://vm-1")
              .endSpec()
              .build();

      try (KubeVirtCloud cloud =
          (KubeVirtCloud) new KubeVirtCloudProviderFactory().create(Optional.of(cloudConfig))) {
        cloud.initialize(new ProviderContext("tenant"));

        assertThatThrownBy(() -> cloud.instancesV2().orElseThrow().instanceExists(node))
            .isInstanceOf(CloudException.class)
            .hasStackTraceContaining("SSLHandshakeException");
      }
    }
  }
}
