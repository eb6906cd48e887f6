package io.ccm4j.app.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A kubeconfig read for a flag, with what fabric8 alone would leave out. */
class KubeClientOptionsTest {

  @TempDir Path dir;

  private Path kubeconfig(String user) throws Exception {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        users: [{name: u, user: %s}]
        """
            .formatted(user));
    return file;
  }

  /** A token file beside the kubeconfig, as Gardener's generic token kubeconfig names it. */
  @Test
  void theUsersTokenFileIsTheBearerTokenNotAnAnonymousRequest() throws Exception {
    Files.writeString(dir.resolve("token"), "from-the-file\n");

    Config config =
        KubeClientOptions.fromKubeconfig("--kubeconfig", kubeconfig("{tokenFile: token}"));

    assertThat(config.getOauthTokenProvider().getToken()).isEqualTo("from-the-file");
  }

  @Test
  void aTokenFileThatCannotBeReadNamesTheFlagTheFileAndTheTokenFile() throws Exception {
    Path file = kubeconfig("{tokenFile: gone}");

    assertThatThrownBy(() -> KubeClientOptions.fromKubeconfig("--kubeconfig", file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--kubeconfig: %s: user's tokenFile %s cannot be read: no such file"
                .formatted(file, dir.resolve("gone")));
  }

  /**
   * A {@code --master} without a scheme takes client-go's (https with TLS configured, else http),
   * whether or not anything answers there while the flags are read: nothing listens on the port
   * here, where fabric8 alone would have fallen back to http after its TLS handshake failed.
   */
  @Test
  void aMasterWithoutASchemeTakesClientGosSchemeWhetherOrNotTheServerIsUp() throws Exception {
    Path withCa = dir.resolve("with-ca");
    Files.writeString(
        withCa,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", \
        certificate-authority-data: "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        users: [{name: u, user: {token: t}}]
        """);
    Path withoutTls = kubeconfig("{token: t}");
    int closedPort;
    try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String master = "127.0.0.1:" + closedPort;

    assertThat(options(withCa, master).clientConfig().getMasterUrl())
        .isEqualTo("https://" + master + "/");
    assertThat(options(withoutTls, master).clientConfig().getMasterUrl())
        .isEqualTo("http://" + master + "/");
    assertThat(options(withoutTls, "https://" + master).clientConfig().getMasterUrl())
        .isEqualTo("https://" + master + "/");
  }

  private static KubeClientOptions options(Path kubeconfig, String master) {
    KubeClientOptions options = new KubeClientOptions();
    options.kubeconfig = kubeconfig;
    options.master = master;
    return options;
  }
}
