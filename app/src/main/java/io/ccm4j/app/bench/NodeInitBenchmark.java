package io.ccm4j.app.bench;

import io.ccm4j.app.Ccm4j;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.runtime.serving.LocalManagerHttp;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * The node-initialisation benchmark: a real control plane, the sim cloud, and {@code ccm4j run} as
 * its own JVM (with the heap it is given), initialising N nodes registered at once; against the
 * floor, the same node writes done by a bare client in the same run.
 */
public final class NodeInitBenchmark {

  /** What to run. */
  public record Settings(
      int nodes,
      Duration cloudLatency,
      double cloudQps,
      int workers,
      double kubeApiQps,
      String heap,
      Duration timeout) {}

  /** What was measured. */
  public record Result(
      Settings settings,
      double controlPlaneStartSeconds,
      double floorSeconds,
      double wallSeconds,
      double p50DelaySeconds,
      double p99DelaySeconds,
      double nodeWritesPerNode,
      double eventWritesPerNode,
      double cloudCallsPerNode,
      long throttledCalls,
      long injectedErrors,
      double peakHeapMiB,
      double peakRssMiB,
      int initialised) {

    public double nodesPerSecond() {
      return initialised / wallSeconds;
    }

    public double ratioToFloor() {
      return wallSeconds / floorSeconds;
    }
  }

  private final Settings settings;
  private final java.io.PrintStream out;

