package io.ccm4j.app;

import io.ccm4j.controlplane.LocalControlPlane;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** {@code ccm4j run} in its own JVM, as a cluster runs it, against the local control plane. */
final class ManagerProcess implements AutoCloseable {

  private final Process process;
  private final Path log;
  private final ManagementClient management;
  private final String leaseName;

  private ManagerProcess(Process process, Path log, int port, String leaseName) {
    this.process = process;
    this.log = log;
    this.management = new ManagementClient("127.0.0.1", port);
    this.leaseName = leaseName;
  }

  static ManagerProcess start(
      LocalControlPlane controlPlane, String leaseName, String... extraFlags) throws IOException {
    return start(System.getProperty("java.class.path"), controlPlane, leaseName, extraFlags);
  }

  /**
   * As {@link #start}, on the class path without the test classes (so no fake cloud: give {@code
   * --cloud-provider}), which is what makes it log as {@code ccm4j run} does ({@code
   * LogConfiguration}: one line per record, the API client's failures in that line) where the test
   * classes' {@code logback-test.xml} would print every stack.
   */
  static ManagerProcess startAsShipped(
      LocalControlPlane controlPlane, String leaseName, String... extraFlags) throws IOException {
    String classPath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.endsWith("test-classes") && !entry.endsWith("-tests.jar"))
            .collect(Collectors.joining(File.pathSeparator));
    return start(classPath, controlPlane, leaseName, extraFlags);
  }

  private static ManagerProcess start(
      String classPath, LocalControlPlane controlPlane, String leaseName, String... extraFlags)
      throws IOException {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-XX:+ExitOnOutOfMemoryError", // as the launcher and the image run it
                "-cp",
                classPath,
                Ccm4j.class.getName(),
                "run",
                "--bind-address=127.0.0.1",
                "--secure-port=" + port,
                // Read without a token on loopback: the tests poll its metrics.
                "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics",
                "--leader-elect-resource-name=" + leaseName));
    if (Arrays.stream(extraFlags).noneMatch(flag -> flag.startsWith("--cloud-provider="))) {
      command.add("--cloud-provider=fake");
    }
    if (Arrays.stream(extraFlags).noneMatch(flag -> flag.startsWith("--kubeconfig="))) {
      command.add("--kubeconfig=" + controlPlane.kubeconfigPath());
    }
    command.addAll(List.of(extraFlags));
    Path log = Files.createTempFile("ccm4j-run-" + leaseName, ".log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new ManagerProcess(process, log, port, leaseName);
  }

  boolean isLeader() {
    return management.isLeader(leaseName).orElse(false);
  }

  /** Whether it serves metrics yet, that is: it started and campaigns. */
  boolean isCampaigning() {
    return management.isLeader(leaseName).isPresent();
  }

  /** {@code /healthz/<check>}: its status and reason, or empty while it does not answer. */
  Optional<HttpResponse<String>> health(String check) {
    try {
      return Optional.of(management.get("/healthz/" + check));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** SIGKILL: no shutdown hook, the Lease is not released. */
  void kill() throws InterruptedException {
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  /** SIGTERM: a clean stop. */
  void terminate() {
    process.destroy();
  }

  Process process() {
    return process;
  }

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() throws Exception {
    if (process.isAlive()) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    Files.deleteIfExists(log);
  }
}
