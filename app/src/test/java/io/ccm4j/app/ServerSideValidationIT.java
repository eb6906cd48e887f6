package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Doctor;
import io.ccm4j.doctor.Manifests;
import io.ccm4j.doctor.Scenarios;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What users apply passes the API server's strict validation without a warning: kubectl prints the
 * server's warnings (deprecated labels, unknown fields) on every apply, and users learn to ignore
 * them.
 */
@WithControlPlane
class ServerSideValidationIT {

  @TempDir Path temp;

  private static String dryRun(LocalControlPlane controlPlane, Path manifests) throws Exception {
    Process kubectl =
        new ProcessBuilder(
                controlPlane.binaries().kubectl().toString(),
                "--kubeconfig=" + controlPlane.kubeconfigPath(),
                // Server-side: objects other tests created without kubectl's last-applied
                // annotation are no reason for a warning.
                "apply",
                "--server-side",
                "--force-conflicts",
                "--dry-run=server",
                "--validate=strict",
                "-f",
                manifests.toString())
            .redirectErrorStream(true)
            .start();
    kubectl.getOutputStream().close();
    String output = new String(kubectl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(kubectl.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(kubectl.exitValue()).as(output).isZero();
    return output;
  }

  @Test
  void theRecommendedManifestsApplyWithoutWarnings(LocalControlPlane controlPlane)
      throws Exception {
    String output = dryRun(controlPlane, Path.of("..", "deploy"));

    assertThat(output)
        .contains("deployment.apps/cloud-controller-manager")
        .doesNotContain("Warning");
  }

  @Test
  void theDoctorsFixesApplyWithoutWarnings(LocalControlPlane controlPlane) throws Exception {
    for (String scenario : Scenarios.NAMES) {
      Path broken = temp.resolve(scenario + ".yaml");
      Files.writeString(broken, Scenarios.manifest(scenario));
      List<CcmWorkload> workloads = Doctor.workloads(Manifests.read(List.of(broken)));
      for (CcmWorkload workload : workloads) {
        Doctor.fix(workload);
      }
      Path fixed = temp.resolve(scenario + "-fixed.yaml");
      Files.writeString(
          fixed, workloads.stream().map(CcmWorkload::toYaml).collect(Collectors.joining("---\n")));

      assertThat(dryRun(controlPlane, fixed)).as(scenario).doesNotContain("Warning");
    }
  }

  /**
   * What {@code doctor --fix} writes — the input's own text with only the fixed fields changed,
   * comments kept — applies without a warning too: each scenario, and a commented vendor-shaped
   * manifest with the old master label.
   */
  @Test
  void theFilesDoctorFixWritesApplyWithoutWarnings(LocalControlPlane controlPlane)
      throws Exception {
    List<Path> inputs = new java.util.ArrayList<>();
    for (String scenario : Scenarios.NAMES) {
      Path broken = temp.resolve("written-" + scenario + ".yaml");
      Files.writeString(broken, Scenarios.manifest(scenario));
      inputs.add(broken);
    }
    inputs.add(
        Path.of(
            "..",
            "doctor",
            "src",
            "test",
            "resources",
            "rewrite",
            "commented-vendor-daemonset.yaml"));
    for (Path input : inputs) {
      Path fixed = temp.resolve("fixed-" + input.getFileName());
      assertThat(Ccm4j.execute("doctor", input.toString(), "--fix", fixed.toString()))
          .as(input.toString())
          .isIn(0, 1);
      // Every comment stays but one right above a key the fix deletes, which goes with it (the
      // vendor's "# Only on the masters." above its nodeSelector).
      List<String> comments =
          Files.readString(input)
              .lines()
              .filter(l -> l.stripLeading().startsWith("#"))
              .filter(l -> !l.strip().equals("# Only on the masters."))
              .toList();
      assertThat(Files.readString(fixed).lines().toList())
          .as(input.toString())
          .containsAll(comments);

      assertThat(dryRun(controlPlane, fixed)).as(input.toString()).doesNotContain("Warning");
    }
  }
}
