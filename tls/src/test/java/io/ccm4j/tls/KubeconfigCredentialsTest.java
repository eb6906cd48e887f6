package io.ccm4j.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a kubeconfig's user presents, read as client-go reads it where fabric8 does not. */
class KubeconfigCredentialsTest {

  @TempDir Path dir;

  private static String kubeconfig(String user) {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: infra
          cluster:
            server: https://127.0.0.1:6443
        contexts:
        - name: infra
          context:
            cluster: infra
            user: ccm
        current-context: infra
        users:
        - name: ccm
          user:
        %s
        """
        .formatted(user.indent(4).stripTrailing());
  }

  private Config read(String text) throws Exception {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(file, text);
    return KubeconfigCredentials.complete(
        Config.fromKubeconfig(file.toFile()), KubeConfigUtils.parseConfig(file.toFile()), dir);
  }

  @Test
  void aTokenFileRelativeToTheKubeconfigIsTheBearerToken() throws Exception {
    Files.writeString(dir.resolve("token"), "s3cr3t\n");

    Config config = read(kubeconfig("tokenFile: token"));

    assertThat(config.getOauthTokenProvider()).isNotNull();
    assertThat(config.getOauthTokenProvider().getToken()).isEqualTo("s3cr3t");
  }

  @Test
  void aTokenFileIsReadAgainOnceAMinuteHasPassedAndAFailedReadKeepsTheToken() throws Exception {
    Path file = dir.resolve("rotating");
    Files.writeString(file, "first");
    AtomicLong now = new AtomicLong();
    var tokens = new KubeconfigCredentials.TokenFile(file, null, now::get);

    assertThat(tokens.getToken()).isEqualTo("first");
    Files.writeString(file, "second");
    now.addAndGet(Duration.ofSeconds(59).toNanos());
    assertThat(tokens.getToken()).isEqualTo("first");
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(tokens.getToken()).isEqualTo("second");

    Files.delete(file);
    now.addAndGet(KubeconfigCredentials.TOKEN_FILE_PERIOD.toNanos());
    assertThat(tokens.getToken()).isEqualTo("second");
  }

  @Test
  void aTokenFileThatCannotBeReadEndsTheStartUnlessATokenIsGivenToo() throws Exception {
    assertThatThrownBy(() -> read(kubeconfig("tokenFile: missing")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "user's tokenFile %s cannot be read: no such file".formatted(dir.resolve("missing")));

    Config config = read(kubeconfig("token: given\ntokenFile: missing"));
    assertThat(config.getOauthTokenProvider().getToken()).isEqualTo("given");
  }

  @Test
  void anEcClientKeyInPkcs8IsReadAsEc() throws Exception {
    SelfSignedCertificate ca = SelfSignedCertificate.certificateAuthority("ca", Duration.ofDays(1));
    SelfSignedCertificate client =
        SelfSignedCertificate.client("ccm", List.of(), Duration.ofDays(1), ca);
    assertThat(client.privateKeyPem()).startsWith("-----BEGIN PRIVATE KEY-----");

    Config config =
        read(
            kubeconfig(
                "client-certificate-data: %s\nclient-key-data: %s"
                    .formatted(base64(client.certificatePem()), base64(client.privateKeyPem()))));

    assertThat(config.getClientKeyAlgo()).isEqualTo("EC");
    assertThat(SSLUtils.keyManagers(config)).hasSize(1);
  }

  @Test
  void anEd25519ClientKeyIsRefusedByName() throws Exception {
    String ed25519 =
        """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIJ3sJHoMGJZQhqaM5qWXbRQNPDGaNqmBnJ/Ur2eMUq0S
        -----END PRIVATE KEY-----
        """;
    SelfSignedCertificate ca = SelfSignedCertificate.certificateAuthority("ca", Duration.ofDays(1));

    assertThatThrownBy(
            () ->
                read(
                    kubeconfig(
                        "client-certificate-data: %s\nclient-key-data: %s"
                            .formatted(base64(ca.certificatePem()), base64(ed25519)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "user's client key is an Ed25519 key, which this client cannot sign with: give an EC"
                + " or RSA key");
  }

  @Test
  void keysInTheFormsFabric8ReadsAreLeftAsTheyAre() throws Exception {
    Config config = read(kubeconfig("token: plain"));

    assertThat(config.getOauthTokenProvider()).isNull();
    assertThat(config.getClientKeyAlgo()).isNull();
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes());
  }
}
