package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What {@code deploy/} promises beyond the doctor's rules: least privilege and bounded memory. */
class DeployManifestsTest {

  private static final Path DEPLOY = Path.of("..", "deploy");

  @Test
  @SuppressWarnings("unchecked")
  void theClusterRoleGrantsOnlyWhatTheControllersUse() throws Exception {
    Map<String, Object> role =
        Manifests.read(List.of(DEPLOY.resolve("rbac.yaml"))).stream()
            .filter(d -> d.kind().equals("ClusterRole"))
            .findFirst()
            .orElseThrow()
            .object();

    List<Map<String, Object>> rules = (List<Map<String, Object>>) role.get("rules");
    assertThat(rules)
        .flatExtracting(r -> (List<String>) r.get("resources"))
        .containsExactlyInAnyOrder(
            "events",
            "nodes",
            "nodes/status",
            "services",
            "services/status",
            "tokenreviews",
            "subjectaccessreviews");
    assertThat(rules).flatExtracting(r -> (List<String>) r.get("verbs")).doesNotContain("*");
    assertThat(rules)
        .filteredOn(r -> ((List<String>) r.get("resources")).contains("nodes"))
        .singleElement()
        .satisfies(
            r ->
                assertThat((List<String>) r.get("verbs"))
                    .containsExactlyInAnyOrder(
                        "get", "list", "watch", "update", "patch", "delete"));
  }

  @Test
  void theDeploymentHasAMemoryLimitAndNamesNoCloud() throws Exception {
    CcmWorkload workload =
        Doctor.workloads(Manifests.read(List.of(DEPLOY.resolve("deployment.yaml")))).getFirst();

    var resources = workload.pod().getContainers().getFirst().getResources();
    assertThat(resources.getLimits()).containsKey("memory");
    // No default cloud: the operator names theirs, or the manager refuses to start.
    assertThat(workload.pod().getContainers().getFirst().getArgs())
        .noneMatch(arg -> arg.startsWith("--cloud-provider"));
    assertThat(Files.readString(DEPLOY.resolve("deployment.yaml")))
        .contains("# - --cloud-provider=<your cloud>    # required");
  }
}
