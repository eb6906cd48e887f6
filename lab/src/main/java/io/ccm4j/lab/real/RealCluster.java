package io.ccm4j.lab.real;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lab's real nodes on this machine: a cluster network (a network and PID namespace of its own
 * with a bridge, and a relay to the API server on the loopback) and one network, mount and PID
 * namespace per node with its containerd and kubelet. This machine's root network namespace,
 * firewall, mounts and cgroup mounts are never changed; what does change is host-wide and put back
 * by {@link #close()}: three kernel flags the kubelet writes ({@link HostSysctls}) and the nodes'
 * cgroups, {@code /sys/fs/cgroup/<hierarchy>/ccm4j-lab-<node>}.
 *
 * <p>Every namespace belongs to a process whose standard input is a pipe from this JVM: closing it,
 * or this JVM dying however it dies (even SIGKILL), ends that process, whereupon the kernel kills
 * the rest of its PID namespace (kubelet, containerd, shims, containers) and removes the namespaces
 * with their mounts, links and addresses. What a killed run cannot put back (the cgroups, the
 * kernel flags) the next run does first ({@link #open}). One real lab at a time per machine: a lock
 * in {@link #DIRECTORY} says so.
 */
public final class RealCluster implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RealCluster.class);

  /** The lab's files: scripts, images, the nodes' configuration and logs (kept for reading). */
  public static final Path DIRECTORY =
      Path.of(System.getProperty("java.io.tmpdir"), "ccm4j-real-lab");

  private static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  /** The directory of the lab's cloud state (the {@code local} cloud's route table). */
  private static final String CLOUD = "cloud";

  /** A node to start. */
  public record Node(String name, String ip, List<String> kubeletFlags) {}

  private final Path directory;
  private final FileChannel lockChannel;
  private final FileLock lock;
  private final Path binaries;
  private final HostSysctls sysctls;
  private final Map<String, Process> nodes = new LinkedHashMap<>();
  private Process network;
  private long networkPid;
  private boolean closed;

  /** Ctrl-C or SIGTERM: the nodes end with the JVM anyway; this puts back cgroups and flags too. */
  private final Thread onShutdown = new Thread(this::close, "ccm4j-real-lab-cleanup");

  private RealCluster(Path directory, FileChannel lockChannel, FileLock lock, Path binaries) {
    this.directory = directory;
    this.lockChannel = lockChannel;
    this.lock = lock;
    this.binaries = binaries;
    this.sysctls = new HostSysctls(directory.resolve("sysctls.saved"));
  }

  /**
   * Takes the machine's real lab (one at a time), puts back what a killed run left (cgroups, kernel
   * flags) and writes the scripts and the nodes' images.
   *
   * @param binaries the directory of the kubelet (of the control plane's release)
   * @param standIns images to tag as stand-ins (a container that sleeps whatever its arguments)
   * @param tarballs images every node imports as they are (docker-archive tarballs)
   */
  public static RealCluster open(Path binaries, List<String> standIns, List<Path> tarballs)
      throws IOException {
    Path directory = DIRECTORY;
    Files.createDirectories(directory);
    FileChannel channel =
        FileChannel.open(
            directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock = channel.tryLock();
    if (lock == null) {
      channel.close();
      throw new IllegalStateException(
          "another lab on real kubelets runs on this machine (" + directory.resolve("lock") + ")");
    }
    RealCluster cluster = new RealCluster(directory, channel, lock, binaries);
    Runtime.getRuntime().addShutdownHook(cluster.onShutdown);
    try {
      cluster.sysctls.restoreLeftover();
      removeCgroups(List.of());
      deleteTree(directory.resolve("nodes"));
      deleteTree(directory.resolve("images"));
      deleteTree(directory.resolve(CLOUD));
      // the cloud's state, which the CCM container (not root) keeps in a host directory
      Files.createDirectories(directory.resolve(CLOUD));
      Files.setPosixFilePermissions(
          directory.resolve(CLOUD), PosixFilePermissions.fromString("rwxrwxrwx"));
      for (String script :
          List.of("cluster-network.sh", "real-node.sh", "node-images.sh", "cni-agent.sh")) {
        try (InputStream in = RealCluster.class.getResourceAsStream(script)) {
          if (in == null) {
            throw new IllegalStateException(script + " is missing from the class path");
          }
          Files.write(directory.resolve(script), in.readAllBytes());
        }
      }
      List<String> command =
          new ArrayList<>(
              List.of(
                  "sh",
                  directory.resolve("node-images.sh").toString(),
                  directory.resolve("images").toString()));
      command.addAll(standIns);
      cluster.runToEnd(command, "writing the nodes' images");
      for (int i = 0; i < tarballs.size(); i++) {
        Files.createSymbolicLink(
            directory.resolve("images").resolve("imported-" + i + ".tar"),
            tarballs.get(i).toAbsolutePath());
      }
      return cluster;
    } catch (IOException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * Starts the cluster network, with the relay to the API server on the loopback's {@code port}.
   */
  public void startNetwork(int apiServerPort) throws IOException {
    network =
        start(
            List.of(
                "unshare",
                "--net",
                "--pid",
                "--fork",
                "--kill-child",
                "sh",
                directory.resolve("cluster-network.sh").toString(),
                directory.toString(),
                Integer.toString(apiServerPort),
                Long.toString(ProcessHandle.current().pid())),
            directory.resolve("cluster-network.log"),
            Map.of());
    awaitLine(network, directory.resolve("cluster-network.log"), "ready");
    networkPid = firstChild(network);
  }

  /**
   * Starts a node: its namespaces, then the veth pair from the cluster network's bridge into them
   * (named after the node), then its containerd and kubelet.
   */
  public void startNode(Node node, String adminKubeconfig) throws IOException {
    Path dir = Files.createDirectories(directory.resolve("nodes").resolve(node.name()));
    Files.writeString(dir.resolve("containerd.toml"), RealNodeFiles.containerdConfig());
    Files.writeString(dir.resolve("kubelet.yaml"), RealNodeFiles.kubeletConfig(node.name()));
    Files.writeString(dir.resolve("kubeconfig"), RealNodeFiles.kubeconfig(adminKubeconfig));
    if (nodes.isEmpty()) {
      sysctls.save();
    }
    Path logFile = dir.resolve("node.log");
    Process process =
        start(
            List.of(
                "unshare",
                "--net",
                "--mount",
                "--pid",
                "--uts",
                "--fork",
                "--kill-child",
                "--propagation",
                "private",
                "sh",
                directory.resolve("real-node.sh").toString(),
                node.name(),
                node.ip(),
                dir.toString(),
                directory.toString()),
            logFile,
            Map.of("KUBELET_EXTRA_ARGS", String.join(" ", node.kubeletFlags())));
    nodes.put(node.name(), process);
    awaitLine(process, logFile, "started");
    long nodePid = firstChild(process);
    String veth = "v-" + node.name();
    inNetwork(
        List.of(
            "ip",
            "link",
            "add",
            veth,
            "type",
            "veth",
            "peer",
            "name",
            "eth0",
            "netns",
            Long.toString(nodePid)));
    inNetwork(List.of("ip", "link", "set", veth, "master", "br0", "up"));
    awaitLine(process, logFile, "ready");
  }

  /**
   * An HTTP GET from the cluster network (where the nodes' addresses are reachable); the response,
   * or what went wrong.
   */
  public String httpGet(String ip, int port) throws IOException {
    return httpGet(networkPid, ip, port, "/");
  }

  private static String httpGet(long netnsPid, String ip, int port, String path)
      throws IOException {
    Process get =
        new ProcessBuilder(
                "nsenter",
                "--net=/proc/%d/ns/net".formatted(netnsPid),
                "socat",
                "-T",
                "5",
                "-",
                "TCP:%s:%d,connect-timeout=5".formatted(ip, port))
            .redirectErrorStream(true)
            .start();
    try (var in = get.getOutputStream()) {
      in.write(
          "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n"
              .formatted(path, ip)
              .getBytes(StandardCharsets.US_ASCII));
    }
    try {
      String response = new String(get.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      get.waitFor(10, TimeUnit.SECONDS);
      return response;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      get.destroyForcibly();
      return "interrupted";
    }
  }

  /**
   * An HTTP GET from a pod's network namespace (the pod whose process has {@code POD_IP=<podIp>} in
   * its environment, as the lab's web pods do); the response, or what went wrong.
   */
  public String httpGetFromPod(String podIp, String ip, int port, String path) throws IOException {
    Optional<Long> pid = processWithEnvironment("POD_IP=" + podIp);
    if (pid.isEmpty()) {
      return "no process of the pod with IP " + podIp + " on this machine";
    }
    return httpGet(pid.get(), ip, port, path);
  }

  /** A process of this machine with the variable in its environment (e.g. {@code POD_IP=...}). */
  private static Optional<Long> processWithEnvironment(String variable) throws IOException {
    try (Stream<Path> proc = Files.list(Path.of("/proc"))) {
      for (Path dir : proc.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        try {
          String environment =
              new String(Files.readAllBytes(dir.resolve("environ")), StandardCharsets.UTF_8);
          if (List.of(environment.split("\0")).contains(variable)) {
            return Optional.of(Long.parseLong(dir.getFileName().toString()));
          }
        } catch (IOException e) {
          // ended meanwhile, or not ours to read
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Makes the cluster network's routes to the nodes' pod networks what the cloud's route table
   * says: each destination CIDR via its node's address on the bridge. Routes of this kind that the
   * table no longer has are removed.
   *
   * @param routes destination CIDR to the address of the node it leads to
   */
  public void programRoutes(Map<String, String> routes) throws IOException {
    Map<String, String> present = new LinkedHashMap<>();
    for (String line : clusterRoutes(ROUTE_PROTOCOL).lines().toList()) {
      String[] words = line.trim().split("\\s+");
      if (words.length >= 3 && words[1].equals("via")) {
        present.put(words[0], words[2]);
      }
    }
    for (Map.Entry<String, String> route : present.entrySet()) {
      if (!route.getValue().equals(routes.get(route.getKey()))) {
        inNetwork(List.of("ip", "route", "del", route.getKey(), "proto", ROUTE_PROTOCOL));
      }
    }
    for (Map.Entry<String, String> route : routes.entrySet()) {
      if (!route.getValue().equals(present.get(route.getKey()))) {
        inNetwork(
            List.of(
                "ip",
                "route",
                "replace",
                route.getKey(),
                "via",
                route.getValue(),
                "proto",
                ROUTE_PROTOCOL));
      }
    }
  }

  /** The cluster network's IPv4 routes ({@code ip route} lines), all or of one protocol. */
  public String clusterRoutes(String protocol) throws IOException {
    List<String> command = new ArrayList<>(List.of("ip", "-4", "route", "show"));
    if (!protocol.isEmpty()) {
      command.addAll(List.of("proto", protocol));
    }
    List<String> full =
        new ArrayList<>(List.of("nsenter", "--net=/proc/%d/ns/net".formatted(networkPid)));
    full.addAll(command);
    return runToEnd(full, String.join(" ", command));
  }

  /**
   * The protocol the lab's cloud routes carry in the cluster network ({@code ip route ... proto}).
   */
  public static final String ROUTE_PROTOCOL = "static";

  /** The directory of the lab's cloud state, which CCM pods mount from their node. */
  public static Path cloudDirectory() {
    return DIRECTORY.resolve(CLOUD);
  }

  /**
   * Runs a command in a node's network namespace (as a cloud's network would act on it); its
   * output.
   */
  public String inNode(String node, List<String> command) throws IOException {
    Process process = nodes.get(node);
    if (process == null) {
      throw new IllegalArgumentException("no node " + node);
    }
    List<String> full =
        new ArrayList<>(List.of("nsenter", "--net=/proc/%d/ns/net".formatted(firstChild(process))));
    full.addAll(command);
    return runToEnd(full, node + ": " + String.join(" ", command));
  }

  /** The directory of a node's configuration and logs. */
  public Path nodeDirectory(String node) {
    return directory.resolve("nodes").resolve(node);
  }

  /** Ends every node and the cluster network, and puts back the cgroups and kernel flags. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (Thread.currentThread() != onShutdown) {
      try {
        Runtime.getRuntime().removeShutdownHook(onShutdown);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook waits for this close
      }
    }
    List<Process> all = new ArrayList<>(nodes.values());
    if (network != null) {
      all.add(network);
    }
    for (Process process : all) {
      try {
        process.getOutputStream().close();
      } catch (IOException e) {
        process.destroyForcibly();
      }
    }
    for (Process process : all) {
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
    removeCgroups(new ArrayList<>(nodes.keySet()));
    nodes.clear();
    network = null;
    sysctls.restore();
    try {
      lock.release();
      lockChannel.close();
    } catch (IOException e) {
      log.warn("cannot release {}: {}", directory.resolve("lock"), e.getMessage());
    }
  }

  private Process start(List<String> command, Path logFile, Map<String, String> env)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectOutput(logFile.toFile())
            .redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.PIPE);
    builder.environment().put("PATH", binaries + ":" + PATH);
    builder.environment().putAll(env);
    return builder.start();
  }

  private void inNetwork(List<String> command) throws IOException {
    List<String> full =
        new ArrayList<>(List.of("nsenter", "--net=/proc/%d/ns/net".formatted(networkPid)));
    full.addAll(command);
    runToEnd(full, String.join(" ", command));
  }

  private String runToEnd(List<String> command, String what) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("PATH", binaries + ":" + PATH);
    Process process = builder.start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException(what + " failed: " + output.strip());
      }
      return output;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(what + " was interrupted", e);
    }
  }

  /** Waits until the process's log has the line, or it ends (an error naming its log). */
  private static void awaitLine(Process process, Path logFile, String line) throws IOException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      String text = Files.exists(logFile) ? Files.readString(logFile) : "";
      if (text.lines().anyMatch(line::equals)) {
        return;
      }
      if (!process.isAlive()) {
        throw new IOException(
            "%s ended before it was %s: %s".formatted(logFile.getFileName(), line, text.strip()));
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted", e);
      }
    }
    throw new IOException("not %s after 60 s; see %s".formatted(line, logFile));
  }

  /** The PID (as this machine sees it) of the namespaces' first process: unshare's child. */
  private static long firstChild(Process unshare) throws IOException {
    return unshare
        .toHandle()
        .children()
        .findFirst()
        .map(ProcessHandle::pid)
        .orElseThrow(() -> new IOException("unshare has no child process"));
  }

  /**
   * Removes the nodes' cgroups, deepest first; the named nodes' (after their processes were killed,
   * which the kernel finishes asynchronously) with retries, every other {@code ccm4j-lab-*} (a
   * killed run's) once.
   */
  static void removeCgroups(List<String> justStopped) {
    Path root = Path.of("/sys/fs/cgroup");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(justStopped.isEmpty() ? 0 : 15);
    do {
      List<Path> left = cgroups(root);
      left.forEach(RealCluster::removeTree);
      if (cgroups(root).isEmpty()) {
        return;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    } while (System.nanoTime() < deadline);
    cgroups(root).forEach(p -> log.warn("cannot remove the cgroup {} (processes left in it?)", p));
  }

  private static List<Path> cgroups(Path root) {
    List<Path> found = new ArrayList<>();
    try (Stream<Path> hierarchies = Files.list(root)) {
      for (Path hierarchy : hierarchies.toList()) {
        try (Stream<Path> children = Files.list(hierarchy)) {
          children
              .filter(p -> p.getFileName().toString().startsWith("ccm4j-lab-"))
              .filter(Files::isDirectory)
              .forEach(found::add);
        } catch (IOException e) {
          // not a hierarchy
        }
      }
    } catch (IOException e) {
      return List.of();
    }
    return found;
  }

  private static void removeTree(Path cgroup) {
    try (Stream<Path> tree = Files.walk(cgroup)) {
      for (Path dir : tree.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList()) {
        try {
          Files.delete(dir);
        } catch (IOException e) {
          // busy: retried
        }
      }
    } catch (IOException | UncheckedIOException e) {
      // gone meanwhile, or retried
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> tree = Files.walk(dir)) {
      for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
