package io.ccm4j.controlplane;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the control-plane binaries are: {@code $KUBEBUILDER_ASSETS} (the envtest convention), else
 * the cache that {@code install-control-plane.sh} fills ({@code $CCM4J_CACHE}, default {@code
 * ~/.cache/ccm4j}), else the result of running that script, which builds them from Debian's
 * packages.
 */
public record ControlPlaneBinaries(Path directory) {

  /** The Kubernetes version the install script builds. */
  public static final String KUBERNETES_VERSION = "1.20.2";

  private static final String INSTALL_SCRIPT = "install-control-plane.sh";

  public Path etcd() {
    return directory.resolve("etcd");
  }

  public Path kubeApiserver() {
    return directory.resolve("kube-apiserver");
  }

  public Path kubeScheduler() {
    return directory.resolve("kube-scheduler");
  }

  public Path kubeControllerManager() {
    return directory.resolve("kube-controller-manager");
  }

  public Path kubectl() {
    return directory.resolve("kubectl");
  }

  /** Finds the binaries, installing them if nothing provides them yet. */
  public static ControlPlaneBinaries resolve() {
    return find(System.getenv()).orElseGet(ControlPlaneBinaries::install);
  }

  /** Finds binaries already present, without installing anything. */
  static Optional<ControlPlaneBinaries> find(Map<String, String> env) {
    String assets = env.get("KUBEBUILDER_ASSETS");
    if (assets != null && !assets.isBlank()) {
      ControlPlaneBinaries candidate = new ControlPlaneBinaries(Path.of(assets));
      if (Files.isExecutable(candidate.kubeApiserver()) && Files.isExecutable(candidate.etcd())) {
        return Optional.of(candidate);
      }
    }
    ControlPlaneBinaries cached = new ControlPlaneBinaries(cacheDirectory(env));
    if (List.of(cached.etcd(), cached.kubeApiserver(), cached.kubeScheduler(), cached.kubectl())
        .stream()
        .allMatch(Files::isExecutable)) {
      return Optional.of(cached);
    }
    return Optional.empty();
  }

  static Path cacheDirectory(Map<String, String> env) {
    String cache = env.get("CCM4J_CACHE");
    Path root =
        cache != null && !cache.isBlank()
            ? Path.of(cache)
            : Path.of(System.getProperty("user.home"), ".cache", "ccm4j");
    return root.resolve("k8s-" + KUBERNETES_VERSION).resolve("bin");
  }

  /** Runs the bundled install script; its progress goes to this process's standard error. */
  static ControlPlaneBinaries install() {
    try {
      Path script = Files.createTempFile("ccm4j-install-control-plane", ".sh");
      try (InputStream in = ControlPlaneBinaries.class.getResourceAsStream(INSTALL_SCRIPT)) {
        if (in == null) {
          throw new IllegalStateException(INSTALL_SCRIPT + " is missing from the class path");
        }
        Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
      }
      try {
        Process process =
            new ProcessBuilder("bash", script.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        List<String> lines = output.lines().filter(line -> !line.isBlank()).toList();
        if (exit != 0 || lines.isEmpty()) {
          throw new IllegalStateException(
              "installing the control-plane binaries failed (exit code %d); see the output above"
                  .formatted(exit));
        }
        return new ControlPlaneBinaries(Path.of(lines.getLast().trim()));
      } finally {
        Files.deleteIfExists(script);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + INSTALL_SCRIPT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while installing the control-plane binaries", e);
    }
  }
}
