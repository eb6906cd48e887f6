package io.ccm4j.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The order of preference of {@code install-control-plane.sh} (KUBEBUILDER_ASSETS, then the cache),
 * the one line it prints and the version setting, on stand-in binaries: nothing is built here.
 */
class InstallControlPlaneScriptTest {

  private static final Path SCRIPT =
      Path.of("src/main/resources/io/ccm4j/controlplane/install-control-plane.sh");

  @TempDir Path temp;

  private record Run(int exit, String lastLine, String log) {}

  private Run run(Map<String, String> env) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder("/bin/bash", SCRIPT.toAbsolutePath().toString());
    builder.environment().remove("KUBEBUILDER_ASSETS");
    builder.environment().remove("CCM4J_KUBERNETES_VERSION");
    // An empty cache, so that nothing this machine has built is found by accident.
    builder.environment().put("CCM4J_CACHE", temp.resolve("empty-cache").toString());
    // No go and no apt-get: a test that reached a build would fail rather than start one.
    builder.environment().put("PATH", toolsWithoutGo().toString());
    builder.environment().putAll(env);
    Path err = temp.resolve("stderr");
    Process process = builder.redirectError(err.toFile()).start();
    process.getOutputStream().close();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    List<String> lines = out.lines().toList();
    return new Run(
        process.exitValue(), lines.isEmpty() ? "" : lines.getLast(), Files.readString(err));
  }

  /** A PATH with the tools the script uses, but neither go nor apt-get. */
  private Path toolsWithoutGo() throws IOException {
    Path bin = Files.createDirectories(temp.resolve("tools"));
    for (String tool :
        List.of(
            "sed", "awk", "sort", "head", "tail", "cut", "grep", "date", "mkdir", "rm", "mv", "id",
            "dirname", "cat")) {
      executable(bin.resolve(tool), "#!/bin/sh\nexec /usr/bin/" + tool + " \"$@\"\n");
    }
    return bin;
  }

  private static void executable(Path file, String content) throws IOException {
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** Stand-ins that answer --version as the real binaries do. */
  private Path binaries(Path dir, String version) throws IOException {
    Files.createDirectories(dir);
    for (String name :
        List.of("etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager", "kubectl")) {
      executable(dir.resolve(name), "#!/bin/sh\necho 'Kubernetes " + version + "'\n");
    }
    return dir;
  }

  @Test
  void kubebuilderAssetsComeFirstWhateverTheirVersionWithAWarningWhenOld() throws Exception {
    Path assets = binaries(temp.resolve("assets"), "v1.20.2");
    binaries(
        temp.resolve("empty-cache/k8s-" + ControlPlaneBinaries.pinnedVersion() + "/bin"), "v9");

    Run run = run(Map.of("KUBEBUILDER_ASSETS", assets.toString()));

    assertThat(run.exit()).isZero();
    assertThat(run.lastLine()).isEqualTo(assets.toString());
    assertThat(run.log())
        .contains("Kubernetes v1.20.2 from KUBEBUILDER_ASSETS: " + assets)
        .contains("WARNING: Kubernetes v1.20.2 is old");
  }

  @Test
  void theCacheOfThePinnedVersionIsUsedWithoutBuilding() throws Exception {
    String pinned = ControlPlaneBinaries.pinnedVersion();
    Path cached = binaries(temp.resolve("empty-cache/k8s-" + pinned + "/bin"), "v" + pinned);

    Run run = run(Map.of());

    assertThat(run.exit()).isZero();
    assertThat(run.lastLine()).isEqualTo(cached.toString());
    assertThat(run.log().lines())
        .containsExactly(
            "install-control-plane: Kubernetes v" + pinned + " from the cache: " + cached);
  }

  @Test
  void anotherVersionIsSelectedByOneEnvironmentVariable() throws Exception {
    Path cached = binaries(temp.resolve("empty-cache/k8s-1.36.3/bin"), "v1.36.3");

    Run run = run(Map.of("CCM4J_KUBERNETES_VERSION", "v1.36.3"));

    assertThat(run.exit()).isZero();
    assertThat(run.lastLine()).isEqualTo(cached.toString());
  }

  @Test
  void aVersionThatIsNoReleaseIsRefusedNamingTheSetting() throws Exception {
    Run run = run(Map.of("CCM4J_KUBERNETES_VERSION", "latest"));

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.log()).contains("CCM4J_KUBERNETES_VERSION=latest is not a release version");
  }

  @Test
  void aSelectedVersionThatCannotBeBuiltIsAnErrorNotASilentFallback() throws Exception {
    // PATH has no go: the build from Go modules is impossible.
    Run run = run(Map.of("CCM4J_KUBERNETES_VERSION", "1.36.3"));

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.log()).contains("cannot build the Kubernetes v1.36.3");
  }

  @Test
  void nodeBinariesAreBuiltOnlyWhenAskedFor() throws Exception {
    String pinned = ControlPlaneBinaries.pinnedVersion();
    Path cached = binaries(temp.resolve("empty-cache/k8s-" + pinned + "/bin"), "v" + pinned);

    Run controlPlaneOnly = run(Map.of());
    // PATH has no go: a cache without kubelet cannot be completed, and says so.
    Run withNodes = run(Map.of("CCM4J_NODE_BINARIES", "1"));

    assertThat(controlPlaneOnly.exit()).isZero();
    assertThat(controlPlaneOnly.lastLine()).isEqualTo(cached.toString());
    assertThat(withNodes.exit()).isEqualTo(1);
    assertThat(withNodes.log()).contains("cannot build kubelet v" + pinned);
  }

  @Test
  void cachedNodeBinariesAreUsedWithoutBuilding() throws Exception {
    String pinned = ControlPlaneBinaries.pinnedVersion();
    Path cached = binaries(temp.resolve("empty-cache/k8s-" + pinned + "/bin"), "v" + pinned);
    for (String name : List.of("kubelet", "kube-proxy")) {
      executable(cached.resolve(name), "#!/bin/sh\necho 'Kubernetes v" + pinned + "'\n");
    }

    Run run = run(Map.of("CCM4J_NODE_BINARIES", "1"));

    assertThat(run.exit()).isZero();
    assertThat(run.lastLine()).isEqualTo(cached.toString());
  }
}
