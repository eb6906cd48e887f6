package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DoctorTest {

  private static final Path DEPLOY = Path.of("..", "deploy");
  private static final Path SCENARIOS =
      Path.of("src", "main", "resources", "io", "ccm4j", "doctor", "scenarios");
  private static final Path BROKEN = Path.of("src", "test", "resources", "broken.yaml");

  @TempDir Path temp;

  private static List<String> errors(List<Finding> findings) {
    return findings.stream()
        .filter(f -> f.severity() == Rule.Severity.ERROR)
        .map(Finding::rule)
        .toList();
  }

  @Test
  void theRecommendedDeploymentReportsNothing() throws Exception {
    List<ManifestDocument> documents = Manifests.read(List.of(DEPLOY));

    assertThat(Doctor.workloads(documents)).hasSize(1);
    assertThat(Doctor.examine(documents)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "missing-uninitialized-toleration.yaml, tolerate-uninitialized",
    "not-ready-noexecute.yaml, tolerate-not-ready",
    "pod-network.yaml, host-network",
    "replicas-without-leader-election.yaml, leader-election",
    "control-plane-only-taint.yaml, tolerate-control-plane",
  })
  void eachDeadlockingScenarioIsAnErrorOfItsRule(String file, String rule) throws Exception {
    List<Finding> findings = Doctor.examine(Manifests.read(List.of(SCENARIOS.resolve(file))));

    assertThat(errors(findings)).containsExactly(rule);
    Finding finding = findings.getFirst();
    assertThat(finding.seed()).isEqualTo("004");
    assertThat(finding.consequence()).isNotBlank();
    assertThat(finding.fix()).isNotBlank();
    assertThat(finding.file()).endsWith(file);
  }

  @Test
  void fixingEveryScenarioLeavesNoError() throws Exception {
    for (Path file : Files.list(SCENARIOS).toList()) {
      List<CcmWorkload> workloads = Doctor.workloads(Manifests.read(List.of(file)));
      workloads.forEach(Doctor::fix);
      Path fixed = temp.resolve(file.getFileName());
      Files.writeString(
          fixed, workloads.stream().map(CcmWorkload::toYaml).collect(Collectors.joining("---\n")));

      assertThat(errors(Doctor.examine(Manifests.read(List.of(fixed)))))
          .as(file.toString())
          .isEmpty();
    }
  }

  @Test
  void workloadsInsideAListAreFoundAndADaemonSetNeedsNoAntiAffinity() throws Exception {
    List<Finding> findings =
        Doctor.examine(Manifests.read(List.of(SCENARIOS.resolve("list-daemonset.yaml"))));

    assertThat(findings).extracting(Finding::kind).containsOnly("DaemonSet");
    assertThat(findings)
        .extracting(Finding::rule)
        .containsExactlyInAnyOrder(
            "tolerate-uninitialized",
            "tolerate-not-ready",
            "host-network",
            "control-plane-placement");
  }

  @Test
  void unreadableInputNamesTheFileAndLine() {
    assertThatThrownBy(() -> Manifests.read(List.of(BROKEN)))
        .isInstanceOf(ManifestException.class)
        .hasMessageMatching("(?s).*broken.yaml:[1-9][0-9]*: .*")
        .hasMessageContaining("not valid YAML");
    assertThatThrownBy(() -> Manifests.read(List.of(temp.resolve("missing.yaml"))))
        .isInstanceOf(ManifestException.class)
        .hasMessageContaining("missing.yaml: no such file or directory");
  }
}
