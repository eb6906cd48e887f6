package io.ccm4j.lab.real;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Whether this machine can run the lab's real nodes, and if not the one capability it lacks, in one
 * line: root (namespaces, mounts, cgroups, the kubelet's sysctls), the overlay filesystem
 * (containerd's snapshotter), and the commands of Debian's packages (which {@code
 * scripts/install-real-node-packages.sh} installs when run as root).
 */
public final class RealNodeCapabilities {

  /** The commands the nodes and the cluster network run, and the Debian package of each. */
  static final List<String[]> COMMANDS =
      List.of(
          new String[] {"containerd", "containerd"},
          new String[] {"ctr", "containerd"},
          new String[] {"runc", "runc"},
          new String[] {"busybox", "busybox-static"},
          new String[] {"socat", "socat"},
          new String[] {"unshare", "util-linux"},
          new String[] {"nsenter", "util-linux"},
          new String[] {"ip", "iproute2"});

  private RealNodeCapabilities() {}

  /**
   * What is missing, or empty when real nodes can run.
   *
   * @param root whether this process runs as root
   * @param filesystems the text of {@code /proc/filesystems}
   * @param command whether a command is on the PATH
   */
  static Optional<String> missing(boolean root, String filesystems, Predicate<String> command) {
    if (!root) {
      return Optional.of(
          "real kubelets need root (network, mount and PID namespaces, cgroups, the kubelet's"
              + " sysctls); run as root");
    }
    boolean overlay =
        filesystems
            .lines()
            .map(String::strip)
            .anyMatch(line -> line.matches("(nodev\\s+)?overlay"));
    if (!overlay) {
      return Optional.of(
          "real kubelets need the overlay filesystem (containerd's overlayfs snapshotter), which"
              + " this kernel does not offer (/proc/filesystems)");
    }
    for (String[] tool : COMMANDS) {
      if (!command.test(tool[0])) {
        return Optional.of(
            "real kubelets need %s (Debian package %s); scripts/install-real-node-packages.sh"
                    .formatted(tool[0], tool[1])
                + " installs what is missing when run as root");
      }
    }
    return Optional.empty();
  }

  /** This machine's answer. */
  public static Optional<String> missingHere() {
    String filesystems;
    try {
      filesystems = Files.readString(Path.of("/proc/filesystems"));
    } catch (IOException e) {
      filesystems = "";
    }
    boolean root = "root".equals(System.getProperty("user.name")) || uid() == 0;
    return missing(root, filesystems, RealNodeCapabilities::onPath);
  }

  private static long uid() {
    try {
      return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return -1;
    }
  }

  static boolean onPath(String command) {
    String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
    for (String dir : path.split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
