package io.ccm4j.lab.real;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The lab's CNI agent ({@code cni-agent.sh}, run once against a stand-in kubectl that prints what
 * the agent's jsonpath asks for): it writes the node's CNI configuration only once the CCM has
 * initialised the Node, and with {@code POD_CIDR=node} only once the Node has its pod CIDR.
 */
class RealCniTest {

  @TempDir Path dir;

  /** Runs the agent once; its exit code (0 written, 3 waiting) and output. */
  private Result runOnce(String podCidr, String nodeState) throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path kubectl = bin.resolve("kubectl");
    // what `kubectl get node N -o jsonpath=...` prints: providerID|podCIDR|taint keys|InternalIPs
    Files.writeString(
        kubectl,
        "#!/bin/sh\n[ \"$3\" = worker-0 ] || { echo \"no node $3\" >&2; exit 1; }\nprintf '%s' '"
            + nodeState
            + "'\n");
    Files.setPosixFilePermissions(kubectl, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path script = dir.resolve("cni-agent.sh");
    try (InputStream in = RealCni.class.getResourceAsStream("cni-agent.sh")) {
      Files.write(script, in.readAllBytes());
    }
    ProcessBuilder builder = new ProcessBuilder("sh", script.toString()).redirectErrorStream(true);
    builder.environment().put("PATH", bin + ":/usr/bin:/bin");
    builder.environment().put("NODE_NAME", "worker-0");
    builder.environment().put("POD_CIDR", podCidr);
    builder.environment().put("CNI_CONF_DIR", dir.resolve("net.d").toString());
    builder.environment().put("CNI_AGENT_ONCE", "1");
    builder.environment().put("TMPDIR", dir.toString());
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    return new Result(process.exitValue(), output.strip());
  }

  private record Result(int exitCode, String output) {}

  private Path conflist() {
    return dir.resolve("net.d").resolve(RealCni.CONFLIST);
  }

  @ParameterizedTest(name = "{0} {1}: waits ({2})")
  @CsvSource(
      delimiter = ';',
      value = {
        // registered by its kubelet, the CCM not yet there
        "from-node-ip; |"
            + "|node.cloudprovider.kubernetes.io/uninitialized node.kubernetes.io/not-ready"
            + "|10.77.0.20; has the node.cloudprovider.kubernetes.io/uninitialized taint",
        // the taint gone but no provider ID (not the CCM's doing)
        "from-node-ip; ||node.kubernetes.io/not-ready|10.77.0.20; has no spec.providerID",
        "from-node-ip; sim://worker-0||node.kubernetes.io/not-ready|; has no InternalIP address",
        // the CCM allocates node CIDRs and has not yet
        "node; sim://worker-0||node.kubernetes.io/not-ready|10.77.0.20;"
            + " has no spec.podCIDR (--allocate-node-cidrs)",
      })
  void writesNoConfigurationUntilTheCcmHasInitialisedTheNode(
      String podCidr, String nodeState, String why) throws Exception {
    Result result = runOnce(podCidr, nodeState);

    assertThat(result.exitCode()).as(result.output()).isEqualTo(3);
    assertThat(result.output()).contains("waiting for the CCM: Node worker-0 " + why);
    assertThat(conflist()).doesNotExist();
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource(
      delimiter = ';',
      value = {
        "from-node-ip; sim://worker-0||node.kubernetes.io/not-ready|10.77.0.20; 10.244.20.0/24",
        "node; sim://worker-0|10.244.3.0/24|node.kubernetes.io/not-ready|10.77.0.20;"
            + " 10.244.3.0/24",
        "node; sim://worker-0|10.244.3.0/24||10.77.0.20 10.77.1.20; 10.244.3.0/24",
      })
  void writesTheBridgeConfigurationOnceTheCcmHasInitialisedTheNode(
      String podCidr, String nodeState, String subnet) throws Exception {
    Result result = runOnce(podCidr, nodeState);

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).contains("pod subnet " + subnet);
    String written = Files.readString(conflist());
    assertThat(written)
        .contains("\"type\": \"bridge\"", "\"type\": \"host-local\"", "\"type\": \"portmap\"")
        .contains("\"subnet\": \"" + subnet + "\"");
    assertThat(new RealCni.Written(null, written, conflist()).subnet()).isEqualTo(subnet);
    // valid JSON, as containerd reads it
    assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(written).get("plugins"))
        .hasSize(2);
  }

  @Test
  void anUnknownPodCidrModeIsAOneLineError() throws Exception {
    Result result = runOnce("allocate", "");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.output())
        .isEqualTo("POD_CIDR must be node or from-node-ip, not \"allocate\"");
  }

  @Test
  void theDaemonSetRunsOnTheHostNetworkOnEveryNodeWhateverItsTaints() throws IOException {
    try (var client = new KubernetesClientBuilder().build()) {
      List<HasMetadata> objects = RealCni.objects(client, true);

      DaemonSet daemonSet =
          objects.stream()
              .filter(DaemonSet.class::isInstance)
              .map(DaemonSet.class::cast)
              .findFirst()
              .orElseThrow();
      var spec = daemonSet.getSpec().getTemplate().getSpec();
      assertThat(spec.getHostNetwork()).isTrue();
      // one toleration without a key: every taint (uninitialized, not-ready, control-plane, ...)
      assertThat(spec.getTolerations())
          .singleElement()
          .satisfies(
              t -> {
                assertThat(t.getKey()).isNull();
                assertThat(t.getOperator()).isEqualTo("Exists");
                assertThat(t.getEffect()).isNull();
              });
      var container = spec.getContainers().getFirst();
      assertThat(container.getImage()).isEqualTo(RealCni.IMAGE);
      assertThat(container.getEnv())
          .anySatisfy(
              e -> {
                assertThat(e.getName()).isEqualTo("POD_CIDR");
                assertThat(e.getValue()).isEqualTo("node");
              });
      assertThat(spec.getVolumes().getFirst().getHostPath().getPath()).isEqualTo("/etc/cni/net.d");
    }
    assertThat(RealCni.manifest(false)).contains("{name: POD_CIDR, value: from-node-ip}");
  }
}
