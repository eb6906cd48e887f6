package io.ccm4j.bench;

import io.ccm4j.app.Ccm4j;
import io.ccm4j.bench.NodeInitBenchmark.Peer;
import io.ccm4j.bench.NodeInitBenchmark.Settings;
import io.ccm4j.controlplane.LocalControlPlane;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The node-init peers as processes: the command lines of ccm4j and of the upstream CCM (at its
 * defaults or tuned), and the profile of a running ccm4j taken with the JDK's jcmd.
 */
final class NodeInitPeers {

  private final Settings settings;
  private final PrintStream out;
  private boolean classDataArchive;
  private ImageRootfs image;

  NodeInitPeers(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /** Whether ccm4j was started with the launcher's class-data archive. */
  boolean classDataArchive() {
    return classDataArchive;
  }

  List<String> ccm4jCommand(LocalControlPlane controlPlane, Path cloudConfig, int port) {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command =
        new ArrayList<>(List.of(java, "-Xmx" + settings.heap(), "-XX:+ExitOnOutOfMemoryError"));
    command.addAll(LauncherJvm.runOptions());
    if (settings.profile()) {
      command.addAll(ManagerProfile.jvmOptions());
    }
    Optional<LauncherJvm.ClassData> classData = LauncherJvm.classData("run");
    classData.ifPresent(
        archive -> {
          if (archive.exists()) {
            command.addAll(archive.jvmOptions());
            classDataArchive = true;
          } else if (settings.profile()) {
            // A JVM that is to write the archive as it exits keeps no flight recording.
            out.println(
                "ccm4j: no class-data archive for this jar yet: profiled without one (a run without"
                    + " --profile writes it)");
          } else {
            out.println(
                "ccm4j: no class-data archive for this jar yet ("
                    + archive.archive()
                    + "): this start is a cold one and the run writes it, as ./ccm4j run's first"
                    + " would");
            command.addAll(archive.jvmOptions());
            classDataArchive = true;
          }
        });
    command.add(GcLog.jvmOption(gcLog(controlPlane)));
    command.addAll(settings.jvmOptions());
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Ccm4j.class.getName()));
    command.addAll(runArguments(controlPlane, cloudConfig, port));
    return command;
  }

  /** {@code run} and its flags, for ccm4j however it is started. */
  private List<String> runArguments(LocalControlPlane controlPlane, Path cloudConfig, int port) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "run",
                "--cloud-provider=sim",
                "--cloud-config=" + cloudConfig,
                "--kubeconfig=" + controlPlane.kubeconfigPath(),
                "--leader-elect=false",
                "--controllers=cloud-node",
                "--concurrent-node-syncs=" + settings.workers(),
                "--kube-api-qps=" + settings.kubeApiQps(),
                "--kube-api-burst=" + (int) Math.max(1, settings.kubeApiQps()),
                "--bind-address=127.0.0.1",
                "--secure-port=" + port));
    if (settings.cloudQps() > 0) {
      command.add("--cloud-api-qps=" + settings.cloudQps());
    }
    command.addAll(settings.ccm4jFlags());
    return command;
  }

  /** Whether the image ccm4j-image ran holds an AOT cache. */
  boolean imageAotCache() {
    return image != null && Files.isRegularFile(image.root().resolve("app/ccm4j.aot"));
  }

  /**
   * ccm4j as the container image starts it, from the image Jib built in this checkout, unpacked
   * once into a temporary directory.
   */
  List<String> imageCommand(LocalControlPlane controlPlane, Path cloudConfig, int port)
      throws IOException, InterruptedException {
    if (image == null) {
      Path tar =
          GoPeers.checkout()
              .map(root -> root.resolve(ImageRootfs.IMAGE))
              .filter(Files::isRegularFile)
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "ccm4j-image runs the image Jib builds into app/target/ccm4j-image.tar:"
                              + " run ./mvnw -pl app -am package -DskipTests in the checkout"));
      Path dir = Files.createTempDirectory("ccm4j-bench-image");
      out.printf("ccm4j-image: unpacking %s into %s%n", tar, dir);
      image = ImageRootfs.unpack(tar, dir);
    }
    return image.command(
        List.of("-Xmx" + settings.heap(), GcLog.jvmOption(gcLog(controlPlane))),
        runArguments(controlPlane, cloudConfig, port));
  }

  /** Removes the unpacked image, if ccm4j-image ran. */
  void close() throws IOException {
    if (image != null) {
      Path dir = image.root().getParent();
      try (var paths = Files.walk(dir)) {
        for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(path);
        }
      }
      image = null;
    }
  }

  /** Where a ccm4j peer's JVM logs its collections (its peak heap, {@link GcLog}). */
  static Path gcLog(LocalControlPlane controlPlane) {
    return controlPlane.directory().resolve("ccm4j-gc.log");
  }

  static Path jfr(LocalControlPlane controlPlane) {
    return controlPlane.directory().resolve("ccm4j.jfr");
  }

  /**
   * The running manager's profile, taken at the last untaint; null, said on the output, when the
   * JDK's jcmd cannot take it.
   */
  ManagerProfile profile(long pid, Path jfr) throws InterruptedException {
    Map<String, Double> threadCpu = ProcessStats.cpuSecondsByThreadGroup(pid);
    List<String> outputs = new ArrayList<>();
    try {
      for (List<String> command : ManagerProfile.jcmdCommands(jfr)) {
        List<String> line = new ArrayList<>();
        line.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        line.add(Long.toString(pid));
        line.addAll(command);
        Process jcmd = new ProcessBuilder(line).redirectErrorStream(true).start();
        outputs.add(new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        jcmd.waitFor();
      }
      return ManagerProfile.read(jfr, threadCpu, outputs.getLast());
    } catch (IOException e) {
      out.printf(
          "ccm4j: no profile (%s)%s%n",
          e.getMessage(), outputs.isEmpty() ? "" : "; jcmd said: " + outputs.getFirst().strip());
      return null;
    }
  }

  List<String> upstreamCommand(
      Peer peer, LocalControlPlane controlPlane, Path cloudConfig, GoPeers peers) {
    List<String> command =
        new ArrayList<>(
            List.of(
                peers.upstreamCcm().toString(),
                "--cloud-provider=sim",
                "--cloud-config=" + cloudConfig,
                "--kubeconfig=" + controlPlane.kubeconfigPath(),
                "--leader-elect=false",
                "--controllers=cloud-node",
                "--secure-port=0",
                "--v=1"));
    command.addAll(upstreamTuning(peer));
    return command;
  }

  /** The Go floor as a manager: its Node informer and workers, with or without its events. */
  List<String> floorCommand(Peer peer, LocalControlPlane controlPlane, GoPeers peers) {
    return List.of(
        peers.floor().toString(),
        "--kubeconfig=" + controlPlane.kubeconfigPath(),
        "--workers=" + settings.workers(),
        "--qps=" + settings.kubeApiQps(),
        "--events=" + (peer == Peer.GO_FLOOR));
  }

  /** Upstream at its defaults (1 worker, 20 QPS, burst 30), or with ccm4j's settings. */
  List<String> upstreamTuning(Peer peer) {
    if (peer != Peer.UPSTREAM_TUNED) {
      return List.of();
    }
    return List.of(
        "--concurrent-node-syncs=" + settings.workers(),
        "--kube-api-qps=" + settings.kubeApiQps(),
        "--kube-api-burst=" + (int) Math.max(1, settings.kubeApiQps()));
  }
}
