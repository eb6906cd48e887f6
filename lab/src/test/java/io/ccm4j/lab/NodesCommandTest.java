package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.app.Ccm4j;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ccm4j nodes}: bad flag combinations end with one line naming the flag and exit code 2. */
class NodesCommandTest {

  @TempDir Path temp;

  private String refused(String... args) {
    StringWriter err = new StringWriter();
    assertThat(Ccm4j.execute(new PrintWriter(err, true), args)).isEqualTo(2);
    return err.toString();
  }

  @Test
  void kubeProxiesNeedNodeIpsOfTheirOwn() throws Exception {
    Path kubeconfig = Files.writeString(temp.resolve("kubeconfig"), "apiVersion: v1\n");
    Path cloudConfig = Files.writeString(temp.resolve("sim.yaml"), "latencyMs: 1\n");

    assertThat(
            refused(
                "nodes",
                "--kubeconfig=" + kubeconfig,
                "--kube-proxies",
                "--cloud-config=" + cloudConfig))
        .contains("--kube-proxies: needs node IPs of its own");
    assertThat(refused("nodes", "--kubeconfig=" + kubeconfig, "--kube-proxies", "--count=251"))
        .contains("--count at most 250");
  }

  @Test
  void aNegativeCountIsRefused() throws Exception {
    Path kubeconfig = Files.writeString(temp.resolve("kubeconfig"), "apiVersion: v1\n");

    assertThat(refused("nodes", "--kubeconfig=" + kubeconfig, "--count=-1"))
        .contains("--count must not be negative");
  }
}
