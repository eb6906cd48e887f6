package io.ccm4j.app.options;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigsTest {

  private static final String CREDENTIALS_ONLY =
      """
      apiVersion: v1
      kind: Config
      users:
      - name: admin
        user: {token: abc}
      """;

  /** --master names the server: a kubeconfig then serves for its credentials, as in client-go. */
  @Test
  void withMasterAKubeconfigWithoutAContextServes(@TempDir Path dir) throws Exception {
    Path file = Files.writeString(dir.resolve("kubeconfig"), CREDENTIALS_ONLY);

    assertThat(Kubeconfigs.problem(file, true)).isEmpty();
    assertThat(Kubeconfigs.problem(file, false)).contains(file + " names no current-context");
  }
}
