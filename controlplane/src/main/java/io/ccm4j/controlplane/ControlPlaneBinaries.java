package io.ccm4j.controlplane;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The control-plane binaries and the Kubernetes version they are. Where they come from is decided
 * in one place, {@code install-control-plane.sh}: {@code $KUBEBUILDER_ASSETS} (the envtest
 * convention), else the cache ({@code $CCM4J_CACHE}, default {@code ~/.cache/ccm4j}), else a build
 * from Go modules of the version pinned in {@code control-plane.versions} (or the one {@code
 * $CCM4J_KUBERNETES_VERSION} selects), else Debian's 1.20.2 source build. The script prints that
 * choice in one line.
 */
public record ControlPlaneBinaries(Path directory, KubernetesVersion version) {

  private static final String INSTALL_SCRIPT = "install-control-plane.sh";
  private static final String VERSIONS = "control-plane.versions";
  private static ControlPlaneBinaries resolved;
  private static ControlPlaneBinaries resolvedWithNodes;

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

  /**
   * The node agent; only in a directory resolved {@linkplain #resolveWithNodeBinaries with them}.
   */
  public Path kubelet() {
    return directory.resolve("kubelet");
  }

  /** The Kubernetes version ccm4j pins: what a build from Go modules gives by default. */
  public static String pinnedVersion() {
    Properties versions = new Properties();
    try (InputStream in = ControlPlaneBinaries.class.getResourceAsStream(VERSIONS)) {
      if (in == null) {
        throw new IllegalStateException(VERSIONS + " is missing from the class path");
      }
      versions.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + VERSIONS, e);
    }
    return versions.getProperty("KUBERNETES_VERSION");
  }

  /**
   * The binaries in a directory, with the version {@code kube-apiserver --version} reports.
   *
   * @throws IllegalStateException when there is no kube-apiserver there or it names no version
   */
  public static ControlPlaneBinaries in(Path directory) {
    Path apiserver = directory.resolve("kube-apiserver");
    try {
      Process process =
          new ProcessBuilder(apiserver.toString(), "--version").redirectErrorStream(true).start();
      process.getOutputStream().close();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(apiserver + " --version failed: " + output.strip());
      }
      // "Kubernetes v1.37.2"
      String[] words = output.strip().split("\\s+");
      return new ControlPlaneBinaries(directory, KubernetesVersion.parse(words[words.length - 1]));
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + apiserver + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking " + apiserver + " its version", e);
    }
  }

  /**
   * Finds the binaries, building them if nothing provides them yet; the same answer for the rest of
   * this process.
   */
  public static synchronized ControlPlaneBinaries resolve() {
    if (resolved == null) {
      resolved = in(install(false));
    }
    return resolved;
  }

  /**
   * As {@link #resolve()}, with the node binaries of the same release beside the control plane's
   * (kubelet, kube-proxy; {@code CCM4J_NODE_BINARIES=1}), built once if the cache lacks them.
   */
  public static synchronized ControlPlaneBinaries resolveWithNodeBinaries() {
    if (resolvedWithNodes == null) {
      resolvedWithNodes = in(install(true));
    }
    return resolvedWithNodes;
  }

  /** Runs the bundled install script; its progress goes to this process's standard error. */
  private static Path install(boolean nodeBinaries) {
    try {
      Path dir = Files.createTempDirectory("ccm4j-install-control-plane");
      try {
        for (String resource : List.of(INSTALL_SCRIPT, VERSIONS)) {
          try (InputStream in = ControlPlaneBinaries.class.getResourceAsStream(resource)) {
            if (in == null) {
              throw new IllegalStateException(resource + " is missing from the class path");
            }
            Files.copy(in, dir.resolve(resource));
          }
        }
        ProcessBuilder builder =
            new ProcessBuilder("bash", dir.resolve(INSTALL_SCRIPT).toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        if (nodeBinaries) {
          builder.environment().put("CCM4J_NODE_BINARIES", "1");
        }
        Process process = builder.start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        List<String> lines = output.lines().filter(line -> !line.isBlank()).toList();
        if (exit != 0 || lines.isEmpty()) {
          throw new IllegalStateException(
              "installing the control-plane binaries failed (exit code %d); see the output above"
                  .formatted(exit));
        }
        return Path.of(lines.getLast().trim());
      } finally {
        for (String file : List.of(INSTALL_SCRIPT, VERSIONS)) {
          Files.deleteIfExists(dir.resolve(file));
        }
        Files.deleteIfExists(dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + INSTALL_SCRIPT, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while installing the control-plane binaries", e);
    }
  }
}