  public NodeInitBenchmark(Settings settings, java.io.PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  public Result run() throws Exception {
    try (LocalControlPlane controlPlane = LocalControlPlane.builder().start();
        KubernetesClient admin =
            new KubernetesClientBuilder()
                .withConfig(
                    // Deleting thousands of floor nodes in one request outlasts the default 10 s.
                    new ConfigBuilder(controlPlane.adminConfig())
                        .withRequestTimeout((int) Duration.ofMinutes(5).toMillis())
                        .build())
                .build()) {
      out.printf("control plane ready in %.1f s%n", controlPlane.startTime().toMillis() / 1000.0);
      double floor = measureFloor(admin);
      out.printf(
          "floor: %d nodes registered and written by a bare client in %.2f s%n",
          settings.nodes(), floor);

      Path dir = controlPlane.directory();
      int adminPort = freePort();
      int servingPort = freePort();
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
            prefix: bench-
            regions: {bench-1: [bench-1a, bench-1b, bench-1c]}
            instanceTypes: [sim.small, sim.large]
          """
              .formatted(
                  settings.cloudLatency().toMillis(),
                  settings.cloudQps(),
                  (int) Math.max(1, settings.cloudQps()),
                  adminPort,
                  settings.nodes()));

      Process manager =
          startManager(controlPlane, cloudConfig, servingPort, dir.resolve("ccm4j-run.log"));
      try {
        HttpClient http = LocalManagerHttp.client();
        awaitHealthy(http, servingPort, manager, dir.resolve("ccm4j-run.log"));
        Map<String, Double> before = ApiServerMetrics.requestTotals(admin);
        PeakTracker peaks = new PeakTracker(http, servingPort, manager.pid());
        peaks.start();

        Map<String, Long> registeredAt = new ConcurrentHashMap<>();
        Map<String, Long> untaintedAt = new ConcurrentHashMap<>();
        SharedIndexInformer<Node> watcher = watchUntaint(admin, untaintedAt);
        long start = System.nanoTime();
        try (KubeletFleet fleet =
            new KubeletFleet(admin, KubeletFleet.Options.withoutHeartbeats())) {
          List<NodeSpec> specs =
              IntStream.range(0, settings.nodes())
                  .mapToObj(i -> NodeSpec.named("bench-" + i))
                  .toList();
          registerRecording(fleet, specs, registeredAt);
          long deadline = System.nanoTime() + settings.timeout().toNanos();
          while (untaintedAt.size() < settings.nodes() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            if (!manager.isAlive()) {
              throw new IllegalStateException(
                  "ccm4j run exited with "
                      + manager.exitValue()
                      + "; see "
                      + dir.resolve("ccm4j-run.log"));
            }
          }
        }
        long end =
            untaintedAt.values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(System.nanoTime());
        double wall = (end - start) / 1e9;
        watcher.close();
        peaks.stop();
        // Let the status patches that follow each untaint land before counting writes.
        Thread.sleep(1000);
        Map<String, Double> after = ApiServerMetrics.requestTotals(admin);

        double[] delays =
            untaintedAt.entrySet().stream()
                .filter(e -> registeredAt.containsKey(e.getKey()))
                .mapToDouble(e -> (e.getValue() - registeredAt.get(e.getKey())) / 1e9)
                .sorted()
                .toArray();
        int n = untaintedAt.size();
        double nodeWrites =
            ApiServerMetrics.delta(before, after, "PUT nodes")
                + ApiServerMetrics.delta(before, after, "PATCH nodes")
                + ApiServerMetrics.delta(before, after, "PATCH nodes/status")
                + ApiServerMetrics.delta(before, after, "PUT nodes/status");
        double eventWrites =
            ApiServerMetrics.delta(before, after, "POST events")
                + ApiServerMetrics.delta(before, after, "PATCH events");
        Map<String, Long> calls = simCalls(http, adminPort);
        long cloudCalls =
            calls.entrySet().stream()
                .filter(
                    e -> !e.getKey().equals("throttled") && !e.getKey().equals("injectedErrors"))
                .mapToLong(Map.Entry::getValue)
                .sum();
        return new Result(
            settings,
            controlPlane.startTime().toMillis() / 1000.0,
            floor,
            wall,
            percentile(delays, 0.50),
            percentile(delays, 0.99),
            nodeWrites / Math.max(1, n),
            eventWrites / Math.max(1, n),
            (double) cloudCalls / Math.max(1, n),
            calls.getOrDefault("throttled", 0L),
            calls.getOrDefault("injectedErrors", 0L),
            peaks.peakHeapBytes() / 1048576.0,
            peaks.peakRssKiB() / 1024.0,
            n);
      } finally {
        manager.destroy();
        if (!manager.waitFor(20, TimeUnit.SECONDS)) {
          manager.destroyForcibly();
        }
      }
    }
  }

  /** Registration and the CCM's two node writes (PUT + status PATCH), by a bare client. */
  private double measureFloor(KubernetesClient admin) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(settings.workers());
    long start = System.nanoTime();
    try (KubeletFleet fleet = new KubeletFleet(admin, KubeletFleet.Options.withoutHeartbeats())) {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < settings.nodes(); i++) {
        String name = "floor-" + i;
        futures.add(
            pool.submit(
                () -> {
                  fleet.register(
                      NodeSpec.named(name).withLabels(Map.of("ccm4j.io/bench", "floor")));
                  Node node = admin.nodes().withName(name).get();
                  Node initialised =
                      new NodeBuilder(node)
                          .editSpec()
                          .withProviderID("sim://" + name)
                          .withTaints(List.of())
                          .endSpec()
                          .editMetadata()
                          .addToLabels("topology.kubernetes.io/zone", "floor")
                          .endMetadata()
                          .build();
                  admin.nodes().resource(initialised).update();
                  admin
                      .nodes()
                      .withName(name)
                      .subresource("status")
                      .patch(
                          PatchContext.of(PatchType.JSON_MERGE),
                          "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.0.0.1\"},{\"type\":\"Hostname\",\"address\":\"%s\"}]}}"
                              .formatted(name));
                  return null;
                }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    // The floor's GET before each PUT is a read the CCM serves from its cache; it only slows the
    // floor down a little, which makes the comparison stricter for ccm4j.
    admin.nodes().withLabel("ccm4j.io/bench", "floor").delete();
    return seconds;
  }

  private Process startManager(LocalControlPlane controlPlane, Path cloudConfig, int port, Path log)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-Xmx" + settings.heap(),
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
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static void awaitHealthy(HttpClient http, int port, Process manager, Path log)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (!manager.isAlive()) {
        throw new IllegalStateException(
            "ccm4j run exited with " + manager.exitValue() + "; see " + log);
      }
      try {
        HttpResponse<String> response =
            http.send(
                HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/healthz"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200 && response.body().equals("ok")) {
          String verbose =
              http.send(
                      HttpRequest.newBuilder(
                              URI.create("https://127.0.0.1:" + port + "/healthz?verbose"))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body();
          if (verbose.contains("cloud-node-controller")) {
            return;
          }
        }
      } catch (IOException e) {
        // not up yet
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("ccm4j run did not become healthy in 60 s; see " + log);
  }

  private static SharedIndexInformer<Node> watchUntaint(
      KubernetesClient admin, Map<String, Long> untaintedAt) {
    return admin
        .nodes()
        .inform(
            new FirstTimeNodes(
                node ->
                    node.getMetadata().getName().startsWith("bench-")
                        && !Taints.hasKey(node, WellKnownTaints.UNINITIALIZED),
                untaintedAt));
  }

  private void registerRecording(
      KubeletFleet fleet, List<NodeSpec> specs, Map<String, Long> registeredAt) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(settings.workers());
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (NodeSpec spec : specs) {
        futures.add(
            pool.submit(
                () -> {
                  registeredAt.put(spec.name(), System.nanoTime());
                  fleet.register(spec);
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

  private static Map<String, Long> simCalls(HttpClient http, int adminPort) throws Exception {
    String body =
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/calls"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Map<String, Long> calls = new java.util.TreeMap<>();
    Matcher matcher = Pattern.compile("\"(\\w+)\":(\\d+)").matcher(body);
    while (matcher.find()) {
      calls.put(matcher.group(1), Long.parseLong(matcher.group(2)));
    }
    return calls;
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

  /** Samples the manager's heap (from its /metrics) and reads its peak RSS from /proc. */
  private static final class PeakTracker {
    private static final Pattern HEAP =
        Pattern.compile(
            "^jvm_memory_used_bytes\\{area=\"heap\",[^}]*\\} (\\S+)$", Pattern.MULTILINE);
    private final HttpClient http;
    private final int port;
    private final long pid;
    private final AtomicLong peakHeap = new AtomicLong();
    private volatile boolean running = true;
    private Thread thread;

    PeakTracker(HttpClient http, int port, long pid) {
      this.http = http;
      this.port = port;
      this.pid = pid;
    }

    void start() {
      thread = Thread.ofPlatform().daemon().name("peak-tracker").start(this::loop);
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
          peakHeap.accumulateAndGet(sample, Math::max);
          Thread.sleep(250);
        } catch (InterruptedException e) {
          return;
        } catch (IOException e) {
          // the manager is busy; try again
        }
      }
    }

    void stop() throws InterruptedException {
      running = false;
      thread.interrupt();
      thread.join();
    }

    long peakHeapBytes() {
      return peakHeap.get();
    }

    /** VmHWM: the most resident memory the manager process has used. */
    long peakRssKiB() {
      try {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
            .filter(line -> line.startsWith("VmHWM:"))
            .map(line -> Arrays.stream(line.split("\\s+")).skip(1).findFirst().orElse("0"))
            .mapToLong(Long::parseLong)
            .findFirst()
            .orElse(0);
      } catch (IOException e) {
        return 0;
      }
    }
  }
}
