package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code kubectl apply -f deploy/} does to a real cluster with a NotReady node: the manager
 * runs with the manifest's own arguments (and the cluster's credentials, as a pod has them) and
 * deletes nothing. It names no cloud, so it refuses to start naming the flag to set; with the
 * simulation it once shipped with, it refuses too, for want of a cloud config.
 */
@WithControlPlane
class DeployManifestSafetyIT {

  private static final Path DEPLOYMENT = Path.of("..", "deploy", "deployment.yaml");

  @TempDir Path temp;

  private KubernetesClient client;
  private String node;

  @BeforeEach
  void aNotReadyNodeWithAProviderId(KubernetesClient client) {
    this.client = client;
    node = "prod-node-" + UUID.randomUUID().toString().substring(0, 8);
    Node created =
        client
            .resource(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName(node)
                    .endMetadata()
                    .withNewSpec()
                    .withProviderID("sim://" + node)
                    .endSpec()
                    .build())
            .create();
    created.setStatus(
        new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
            .addNewCondition()
            .withType("Ready")
            .withStatus("False")
            .withReason("KubeletNotReady")
            .endCondition()
            .build());
    client.resource(created).updateStatus();
  }

  @AfterEach
  void deleteTheNode() {
    client.nodes().withName(node).delete();
  }

  @Test
  void theManifestAsShippedRefusesToStartNamingTheCloudProviderAndDeletesNothing(
      LocalControlPlane controlPlane) throws Exception {
    Run run = run(controlPlane, deployArguments());

    assertThat(run.exitCode()).as("output: %s", run.output()).isEqualTo(2);
    assertThat(run.output())
        .contains("--cloud-provider cannot be empty: name your cloud (known: ")
        .doesNotContain("\tat ");
    assertThat(client.nodes().withName(node).get()).as("the NotReady node").isNotNull();
  }

  @Test
  void theSimulationWithoutACloudConfigRefusesToStartAndDeletesNothing(
      LocalControlPlane controlPlane) throws Exception {
    List<String> args = deployArguments();
    args.add(args.indexOf("run") + 1, "--cloud-provider=sim");

    Run run = run(controlPlane, args);

    assertThat(run.exitCode()).as("output: %s", run.output()).isEqualTo(2);
    assertThat(run.output())
        .contains("--cloud-config: the sim cloud is a simulation and needs one")
        .doesNotContain("\tat ");
    assertThat(client.nodes().withName(node).get()).as("the NotReady node").isNotNull();
  }

  /** The container's arguments in deploy/deployment.yaml, exactly. */
  private static List<String> deployArguments() throws Exception {
    Deployment deployment = Serialization.unmarshal(Files.readString(DEPLOYMENT), Deployment.class);
    return new ArrayList<>(
        deployment.getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs());
  }

  private record Run(int exitCode, String output) {}

  /**
   * {@code ccm4j run} in its own JVM with those arguments and, as a pod has in-cluster credentials,
   * the control plane's kubeconfig. A manager that did start would still run after a minute.
   */
  private Run run(LocalControlPlane controlPlane, List<String> args) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command =
        new ArrayList<>(
            List.of(java, "-cp", System.getProperty("java.class.path"), Ccm4j.class.getName()));
    command.addAll(args);
    command.add("--kubeconfig=" + controlPlane.kubeconfigPath());
    Path log = temp.resolve("ccm4j.log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      boolean exited = process.waitFor(60, TimeUnit.SECONDS);
      assertThat(exited)
          .as("the manager refused to start; log:%n%s", Files.readString(log))
          .isTrue();
      return new Run(process.exitValue(), Files.readString(log));
    } finally {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
