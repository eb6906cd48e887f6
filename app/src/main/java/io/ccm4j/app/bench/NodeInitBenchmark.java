package io.ccm4j.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ccm4j.app.Ccm4j;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.Taints;
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
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
      Report.print(this, out);
    }

    /** The settings and every run, for comparing runs across commits. */
    public String toJson() throws IOException {
      return Report.toJson(this);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "bench-";

  private final Settings settings;
  private final PrintStream out;
  private ManagerProfile profile;
  private boolean classDataArchive;

  public NodeInitBenchmark(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
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
        nodeWrites(before, after) / n,
        eventWrites(before, after) / n,
        Double.NaN,
        Double.NaN,
        "its own %d registrations included".formatted(n));
  }

  /**
   * A manager as its own process: one node registered before it starts (its start to that node's
   * untaint), then N at once.
   */
  private Run runManager(
      Peer peer, LocalControlPlane controlPlane, KubernetesClient admin, GoPeers peers)
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
    SharedIndexInformer<Node> watcher = watchUntaint(admin, untaintedAt);
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
                      ? ccm4jCommand(controlPlane, cloudConfig, servingPort)
                      : upstreamCommand(peer, controlPlane, cloudConfig, peers))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      try {
        awaitUntainted(untaintedAt, List.of(probe), manager, log, Duration.ofMinutes(2));
        double startToFirst = (untaintedAt.get(probe) - started) / 1e9;
        Optional<HeapSampler> heap =
            peer == Peer.CCM4J
                ? Optional.of(new HeapSampler(http, servingPort).start())
                : Optional.empty();
        long callsBefore = cloudCalls(http, cloudAdminPort);
        Map<String, Double> before = ApiServerMetrics.requestTotals(admin);
        double cpuBefore = ProcessStats.cpuSeconds(manager.pid());
        long start = System.nanoTime();
        List<String> names =
            IntStream.range(0, settings.nodes()).mapToObj(i -> PREFIX + i).toList();
        register(fleet, names, registeredAt);
        awaitUntainted(untaintedAt, names, manager, log, settings.timeout());
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
          profile = profile(manager.pid(), jfr(controlPlane));
        }
        double peakHeap = heap.map(HeapSampler::stop).orElse(Double.NaN);
        // Let the status patches and events that follow each untaint land before counting.
        Thread.sleep(1000);
        Map<String, Double> after = ApiServerMetrics.requestTotals(admin);
        long calls = cloudCalls(http, cloudAdminPort) - callsBefore;
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
            percentile(delays, 0.50),
            percentile(delays, 0.99),
            cpu,
            rss,
            peakHeap,
            nodeWrites(before, after) / Math.max(1, n),
            eventWrites(before, after) / Math.max(1, n),
            (double) calls / Math.max(1, n),
            startToFirst,
            peer == Peer.CCM4J
                ? String.join(
                            " ",
                            "-Xmx" + settings.heap(),
                            "@ccm4j-run.jvmoptions",
                            String.join(" ", settings.jvmOptions()))
                        .strip()
                    + (classDataArchive ? ", the launcher's class-data archive" : "")
                : String.join(" ", upstreamTuning(peer)).strip());
      } finally {
        watcher.close();
        manager.destroy();
        if (!manager.waitFor(20, TimeUnit.SECONDS)) {
          manager.destroyForcibly();
        }
      }
    }
  }

  private List<String> ccm4jCommand(LocalControlPlane controlPlane, Path cloudConfig, int port) {
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
    command.addAll(settings.jvmOptions());
    command.addAll(
        List.of(
            "-cp",
            System.getProperty("java.class.path"),
            Ccm4j.class.getName(),
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
            "--secure-port=" + port,
            // Read without a token on loopback: the heap is sampled from its metrics.
            "--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics"));
    if (settings.cloudQps() > 0) {
      command.add("--cloud-api-qps=" + settings.cloudQps());
    }
    return command;
  }

  private static Path jfr(LocalControlPlane controlPlane) {
    return controlPlane.directory().resolve("ccm4j.jfr");
  }

  /**
   * The running manager's profile, taken at the last untaint; null, said on the output, when the
   * JDK's jcmd cannot take it.
   */
  private ManagerProfile profile(long pid, Path jfr) throws InterruptedException {
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

  private List<String> upstreamCommand(
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

  /** Upstream at its defaults (1 worker, 20 QPS, burst 30), or with ccm4j's settings. */
  private List<String> upstreamTuning(Peer peer) {
    if (peer != Peer.UPSTREAM_TUNED) {
      return List.of();
    }
    return List.of(
        "--concurrent-node-syncs=" + settings.workers(),
        "--kube-api-qps=" + settings.kubeApiQps(),
        "--kube-api-burst=" + (int) Math.max(1, settings.kubeApiQps()));
  }

  private static double nodeWrites(Map<String, Double> before, Map<String, Double> after) {
    return ApiServerMetrics.delta(before, after, "POST nodes")
        + ApiServerMetrics.delta(before, after, "PUT nodes")
        + ApiServerMetrics.delta(before, after, "PATCH nodes")
        + ApiServerMetrics.delta(before, after, "PATCH nodes/status")
        + ApiServerMetrics.delta(before, after, "PUT nodes/status");
  }

  private static double eventWrites(Map<String, Double> before, Map<String, Double> after) {
    return ApiServerMetrics.delta(before, after, "POST events")
        + ApiServerMetrics.delta(before, after, "PATCH events");
  }

  private static void awaitUntainted(
      Map<String, Long> untaintedAt,
      List<String> names,
      Process manager,
      Path log,
      Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!untaintedAt.keySet().containsAll(names) && System.nanoTime() < deadline) {
      if (!manager.isAlive()) {
        throw new IllegalStateException(
            "the manager exited with %d; see %s".formatted(manager.exitValue(), log));
      }
      Thread.sleep(20);
    }
  }

  private static SharedIndexInformer<Node> watchUntaint(
      KubernetesClient admin, Map<String, Long> untaintedAt) {
    return admin
        .nodes()
        .inform(
            new FirstTimeNodes(
                node ->
                    node.getMetadata().getName().startsWith(PREFIX)
                        && !Taints.hasKey(node, WellKnownTaints.UNINITIALIZED),
                untaintedAt));
  }

  private void register(KubeletFleet fleet, List<String> names, Map<String, Long> registeredAt)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(settings.workers());
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (String name : names) {
        futures.add(
            pool.submit(
                () -> {
                  registeredAt.put(name, System.nanoTime());
                  fleet.register(NodeSpec.named(name));
                  return null;
                }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Every instance call the sim cloud (Java or Go) has answered so far. */
  private static long cloudCalls(HttpClient http, int adminPort) throws Exception {
    String body =
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/calls"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    long total = 0;
    Matcher matcher = Pattern.compile("\"(\\w+)\":(\\d+)").matcher(body);
    while (matcher.find()) {
      if (!matcher.group(1).equals("throttled") && !matcher.group(1).equals("injectedErrors")) {
        total += Long.parseLong(matcher.group(2));
      }
    }
    return total;
  }

  static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(p * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Samples ccm4j's heap from its /metrics until stopped; the peak in MiB. */
  private static final class HeapSampler {
    private static final Pattern HEAP =
        Pattern.compile(
            "^jvm_memory_used_bytes\\{area=\"heap\",[^}]*\\} (\\S+)$", Pattern.MULTILINE);
    private final HttpClient http;
    private final int port;
    private final AtomicLong peak = new AtomicLong();
    private volatile boolean running = true;
    private Thread thread;

    HeapSampler(HttpClient http, int port) {
      this.http = http;
      this.port = port;
    }

    HeapSampler start() {
      thread = Thread.ofPlatform().daemon().name("heap-sampler").start(this::loop);
      return this;
    }

    private void loop() {
      while (running) {
        try {
          String metrics =
              http.send(
                      HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/metrics"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body();
          Matcher matcher = HEAP.matcher(metrics);
          long heap = 0;
          while (matcher.find()) {
            heap += (long) Double.parseDouble(matcher.group(1));
          }
          long sample = heap;
          peak.accumulateAndGet(sample, Math::max);
          // Every second: each scrape costs the manager CPU (the metrics text, a TLS request).
          Thread.sleep(1000);
        } catch (InterruptedException e) {
          return;
        } catch (IOException e) {
          // the manager is busy; try again
        }
      }
    }

    double stop() {
      running = false;
      thread.interrupt();
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return peak.get() / 1048576.0;
    }
  }

  /** How a {@link Result} prints itself: the table and the targets, and its JSON. */
  private static final class Report {

    private Report() {}

    /** The table: a row per figure, a column per peer; then the targets. */
    static void print(Result result, PrintStream out) {
      List<Run> runs = result.runs();
      StringBuilder header =
          new StringBuilder("| %-46s |".formatted("Kubernetes " + result.kubernetesVersion()));
      StringBuilder rule = new StringBuilder("|" + "-".repeat(48) + "|");
      for (Run run : runs) {
        header.append(" %16s |".formatted(run.peer().id()));
        rule.append("-".repeat(18)).append("|");
      }
      out.println(header);
      out.println(rule);
      row(out, runs, "nodes initialised", r -> r.initialised() + "/" + result.settings().nodes());
      row(
          out,
          runs,
          "wall, first registration to last untaint (s)",
          r -> fixed(r.wallSeconds(), 2));
      row(out, runs, "wall / Go floor", r -> fixed(result.ratioToFloor(r), 2));
      row(out, runs, "nodes/s", r -> fixed(r.nodesPerSecond(), 1));
      row(out, runs, "untaint delay p50 (s)", r -> fixed(r.p50DelaySeconds(), 2));
      row(out, runs, "untaint delay p99 (s)", r -> fixed(r.p99DelaySeconds(), 2));
      row(out, runs, "CPU of the peer, whole run (s)", r -> fixed(r.cpuSeconds(), 1));
      row(out, runs, "CPU per node (ms)", r -> fixed(r.cpuMillisPerNode(), 2));
      row(out, runs, "peak RSS of the process (MiB)", r -> fixed(r.peakRssMiB(), 0));
      row(out, runs, "peak heap (MiB)", r -> fixed(r.peakHeapMiB(), 0));
      row(out, runs, "node writes per node", r -> fixed(r.nodeWritesPerNode(), 2));
      row(out, runs, "event writes per node", r -> fixed(r.eventWritesPerNode(), 2));
      row(out, runs, "cloud calls per node", r -> fixed(r.cloudCallsPerNode(), 2));
      row(
          out,
          runs,
          "process start to first node initialised (s)",
          r -> fixed(r.startToFirstNodeSeconds(), 2));
      out.println();
      runs.forEach(r -> out.printf("%s: %s; %s%n", r.peer().id(), r.peer().title(), r.note()));
      Optional<Run> ccm4j = result.run(Peer.CCM4J);
      if (ccm4j.isEmpty()) {
        return;
      }
      Run own = ccm4j.get();
      out.println();
      out.println("Targets:");
      result
          .run(Peer.GO_FLOOR)
          .ifPresent(
              floor ->
                  target(
                      out,
                      "ccm4j wall <= 1.5 x the Go floor",
                      result.ratioToFloor(own) <= 1.5,
                      "%.2f x".formatted(result.ratioToFloor(own))));
      result
          .run(Peer.UPSTREAM_TUNED)
          .ifPresent(
              upstream ->
                  target(
                      out,
                      "ccm4j CPU per node <= the tuned upstream CCM's",
                      own.cpuMillisPerNode() <= upstream.cpuMillisPerNode(),
                      "%.2f ms against %.2f ms"
                          .formatted(own.cpuMillisPerNode(), upstream.cpuMillisPerNode())));
      int rssTarget = result.settings().nodes() <= 1000 ? 160 : 256;
      target(
          out,
          "ccm4j peak RSS <= %d MiB".formatted(rssTarget),
          own.peakRssMiB() <= rssTarget,
          "%.0f MiB".formatted(own.peakRssMiB()));
      target(
          out,
          "ccm4j start to first node initialised <= 2 s",
          own.startToFirstNodeSeconds() <= 2,
          "%.2f s".formatted(own.startToFirstNodeSeconds()));
      result
          .profile()
          .ifPresentOrElse(
              profile -> profile.print(out),
              () -> out.println("  (--profile shows where ccm4j's CPU and memory go)"));
    }

    private static void row(
        PrintStream out, List<Run> runs, String figure, Function<Run, String> value) {
      StringBuilder line = new StringBuilder("| %-46s |".formatted(figure));
      runs.forEach(run -> line.append(" %16s |".formatted(value.apply(run))));
      out.println(line);
    }

    private static void target(PrintStream out, String what, boolean met, String measured) {
      out.printf("  %-48s %-6s %s%n", what, met ? "met" : "MISSED", measured);
    }

    private static String fixed(double value, int decimals) {
      return Double.isNaN(value) ? "-" : ("%." + decimals + "f").formatted(value);
    }

    static String toJson(Result result) throws IOException {
      ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
      ObjectNode root = mapper.createObjectNode();
      root.put("benchmark", "node-init");
      root.put("kubernetesVersion", result.kubernetesVersion());
      root.put("cores", Runtime.getRuntime().availableProcessors());
      NodeInitBenchmark.Settings settings = result.settings();
      ObjectNode settingsNode = root.putObject("settings");
      settingsNode.put("nodes", settings.nodes());
      settingsNode.put("cloudLatencyMs", settings.cloudLatency().toMillis());
      settingsNode.put("cloudQps", settings.cloudQps());
      settingsNode.put("workers", settings.workers());
      settingsNode.put("kubeApiQps", settings.kubeApiQps());
      settingsNode.put("heap", settings.heap());
      settings.jvmOptions().forEach(settingsNode.putArray("jvmOptions")::add);
      ArrayNode runs = root.putArray("runs");
      for (Run run : result.runs()) {
        ObjectNode node = runs.addObject();
        node.put("peer", run.peer().id());
        node.put("initialised", run.initialised());
        put(node, "wallSeconds", run.wallSeconds());
        put(node, "ratioToFloor", result.ratioToFloor(run));
        put(node, "nodesPerSecond", run.nodesPerSecond());
        put(node, "p50DelaySeconds", run.p50DelaySeconds());
        put(node, "p99DelaySeconds", run.p99DelaySeconds());
        put(node, "cpuSeconds", run.cpuSeconds());
        put(node, "cpuMillisPerNode", run.cpuMillisPerNode());
        put(node, "peakRssMiB", run.peakRssMiB());
        put(node, "peakHeapMiB", run.peakHeapMiB());
        put(node, "nodeWritesPerNode", run.nodeWritesPerNode());
        put(node, "eventWritesPerNode", run.eventWritesPerNode());
        put(node, "cloudCallsPerNode", run.cloudCallsPerNode());
        put(node, "startToFirstNodeSeconds", run.startToFirstNodeSeconds());
        node.put("note", run.note());
      }
      result
          .profile()
          .ifPresent(
              profile -> {
                ObjectNode node = root.putObject("ccm4jProfile");
                ObjectNode threads = node.putObject("threadCpuSeconds");
                profile.threadCpu().forEach(threads::put);
                node.put("samples", profile.samples());
                ObjectNode code = node.putObject("codeSamplePercent");
                profile.code().forEach(share -> code.put(share.what(), share.percent()));
                ObjectNode memory = node.putObject("committedMiB");
                profile.memory().forEach(area -> memory.put(area.what(), area.committedMiB()));
              });
      return mapper.writeValueAsString(root);
    }

    /** JSON has no NaN: a figure a peer does not have is null. */
    private static void put(ObjectNode node, String field, double value) {
      if (Double.isNaN(value) || Double.isInfinite(value)) {
        node.putNull(field);
      } else {
        node.put(field, value);
      }
    }
  }
}
