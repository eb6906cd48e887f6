package io.ccm4j.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.runtime.serving.LocalManagerHttp;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * The node-initialisation benchmark, side by side: for each peer a fresh real control plane, the
 * same N Nodes registered at once by simulated kubelets, the same sim cloud (instances, latency),
 * and the time from the first registration to the last untaint. The peers:
 *
 * <ul>
 *   <li>{@link Peer#GO_FLOOR}: client-go speaking protobuf, doing exactly the writes registration
 *       and a CCM cost per node (create, update, status patch, one event) and nothing else;
 *   <li>{@link Peer#UPSTREAM} and {@link Peer#UPSTREAM_TUNED}: the upstream
 *       cloud-controller-manager of the control plane's release (k8s.io/cloud-provider's app) with
 *       the sim cloud in Go, at its defaults and with {@code --concurrent-node-syncs}/{@code
 *       --kube-api-qps} raised to ccm4j's;
 *   <li>{@link Peer#CCM4J}: {@code ccm4j run} as its own JVM, with the heap it is given.
 * </ul>
 *
 * <p>The Go peers are built by {@code bench/peers/build-peers.sh} (see {@link GoPeers}). A manager
 * peer is timed from its process start to the first node it initialises (one node registered before
 * it starts), then on the N nodes registered at once; its CPU is what the process used from that
 * registration to the last untaint, its memory the process's peak RSS.
 */
public final class NodeInitBenchmark {

  /** Who initialises the nodes. */
  public enum Peer {
    GO_FLOOR("go-floor", "Go floor (client-go, protobuf: create, update, status patch, event)"),
    UPSTREAM("upstream", "upstream CCM, its defaults"),
    UPSTREAM_TUNED("upstream-tuned", "upstream CCM, ccm4j's concurrency and QPS"),
    CCM4J("ccm4j", "ccm4j");

    private final String id;
    private final String title;

    Peer(String id, String title) {
      this.id = id;
      this.title = title;
    }

    public String id() {
      return id;
    }

    public String title() {
      return title;
    }

    public static Optional<Peer> byId(String id) {
      for (Peer peer : values()) {
        if (peer.id.equals(id)) {
          return Optional.of(peer);
        }
      }
      return Optional.empty();
    }
  }

  /** What to run. */
  public record Settings(
      int nodes,
      Duration cloudLatency,
      double cloudQps,
      int workers,
      double kubeApiQps,
      String heap,
      List<String> jvmOptions,
      Duration timeout,
      List<Peer> peers,
      boolean profile) {}

  /**
   * One peer's run. Figures a peer has no such thing for are NaN (the floor has no cloud and no
   * start; only ccm4j reports a heap).
   */
  public record Run(
      Peer peer,
      int initialised,
      double wallSeconds,
      double p50DelaySeconds,
      double p99DelaySeconds,
      double cpuSeconds,
      double peakRssMiB,
      double peakHeapMiB,
      double nodeWritesPerNode,
      double eventWritesPerNode,
      double cloudCallsPerNode,
      double startToFirstNodeSeconds,
      String note) {

    public double nodesPerSecond() {
      return initialised / wallSeconds;
    }

    public double cpuMillisPerNode() {
      return cpuSeconds * 1000 / Math.max(1, initialised);
    }
  }

  /** Every peer's run, against one Kubernetes release. */
  public record Result(
      Settings settings,
      String kubernetesVersion,
      List<Run> runs,
      Optional<ManagerProfile> profile) {

    public Result(Settings settings, String kubernetesVersion, List<Run> runs) {
      this(settings, kubernetesVersion, runs, Optional.empty());
    }

    public Optional<Run> run(Peer peer) {
      return runs.stream().filter(r -> r.peer() == peer).findFirst();
    }

    /** This run's wall time over the Go floor's, NaN without a floor. */
    public double ratioToFloor(Run run) {
      return run(Peer.GO_FLOOR)
          .map(floor -> run.wallSeconds() / floor.wallSeconds())
          .orElse(Double.NaN);
    }

    public boolean allInitialised() {
      return runs.stream().allMatch(r -> r.initialised() == settings.nodes());
    }

    /** One table, a row per figure and a column per peer, then its targets. */
    public void print(PrintStream out) {
      NodeInitReport.print(this, out);
    }

    /** The settings and every run, for comparing runs across commits. */
    public String toJson() throws IOException {
      return NodeInitReport.toJson(this);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "bench-";

  private final Settings settings;
  private final PrintStream out;
  private final NodeInitPeers processes;
  private ManagerProfile profile;

  public NodeInitBenchmark(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
    this.processes = new NodeInitPeers(settings, out);
  }

  public Result run() throws Exception {
    String version = null;
    Optional<GoPeers> goPeers = Optional.empty();
    List<Run> runs = new ArrayList<>();
    for (Peer peer : settings.peers()) {
      try (LocalControlPlane controlPlane = LocalControlPlane.builder().start();
          KubernetesClient admin = controlPlane.newClient()) {
        version = controlPlane.binaries().version().toString();
        out.printf(
            "%s: control plane %s ready in %.1f s%n",
            peer.id(), version, controlPlane.startTime().toMillis() / 1000.0);
        if (peer != Peer.CCM4J && goPeers.isEmpty()) {
          goPeers = Optional.of(GoPeers.build(version, out));
        }
        Run run =
            switch (peer) {
              case GO_FLOOR -> runFloor(controlPlane, admin, goPeers.orElseThrow());
              case UPSTREAM, UPSTREAM_TUNED ->
                  runManager(peer, controlPlane, admin, goPeers.orElseThrow());
              case CCM4J -> runManager(peer, controlPlane, admin, null);
            };
        out.printf(
            "%s: %d/%d nodes in %.2f s, CPU %.1f s, peak RSS %.0f MiB%n",
            peer.id(),
            run.initialised(),
            settings.nodes(),
            run.wallSeconds(),
            run.cpuSeconds(),
            run.peakRssMiB());
        runs.add(run);
      }
    }
    return new Result(settings, version, runs, Optional.ofNullable(profile));
  }

  /** The Go floor: its own registrations and writes, timed and measured by itself. */
  private Run runFloor(LocalControlPlane controlPlane, KubernetesClient admin, GoPeers peers)
      throws Exception {
    Map<String, Double> before = ApiServerMetrics.requestTotals(admin);
    Path log = controlPlane.directory().resolve("go-floor.log");
    Process floor =
        new ProcessBuilder(
                peers.floor().toString(),
                "--kubeconfig=" + controlPlane.kubeconfigPath(),
                "--nodes=" + settings.nodes(),
                "--workers=" + settings.workers(),
                "--qps=" + settings.kubeApiQps())
            .redirectError(log.toFile())
            .start();
    String output = new String(floor.getInputStream().readAllBytes());
    if (!floor.waitFor(settings.timeout().toSeconds(), TimeUnit.SECONDS)) {
      floor.destroyForcibly();
      throw new IllegalStateException("the Go floor did not finish in " + settings.timeout());
    }
    if (floor.exitValue() != 0 || output.isBlank()) {
      throw new IllegalStateException(
          "the Go floor exited with %d; see %s".formatted(floor.exitValue(), log));
    }
    JsonNode result = JSON.readTree(output);
    Map<String, Double> after = ApiServerMetrics.requestTotals(admin);
    int n = result.path("nodes").asInt();
    return new Run(
        Peer.GO_FLOOR,
        n,
        result.path("seconds").asDouble(),
        Double.NaN,
        Double.NaN,
        result.path("cpuSeconds").asDouble(),
        result.path("peakRssKiB").asLong() / 1024.0,
        Double.NaN,
        NodeInitMeasurements.nodeWrites(before, after) / n,
        NodeInitMeasurements.eventWrites(before, after) / n,
        Double.NaN,
        Double.NaN,
        "its own %d registrations included".formatted(n));
  }

  /**
   * A manager as its own process: one node registered before it starts (its start to that node's
   * untaint), then N at once.
   */
  private Run runManager(
      Peer peer, LocalControlPlane controlPlane, KubernetesClient admin, GoPeers goPeers)
      throws Exception {
    Path dir = controlPlane.directory();
    int cloudAdminPort = freePort();
    Path cloudConfig = dir.resolve("sim-bench.yaml");
    Files.writeString(
        cloudConfig,
        """
        latencyMs: %d
        qps: %s
        burst: %d
        admin: 127.0.0.1:%d
        generate:
          count: %d
          prefix: %s
          regions: {bench-1: [bench-1a, bench-1b, bench-1c]}
          instanceTypes: [sim.small, sim.large]
        """
            .formatted(
                settings.cloudLatency().toMillis(),
                settings.cloudQps(),
                (int) Math.max(1, settings.cloudQps()),
                cloudAdminPort,
                settings.nodes() + 1,
                PREFIX));
    Path log = dir.resolve(peer.id() + ".log");
    Map<String, Long> registeredAt = new ConcurrentHashMap<>();
    Map<String, Long> untaintedAt = new ConcurrentHashMap<>();
    SharedIndexInformer<Node> watcher = NodeInitLoad.watchUntaint(admin, PREFIX, untaintedAt);
    String probe = PREFIX + settings.nodes();
    HttpClient http = LocalManagerHttp.client();
    try (KubeletFleet fleet = new KubeletFleet(admin, KubeletFleet.Options.withoutHeartbeats())) {
      fleet.register(NodeSpec.named(probe));
      int servingPort = freePort();
      boolean profiled = settings.profile() && peer == Peer.CCM4J;
      long started = System.nanoTime();
      Process manager =
          new ProcessBuilder(
                  peer == Peer.CCM4J
                      ? processes.ccm4jCommand(controlPlane, cloudConfig, servingPort)
                      : processes.upstreamCommand(peer, controlPlane, cloudConfig, goPeers))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      try {
        NodeInitLoad.awaitUntainted(
            untaintedAt, List.of(probe), manager, log, Duration.ofMinutes(2));
        double startToFirst = (untaintedAt.get(probe) - started) / 1e9;
        Optional<HeapSampler> heap =
            peer == Peer.CCM4J
                ? Optional.of(new HeapSampler(http, servingPort).start())
                : Optional.empty();
        long callsBefore = NodeInitMeasurements.cloudCalls(http, cloudAdminPort);
        Map<String, Double> before = ApiServerMetrics.requestTotals(admin);
        double cpuBefore = ProcessStats.cpuSeconds(manager.pid());
        long start = System.nanoTime();
        List<String> names =
            IntStream.range(0, settings.nodes()).mapToObj(i -> PREFIX + i).toList();
        NodeInitLoad.register(fleet, names, registeredAt, settings.workers());
        NodeInitLoad.awaitUntainted(untaintedAt, names, manager, log, settings.timeout());
        double cpu = ProcessStats.cpuSeconds(manager.pid()) - cpuBefore;
        long end =
            names.stream()
                .map(untaintedAt::get)
                .filter(java.util.Objects::nonNull)
                .mapToLong(Long::longValue)
                .max()
                .orElse(System.nanoTime());
        double rss = ProcessStats.peakRssKiB(manager.pid()) / 1024.0;
        if (profiled) {
          profile = processes.profile(manager.pid(), NodeInitPeers.jfr(controlPlane));
        }
        double peakHeap = heap.map(HeapSampler::stop).orElse(Double.NaN);
        // Let the status patches and events that follow each untaint land before counting.
        Thread.sleep(1000);
        Map<String, Double> after = ApiServerMetrics.requestTotals(admin);
        long calls = NodeInitMeasurements.cloudCalls(http, cloudAdminPort) - callsBefore;
        double[] delays =
            names.stream()
                .filter(name -> untaintedAt.containsKey(name) && registeredAt.containsKey(name))
                .mapToDouble(name -> (untaintedAt.get(name) - registeredAt.get(name)) / 1e9)
                .sorted()
                .toArray();
        int n = delays.length;
        return new Run(
            peer,
            n,
            (end - start) / 1e9,
            NodeInitMeasurements.percentile(delays, 0.50),
            NodeInitMeasurements.percentile(delays, 0.99),
            cpu,
            rss,
            peakHeap,
            NodeInitMeasurements.nodeWrites(before, after) / Math.max(1, n),
            NodeInitMeasurements.eventWrites(before, after) / Math.max(1, n),
            (double) calls / Math.max(1, n),
            startToFirst,
            peer == Peer.CCM4J
                ? String.join(
                            " ",
                            "-Xmx" + settings.heap(),
                            "@ccm4j-run.jvmoptions",
                            String.join(" ", settings.jvmOptions()))
                        .strip()
                    + (processes.classDataArchive() ? ", the launcher's class-data archive" : "")
                : String.join(" ", processes.upstreamTuning(peer)).strip());
      } finally {
        watcher.close();
        manager.destroy();
        if (!manager.waitFor(20, TimeUnit.SECONDS)) {
          manager.destroyForcibly();
        }
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
