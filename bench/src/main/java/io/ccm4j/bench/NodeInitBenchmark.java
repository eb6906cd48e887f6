package io.ccm4j.bench;

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
 * same N kubelet-shaped Nodes (status with conditions, addresses, capacity, node info) registered
 * at once by simulated kubelets in this JVM, which also watches them, the same sim cloud
 * (instances, latency), and the time from the first registration to the last untaint. Every peer is
 * a process of its own, run and measured alike. The peers:
 *
 * <ul>
 *   <li>{@link Peer#GO_FLOOR}: client-go speaking protobuf with a Node informer, doing exactly the
 *       writes a CCM costs per node (update, status patch, one event) and asking no cloud; {@link
 *       Peer#GO_FLOOR_NO_EVENTS} the same without the event;
 *   <li>{@link Peer#UPSTREAM} and {@link Peer#UPSTREAM_TUNED}: the upstream
 *       cloud-controller-manager of the control plane's release (k8s.io/cloud-provider's app) with
 *       the sim cloud in Go, at its defaults and with {@code --concurrent-node-syncs}/{@code
 *       --kube-api-qps} raised to ccm4j's;
 *   <li>{@link Peer#CCM4J}: {@code ccm4j run} as its own JVM, with the heap it is given, as {@code
 *       ./ccm4j run} starts it; {@link Peer#CCM4J_IMAGE}: as the container image starts it (see
 *       {@link ImageRootfs}).
 * </ul>
 *
 * <p>The Go peers are built by {@code bench/peers/build-peers.sh} (see {@link GoPeers}). A peer is
 * timed from its process start to the first node it initialises (one node registered before it
 * starts), then on the N nodes registered at once. Its CPU, and the API server's and etcd's (read
 * from {@code /proc}), run from that registration until the API server has taken no node or event
 * write for a while after the last untaint; its memory is the process's peak RSS. With several runs
 * the peers' order rotates (see {@link NodeInitRuns}).
 */
public final class NodeInitBenchmark {

  /** Who initialises the nodes. */
  public enum Peer {
    GO_FLOOR(
        "go-floor",
        "Go floor (client-go, protobuf, a Node informer; per node: update, status patch, event)"),
    GO_FLOOR_NO_EVENTS(
        "go-floor-no-events", "Go floor without its event writes (update, status patch)"),
    UPSTREAM("upstream", "upstream CCM, its defaults"),
    UPSTREAM_TUNED("upstream-tuned", "upstream CCM, ccm4j's concurrency and QPS"),
    CCM4J("ccm4j", "ccm4j"),
    CCM4J_IMAGE(
        "ccm4j-image",
        "ccm4j as the image runs it (its runtime, JVM options, AOT cache; from app/target's image)");

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

    /** The Go floor, with or without its events: no cloud, no start of a manager's. */
    public boolean isFloor() {
      return this == GO_FLOOR || this == GO_FLOOR_NO_EVENTS;
    }

    /** Built from bench/peers. */
    public boolean isGo() {
      return this != CCM4J && this != CCM4J_IMAGE;
    }

    /** ccm4j, however started. */
    public boolean isCcm4j() {
      return this == CCM4J || this == CCM4J_IMAGE;
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
      List<String> ccm4jFlags,
      Duration timeout,
      List<Peer> peers,
      boolean profile,
      int runs) {}

  /**
   * One peer's run ({@code round} counts from 0), or the medians of its runs. Figures a peer has no
   * such thing for are NaN (the floor has no cloud; only ccm4j reports a heap). The CPU figures,
   * the peer's, the API server's and etcd's, run from the first registration until the API server
   * has taken no node or event write for a while after the last untaint.
   */
  public record Run(
      Peer peer,
      int round,
      int initialised,
      double wallSeconds,
      double p50DelaySeconds,
      double p99DelaySeconds,
      double cpuSeconds,
      double apiServerCpuSeconds,
      double etcdCpuSeconds,
      double peakRssMiB,
      double peakHeapMiB,
      double nodeWritesPerNode,
      double eventWritesPerNode,
      Map<String, Double> apiRequestsPerNode,
      double cloudCallsPerNode,
      double startToFirstNodeSeconds,
      String note) {

    public Run {
      apiRequestsPerNode = Map.copyOf(apiRequestsPerNode);
    }

    /** Every request the API server took per node in the measured window, of any kind. */
    public double apiRequestsPerNodeTotal() {
      return apiRequestsPerNode.values().stream().mapToDouble(Double::doubleValue).sum();
    }

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

    /** Each peer's medians over its runs, in the order of {@link Settings#peers()}. */
    public List<Run> medians() {
      return NodeInitRuns.medians(settings.peers(), runs);
    }

    /** A peer's medians. */
    public Optional<Run> median(Peer peer) {
      return medians().stream().filter(r -> r.peer() == peer).findFirst();
    }

    /** This run's wall time over the Go floor's median, NaN without a floor. */
    public double ratioToFloor(Run run) {
      return median(Peer.GO_FLOOR)
          .map(floor -> run.wallSeconds() / floor.wallSeconds())
          .orElse(Double.NaN);
    }

    public boolean allInitialised() {
      // every run of every peer
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
    List<Run> runs = new ArrayList<>();
    try {
      runAll(runs);
    } finally {
      processes.close();
    }
    return new Result(settings, version, runs, Optional.ofNullable(profile));
  }

  private String version;

  private void runAll(List<Run> runs) throws Exception {
    Optional<GoPeers> goPeers = Optional.empty();
    for (int round = 0; round < settings.runs(); round++) {
      List<Peer> order = NodeInitRuns.order(settings.peers(), round);
      if (settings.runs() > 1) {
        out.printf(
            "run %d of %d: %s%n",
            round + 1, settings.runs(), String.join(", ", order.stream().map(Peer::id).toList()));
      }
      for (Peer peer : order) {
        try (LocalControlPlane controlPlane = LocalControlPlane.builder().start();
            KubernetesClient admin = controlPlane.newClient()) {
          version = controlPlane.binaries().version().toString();
          out.printf(
              "%s: control plane %s ready in %.1f s%n",
              peer.id(), version, controlPlane.startTime().toMillis() / 1000.0);
          if (peer.isGo() && goPeers.isEmpty()) {
            goPeers = Optional.of(GoPeers.build(version, out));
          }
          Run run = runPeer(peer, round, controlPlane, admin, goPeers.orElse(null));
          out.printf(
              "%s: %d/%d nodes in %.2f s, CPU %.1f s (API server %.1f s, etcd %.1f s), peak RSS"
                  + " %.0f MiB%n",
              peer.id(),
              run.initialised(),
              settings.nodes(),
              run.wallSeconds(),
              run.cpuSeconds(),
              run.apiServerCpuSeconds(),
              run.etcdCpuSeconds(),
              run.peakRssMiB());
          runs.add(run);
        }
      }
    }
  }

  /**
   * A peer as its own process, on the same load for every peer: one node registered before it
   * starts (its start to that node's untaint), then N kubelet-shaped Nodes at once, registered by
   * this JVM and watched by it. Its CPU, and the API server's and etcd's, are read from the first
   * registration until the API server has taken no node or event write for a while after the last
   * untaint (the peer's event queue drained).
   */
  private Run runPeer(
      Peer peer, int round, LocalControlPlane controlPlane, KubernetesClient admin, GoPeers goPeers)
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
    long apiServer = controlPlane.pid("kube-apiserver").orElseThrow();
    long etcd = controlPlane.pid("etcd").orElseThrow();
    try (KubeletFleet fleet = new KubeletFleet(admin, KubeletFleet.Options.withoutHeartbeats())) {
      fleet.register(NodeSpec.named(probe));
      int servingPort = freePort();
      boolean profiled = settings.profile() && peer == Peer.CCM4J;
      long started = System.nanoTime();
      Process manager =
          new ProcessBuilder(
                  switch (peer) {
                    case CCM4J -> processes.ccm4jCommand(controlPlane, cloudConfig, servingPort);
                    case CCM4J_IMAGE ->
                        processes.imageCommand(controlPlane, cloudConfig, servingPort);
                    case UPSTREAM, UPSTREAM_TUNED ->
                        processes.upstreamCommand(peer, controlPlane, cloudConfig, goPeers);
                    case GO_FLOOR, GO_FLOOR_NO_EVENTS ->
                        processes.floorCommand(peer, controlPlane, goPeers);
                  })
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      try {
        NodeInitLoad.awaitUntainted(
            untaintedAt, List.of(probe), manager, log, Duration.ofMinutes(2));
        double startToFirst = (untaintedAt.get(probe) - started) / 1e9;
        boolean cloud = !peer.isFloor();
        long callsBefore = cloud ? NodeInitMeasurements.cloudCalls(http, cloudAdminPort) : 0;
        // Let the probe's status patch and event land first: they are not the run's.
        NodeInitLoad.awaitQuiet(admin, Duration.ofSeconds(30));
        Map<String, Double> before = ApiServerMetrics.requestTotals(admin);
        double cpuBefore = ProcessStats.cpuSeconds(manager.pid());
        double apiServerBefore = ProcessStats.cpuSeconds(apiServer);
        double etcdBefore = ProcessStats.cpuSeconds(etcd);
        long start = System.nanoTime();
        List<String> names =
            IntStream.range(0, settings.nodes()).mapToObj(i -> PREFIX + i).toList();
        NodeInitLoad.register(fleet, names, registeredAt, settings.workers());
        NodeInitLoad.awaitUntainted(untaintedAt, names, manager, log, settings.timeout());
        long end =
            names.stream()
                .map(untaintedAt::get)
                .filter(java.util.Objects::nonNull)
                .mapToLong(Long::longValue)
                .max()
                .orElse(System.nanoTime());
        // The status patches and events that follow each untaint are the run's too.
        NodeInitLoad.awaitQuiet(admin, Duration.ofSeconds(60));
        double cpu = ProcessStats.cpuSeconds(manager.pid()) - cpuBefore;
        double apiServerCpu = ProcessStats.cpuSeconds(apiServer) - apiServerBefore;
        double etcdCpu = ProcessStats.cpuSeconds(etcd) - etcdBefore;
        double rss = ProcessStats.peakRssKiB(manager.pid()) / 1024.0;
        if (profiled) {
          profile = processes.profile(manager.pid(), NodeInitPeers.jfr(controlPlane));
        }
        double peakHeap =
            peer.isCcm4j() ? GcLog.peakHeapMiB(NodeInitPeers.gcLog(controlPlane)) : Double.NaN;
        Map<String, Double> after = ApiServerMetrics.requestTotals(admin);
        double calls =
            cloud
                ? NodeInitMeasurements.cloudCalls(http, cloudAdminPort) - callsBefore
                : Double.NaN;
        double[] delays =
            names.stream()
                .filter(name -> untaintedAt.containsKey(name) && registeredAt.containsKey(name))
                .mapToDouble(name -> (untaintedAt.get(name) - registeredAt.get(name)) / 1e9)
                .sorted()
                .toArray();
        int n = delays.length;
        return new Run(
            peer,
            round,
            n,
            (end - start) / 1e9,
            NodeInitMeasurements.percentile(delays, 0.50),
            NodeInitMeasurements.percentile(delays, 0.99),
            cpu,
            apiServerCpu,
            etcdCpu,
            rss,
            peakHeap,
            NodeInitMeasurements.nodeWrites(before, after) / Math.max(1, n),
            NodeInitMeasurements.eventWrites(before, after) / Math.max(1, n),
            NodeInitMeasurements.requestsPerNode(before, after, n),
            calls / Math.max(1, n),
            startToFirst,
            note(peer));
      } finally {
        watcher.close();
        manager.destroy();
        if (!manager.waitFor(20, TimeUnit.SECONDS)) {
          manager.destroyForcibly();
        }
      }
    }
  }

  private String note(Peer peer) {
    return switch (peer) {
      case CCM4J ->
          String.join(
                      " ",
                      "-Xmx" + settings.heap(),
                      "@ccm4j-run.jvmoptions",
                      String.join(" ", settings.jvmOptions()),
                      String.join(" ", settings.ccm4jFlags()))
                  .strip()
              + (processes.classDataArchive() ? ", the launcher's class-data archive" : "");
      case CCM4J_IMAGE ->
          "the image's entrypoint and JDK_JAVA_OPTIONS, -Xmx%s standing in for a pod's memory limit%s"
              .formatted(
                  settings.heap(),
                  processes.imageAotCache() ? ", its AOT cache" : ", NO AOT cache in it");
      case UPSTREAM, UPSTREAM_TUNED -> String.join(" ", processes.upstreamTuning(peer)).strip();
      case GO_FLOOR, GO_FLOOR_NO_EVENTS ->
          "no cloud; --workers=%d --qps=%s".formatted(settings.workers(), settings.kubeApiQps());
    };
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
