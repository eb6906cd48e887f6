package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DoctorCommandTest {

  private static final Path SCENARIOS =
      Path.of("..", "doctor", "src", "main", "resources", "io", "ccm4j", "doctor", "scenarios");
  private static final Path BROKEN =
      Path.of("..", "doctor", "src", "test", "resources", "broken.yaml");

  @TempDir Path temp;

  @Test
  void theShippedManifestsPassAndADeadlockIsAnErrorWhoseFixPasses() throws Exception {
    assertThat(Ccm4j.execute("doctor", "../deploy")).isZero();

    Path fixed = temp.resolve("fixed.yaml");
    assertThat(
            Ccm4j.execute(
                "doctor",
                SCENARIOS.resolve("missing-uninitialized-toleration.yaml").toString(),
                "--fix",
                fixed.toString()))
        .isEqualTo(1);
    assertThat(Files.readString(fixed)).contains("node.cloudprovider.kubernetes.io/uninitialized");
    assertThat(Ccm4j.execute("doctor", "-o", "json", fixed.toString())).isZero();
  }

  @Test
  void unreadableInputIsOneLineNamingFileAndLineWithExitCode2() {
    StringWriter err = new StringWriter();

    int exit = Ccm4j.execute(new PrintWriter(err, true), "doctor", BROKEN.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).containsPattern("broken.yaml:5: not valid YAML");
    assertThat(err.toString().lines()).hasSize(1);
  }

  @Test
  void twoWorkloadsWithTheSameKindAndNameKeepTheirOwnFindings() {
    StringWriter out = new StringWriter();
    var command = new picocli.CommandLine(new Ccm4j()).setOut(new PrintWriter(out, true));

    int exit =
        command.execute(
            "doctor",
            "../deploy/deployment.yaml",
            SCENARIOS.resolve("missing-uninitialized-toleration.yaml").toString());

    assertThat(exit).isEqualTo(1);
    assertThat(out.toString())
        .containsPattern(
            "Deployment/cloud-controller-manager \\(\\.\\./deploy/deployment.yaml:[0-9]+\\):"
                + " follows every recommendation")
        .containsPattern(
            "Deployment/cloud-controller-manager \\(.*missing-uninitialized-toleration.yaml:[0-9]+\\):"
                + " 1 problem");
  }

  @Test
  void aPodWithOnlyAGenerateNameIsReported() throws Exception {
    Path pod = temp.resolve("pod.yaml");
    Files.writeString(
        pod,
        """
        apiVersion: v1
        kind: Pod
        metadata: {generateName: ccm-, namespace: kube-system}
        spec: {hostNetwork: true, containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]}
        """);

    assertThat(Ccm4j.execute("doctor", pod.toString())).isEqualTo(1);
  }

  @Test
  void aMalformedWorkloadIsOneLineNamingFileAndLineWithExitCode2() throws Exception {
    Path manifest = temp.resolve("malformed.yaml");
    Files.writeString(
        manifest,
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: x}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm}
        spec:
          selector: {matchLabels: {app: ccm}}
          template:
            metadata: {labels: {app: ccm}}
            spec:
              tolerations: {key: node.kubernetes.io/not-ready}
              containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]
        """);
    StringWriter err = new StringWriter();

    int exit = Ccm4j.execute(new PrintWriter(err, true), "doctor", manifest.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString())
        .containsPattern(
            "malformed.yaml:5: not a valid Deployment \\(field spec.template.spec.tolerations\\)");
    assertThat(err.toString().lines()).hasSize(1);
  }
}
