package io.ccm4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./ccm4j} launcher's class-data archive for {@code run}, through the script itself: an
 * archive maps the classes of the start it was written by, so {@code run --help} has one of its own
 * and a run that stopped before its controllers started (here: a kubeconfig that is not there)
 * leaves one the next run writes again; once a run has started its controllers, its archive stays.
 */
@WithControlPlane
class LauncherClassDataIT {

  private static final Path LAUNCHER = Path.of("..", "ccm4j").toAbsolutePath().normalize();

  @Test
  void runKeepsTheArchiveOfARunThatStartedItsControllersOnly(
      LocalControlPlane controlPlane, @TempDir Path dir) throws Exception {
    Path cds = dir.resolve("cache").resolve("ccm4j").resolve("cds");

    assertThat(launch(dir, "run", "--help").waitFor()).isZero();
    assertThat(names(cds)).singleElement().asString().matches("run-help-\\d+-\\d+\\.jsa");

    Process stopped = launch(dir, "run", "--kubeconfig=" + dir.resolve("no-such-kubeconfig"));
    assertThat(stopped.waitFor()).as(log(dir)).isEqualTo(2);
    Path archive = runArchive(cds);
    Path started = archive.resolveSibling(archive.getFileName() + ".started");
    assertThat(started).doesNotExist();
    long stoppedRunsArchive = Files.size(archive);

    // An instances section (empty), so the sim cloud offers the instances cloud-node needs.
    Path cloudConfig = Files.writeString(dir.resolve("sim.yaml"), "instances: []\n");
    Process manager =
        launch(
            dir,
            "run",
            "--cloud-provider=sim",
            "--cloud-config=" + cloudConfig,
            "--kubeconfig=" + controlPlane.kubeconfigPath(),
            "--leader-elect=false",
            "--controllers=cloud-node",
            "--secure-port=0");
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .alias("the manager started its controllers: " + log(dir))
          .until(() -> Files.exists(started) || !manager.isAlive());
      assertThat(manager.isAlive()).as(log(dir)).isTrue();
    } finally {
      manager.destroy(); // SIGTERM: the JVM writes the archive as it exits
      assertThat(manager.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(started).exists();
    assertThat(Files.size(archive))
        .as("the stopped run's archive deleted, this run's written with the classes of its start")
        .isGreaterThan(stoppedRunsArchive);
    FileTime written = Files.getLastModifiedTime(archive);
    long size = Files.size(archive);

    assertThat(launch(dir, "run", "--no-such-flag").waitFor()).isEqualTo(2);
    assertThat(Files.getLastModifiedTime(archive)).as("kept").isEqualTo(written);
    assertThat(Files.size(archive)).isEqualTo(size);
    assertThat(started).exists();
  }

  private static Process launch(Path dir, String... arguments) throws IOException {
    List<String> command = new ArrayList<>(List.of("bash", LAUNCHER.toString()));
    command.addAll(List.of(arguments));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("XDG_CACHE_HOME", dir.resolve("cache").toString());
    builder.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("launcher.log").toFile()));
    return builder.start();
  }

  private static Path runArchive(Path cds) throws IOException {
    try (Stream<Path> files = Files.list(cds)) {
      return files
          .filter(file -> file.getFileName().toString().matches("run-\\d+-\\d+\\.jsa"))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no archive of run in " + cds));
    }
  }

  private static List<String> names(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(file -> file.getFileName().toString()).toList();
    }
  }

  private static String log(Path dir) {
    try {
      return Files.readString(dir.resolve("launcher.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }
}
