package io.ccm4j.bench;

import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.provider.local.LocalCloud;
import io.ccm4j.provider.local.LocalCloudProviderFactory;
import io.ccm4j.provider.local.LocalLoadBalancers;
import io.ccm4j.simulator.proxy.SimulatedKubeProxy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * New TCP connections per second through a {@code local} load balancer, with one backend drained
 * mid-run. No API server: the provider is called through the SPI with Service and Node objects, the
 * simulated kube-proxies are fed the Service directly. The load is {@code wrk} with {@code
 * Connection: close}, so every request is a new connection (through the load balancer and on to a
 * node port). Halfway through, one node's kube-proxy starts answering 503 on {@code :10256/healthz}
 * (KEP-3836); the load balancer must stop giving it new connections without failing any.
 */
public final class LbForwardBenchmark {

  /**
   * @param backends simulated nodes behind the load balancer
   * @param duration length of the measured wrk run
   * @param connections wrk's concurrent connections
   * @param threads wrk's threads
   * @param warmup an unmeasured wrk run first (JIT)
   * @param reference also run the same load through HAProxy, when it is installed
   */
  public record Settings(
      int backends,
      Duration duration,
      int connections,
      int threads,
      Duration warmup,
      boolean reference,
      double target) {}

  /**
   * The same wrk load through HAProxy (TCP mode, round robin, the same backends, no drain): what a
   * mature C load balancer achieves on this machine, next to ours.
   *
   * @param version HAProxy's version line
   */
  public record Reference(String version, double connectionsPerSecond, long errors) {}

  /**
   * @param connectionsPerSecond completed requests (= new connections) per second, from wrk
   * @param errors wrk's socket errors (connect, read, write, timeout) plus non-2xx answers
   * @param perBackend requests each node answered during the measured run
   * @param drainedAfterDetection requests the drained node answered after the load balancer saw it
   *     unhealthy (connections already on their way then)
   * @param assignedAfterDetection new connections the load balancer gave the drained node after it
   *     saw it unhealthy (must be 0)
   * @param detectionMillis from the drain to the load balancer marking the node unhealthy
   */
  public record Result(
      Settings settings,
      double connectionsPerSecond,
      long requests,
      long errors,
      String errorDetail,
      String latency,
      Map<String, Long> perBackend,
      String drainedNode,
      long drainedAfterDetection,
      long assignedAfterDetection,
      long detectionMillis,
      long unserved,
      double directPerSecond,
      double jvmCpuMicrosPerConnection,
      double loadBalancerCpuMicrosPerConnection,
      double kubeProxyCpuMicrosPerConnection,
      double wrkCpuMicrosPerConnection,
      Reference reference) {

    /** The figures as a table; whether the target rate was met with no failure. */
    public boolean print(PrintStream out) {
      out.printf(
          "lb-forward: %d backends, wrk -t%d -c%d -d%ds, Connection: close%n",
          settings.backends(),
          settings.threads(),
          settings.connections(),
          settings.duration().toSeconds());
      String row = "| %-52s | %24s |%n";
      out.printf(row, "figure", "value");
      out.printf(row, "-".repeat(52), "-".repeat(24));
      out.printf(
          row, "new connections/s (wrk Requests/sec)", "%.0f".formatted(connectionsPerSecond));
      out.printf(row, "requests (= connections)", requests);
      out.printf(row, "failed (socket errors + non-2xx)", errors);
      out.printf(row, "latency", latency);
      perBackend.forEach((node, count) -> out.printf(row, "answered by " + node, count));
      out.printf(row, "drain detected after (ms)", detectionMillis);
      out.printf(
          row,
          "answered by " + drainedNode + " after detection (already on their way)",
          drainedAfterDetection);
      out.printf(
          row,
          "new connections given to " + drainedNode + " after detection",
          assignedAfterDetection);
      out.printf(row, "dropped by the LB (no serving backend)", unserved);
      out.printf(
          row,
          "ceiling: wrk straight at one node port (conn/s)",
          "%.0f".formatted(directPerSecond));
      out.printf(
          row,
          "CPU per connection: LB + kube-proxies JVM (us)",
          "%.1f".formatted(jvmCpuMicrosPerConnection));
      out.printf(
          row,
          "  of which the load balancer's event loops (us)",
          "%.1f".formatted(loadBalancerCpuMicrosPerConnection));
      out.printf(
          row,
          "  of which the kube-proxies' servers (us)",
          "%.1f".formatted(kubeProxyCpuMicrosPerConnection));
      out.printf(row, "CPU per connection: wrk (us)", "%.1f".formatted(wrkCpuMicrosPerConnection));
      out.printf(
          row,
          "conn/s per core given to the load balancer alone",
          "%.0f".formatted(1e6 / loadBalancerCpuMicrosPerConnection));
      double cores = Runtime.getRuntime().availableProcessors();
      out.printf(
          row,
          "rate %d idle cores could carry (conn/s)".formatted((int) cores),
          "%.0f".formatted(cores * 1e6 / (jvmCpuMicrosPerConnection + wrkCpuMicrosPerConnection)));
      if (reference != null) {
        out.printf(
            row,
            "reference: HAProxy, same load and backends (conn/s)",
            "%.0f".formatted(reference.connectionsPerSecond()));
        out.printf(row, "reference: HAProxy failed", reference.errors());
      }
      boolean fast = connectionsPerSecond >= settings.target();
      List<String> missed = new ArrayList<>();
      if (!fast) {
        missed.add("%.0f%% of the rate".formatted(100 * connectionsPerSecond / settings.target()));
      }
      if (errors > 0) {
        missed.add(errors + " failures: " + errorDetail);
      }
      if (assignedAfterDetection > 0) {
        missed.add("%d new connections to the drained node".formatted(assignedAfterDetection));
      }
      out.printf(
          "target %.0f new connections/s, no failure, none to the drained node: %s%n",
          settings.target(),
          missed.isEmpty() ? "met" : "NOT met (" + String.join(", ", missed) + ")");
      return missed.isEmpty();
    }
  }

  private static final int NODE_PORT = 30080;
  private static final String LOAD_BALANCER_THREADS = "local-cloud-io-";
  private static final String KUBE_PROXY_THREADS = "kube-proxy-http-";
  private static final String REFERENCE_ADDRESS = "127.0.101.1";
  private static final Pattern REQUESTS = Pattern.compile("(\\d+) requests in ([\\d.]+)(\\w+)");
  private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([\\d.]+)");
  private static final Pattern SOCKET_ERRORS =
      Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");
  private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses: (\\d+)");
  private static final Pattern LATENCY = Pattern.compile("Latency\\s+(\\S+)\\s+(\\S+)\\s+(\\S+)");

  private final Settings settings;
  private final PrintStream out;

  public LbForwardBenchmark(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  public Result run() throws Exception {
    String wrk = findWrk();
    List<SimulatedKubeProxy> proxies = new ArrayList<>();
    List<Node> nodes = new ArrayList<>();
    Service service = service();
    LocalCloud cloud =
        LocalCloudProviderFactory.fromYaml(
            """
            addressPool: 127.0.100.0/24
            healthCheck: {interval: 500ms, timeout: 500ms, unhealthyThreshold: 2, healthyThreshold: 1}
            drainTimeout: 30s
            """);
    try {
      for (int i = 1; i <= settings.backends(); i++) {
        String name = "bench-node-" + i;
        String ip = "127.0.50." + i;
        SimulatedKubeProxy proxy = new SimulatedKubeProxy(name, ip);
        proxy.apply(service);
        proxies.add(proxy);
        nodes.add(node(name, ip));
      }
      LoadBalancerStatus status =
          cloud.loadBalancer().orElseThrow().ensureLoadBalancer("bench", service, nodes);
      String url = "http://" + status.ingress().get(0).ip() + ":80/";
      out.printf("load balancer %s -> %d nodes (node port %d)%n", url, nodes.size(), NODE_PORT);

      if (!settings.warmup().isZero()) {
        out.printf("warm-up: %d s of wrk%n", settings.warmup().toSeconds());
        runWrk(wrk, url, settings.warmup());
      }
      // The ceiling: the same load straight at one node port, without the load balancer.
      String direct = "http://" + proxies.get(1).nodeIp() + ":" + NODE_PORT + "/";
      var osBean =
          (com.sun.management.OperatingSystemMXBean)
              java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      long directCpu = osBean.getProcessCpuTime();
      String directReport =
          runWrk(
              wrk, direct, settings.warmup().isZero() ? Duration.ofSeconds(5) : settings.warmup());
      directCpu = osBean.getProcessCpuTime() - directCpu;
      Matcher directRate = RATE.matcher(directReport);
      Matcher directRequests = REQUESTS.matcher(directReport);
      double directPerSecond = directRate.find() ? Double.parseDouble(directRate.group(1)) : 0;
      long directCount = directRequests.find() ? Long.parseLong(directRequests.group(1)) : 1;
      out.printf(
          "without the load balancer (wrk straight at %s): %.0f connections/s, kube-proxy JVM CPU %.1f us per connection%n",
          direct, directPerSecond, directCpu / 1e3 / Math.max(1, directCount));
      Map<String, Long> before = counts(proxies);

      SimulatedKubeProxy drained = proxies.get(0);
      long runMillis = settings.duration().toMillis();
      var os =
          (com.sun.management.OperatingSystemMXBean)
              java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      long cpuBefore = os.getProcessCpuTime();
      long lbCpuBefore = threadCpuNanos(LOAD_BALANCER_THREADS);
      long proxyCpuBefore = threadCpuNanos(KUBE_PROXY_THREADS);
      long[] ticksBefore = userSystemTicks();
      Process load = startWrk(wrk, url, settings.duration());
      long start = System.nanoTime();
      // Halfway, drain one node as kube-proxy does for a node being deleted (KEP-3836).
      waitUntil(start + TimeUnit.MILLISECONDS.toNanos(runMillis / 2));
      drained.setDraining(true);
      long drainAt = System.nanoTime();
      out.printf(
          "t=%.1fs: %s drains (kube-proxy answers 503 on :10256/healthz)%n",
          (drainAt - start) / 1e9, drained.nodeName());
      while (isServing(cloud, drained.nodeName())
          && System.nanoTime() - drainAt < TimeUnit.SECONDS.toNanos(30)) {
        waitUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20));
      }
      long detectedAt = System.nanoTime();
      long drainedAtDetection = drained.totalRequests();
      long assignedAtDetection = assigned(cloud, drained.nodeName());
      out.printf(
          "t=%.1fs: the load balancer marks %s unhealthy (%d ms after the drain)%n",
          (detectedAt - start) / 1e9,
          drained.nodeName(),
          TimeUnit.NANOSECONDS.toMillis(detectedAt - drainAt));
      Duration wrkCpu =
          load.info().totalCpuDuration().orElse(Duration.ZERO); // read before it is reaped
      String report = finish(load);
      long cpuAfter = os.getProcessCpuTime();
      long lbCpu = threadCpuNanos(LOAD_BALANCER_THREADS) - lbCpuBefore;
      long proxyCpu = threadCpuNanos(KUBE_PROXY_THREADS) - proxyCpuBefore;
      long[] ticksAfter = userSystemTicks();
      out.printf(
          "JVM (load balancer + kube-proxies) CPU during the run: user %.1f s, system %.1f s%n",
          (ticksAfter[0] - ticksBefore[0]) / 100.0, (ticksAfter[1] - ticksBefore[1]) / 100.0);
      long drainedAfter = drained.totalRequests() - drainedAtDetection;
      long assignedAfter = assigned(cloud, drained.nodeName()) - assignedAtDetection;
      out.printf(
          "new connections the load balancer gave %s after marking it unhealthy: %d%n",
          drained.nodeName(), assignedAfter);
      Map<String, Long> after = counts(proxies);
      Map<String, Long> perBackend = new LinkedHashMap<>();
      after.forEach((node, count) -> perBackend.put(node, count - before.get(node)));
      LocalLoadBalancers.LoadBalancerView view = cloud.loadBalancers().snapshot().get(0);
      drained.setDraining(false);
      Reference reference = settings.reference() ? haproxyReference(wrk, proxies) : null;
      return parse(
          report,
          perBackend,
          drained.nodeName(),
          new long[] {drainedAfter, assignedAfter},
          TimeUnit.NANOSECONDS.toMillis(detectedAt - drainAt),
          view.unserved(),
          directPerSecond,
          new long[] {cpuAfter - cpuBefore, lbCpu, proxyCpu},
          wrkCpu,
          reference);
    } finally {
      cloud.close();
      proxies.forEach(SimulatedKubeProxy::close);
    }
  }

  /** utime and stime of this process in clock ticks (1/100 s), from /proc/self/stat. */
  private static long[] userSystemTicks() {
    try {
      String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return new long[] {Long.parseLong(fields[11]), Long.parseLong(fields[12])};
    } catch (IOException | RuntimeException e) {
      return new long[] {0, 0};
    }
  }

  /** Connections the load balancer has handed to the node so far. */
  private static long assigned(LocalCloud cloud, String node) {
    return cloud.loadBalancers().snapshot().stream()
        .flatMap(lb -> lb.backends().stream())
        .filter(b -> b.node().equals(node))
        .mapToLong(LocalLoadBalancers.BackendView::total)
        .sum();
  }

  private static boolean isServing(LocalCloud cloud, String node) {
    return cloud.loadBalancers().snapshot().stream()
        .flatMap(lb -> lb.backends().stream())
        .anyMatch(b -> b.node().equals(node) && b.healthy() && b.member());
  }

  private static Map<String, Long> counts(List<SimulatedKubeProxy> proxies) {
    Map<String, Long> counts = new LinkedHashMap<>();
    proxies.forEach(p -> counts.put(p.nodeName(), p.totalRequests()));
    return counts;
  }

  private Process startWrk(String wrk, String url, Duration duration) throws IOException {
    return new ProcessBuilder(
            wrk,
            "-t" + settings.threads(),
            "-c" + settings.connections(),
            "-d" + duration.toSeconds() + "s",
            "--latency",
            "-H",
            "Connection: close",
            url)
        .redirectErrorStream(true)
        .start();
  }

  private String runWrk(String wrk, String url, Duration duration) throws Exception {
    return finish(startWrk(wrk, url, duration));
  }

  private static String finish(Process process) throws Exception {
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    process.waitFor();
    return output;
  }

  private Result parse(
      String report,
      Map<String, Long> perBackend,
      String drainedNode,
      long[] answeredAssignedAfter,
      long detectionMillis,
      long unserved,
      double directPerSecond,
      long[] jvmLbProxyCpuNanos,
      Duration wrkCpu,
      Reference reference) {
    out.println("--- wrk ---");
    out.print(report);
    out.println("-----------");
    Matcher requests = REQUESTS.matcher(report);
    Matcher rate = RATE.matcher(report);
    if (!requests.find() || !rate.find()) {
      throw new IllegalStateException("cannot read wrk's report:\n" + report);
    }
    long errors = errors(report);
    String detail = errorDetail(report);
    Matcher latency = LATENCY.matcher(report);
    String latencyText =
        latency.find()
            ? "avg %s, stdev %s, max %s"
                .formatted(latency.group(1), latency.group(2), latency.group(3))
            : "?";
    long count = Math.max(1, Long.parseLong(requests.group(1)));
    return new Result(
        settings,
        Double.parseDouble(rate.group(1)),
        Long.parseLong(requests.group(1)),
        errors,
        detail,
        latencyText,
        perBackend,
        drainedNode,
        answeredAssignedAfter[0],
        answeredAssignedAfter[1],
        detectionMillis,
        unserved,
        directPerSecond,
        jvmLbProxyCpuNanos[0] / 1e3 / count,
        jvmLbProxyCpuNanos[1] / 1e3 / count,
        jvmLbProxyCpuNanos[2] / 1e3 / count,
        wrkCpu.toNanos() / 1e3 / count,
        reference);
  }

  /** wrk's socket errors (connect, read, write, timeout) plus its non-2xx answers. */
  private static long errors(String report) {
    long errors = 0;
    Matcher socket = SOCKET_ERRORS.matcher(report);
    if (socket.find()) {
      for (int g = 1; g <= 4; g++) {
        errors += Long.parseLong(socket.group(g));
      }
    }
    Matcher non2xx = NON_2XX.matcher(report);
    if (non2xx.find()) {
      errors += Long.parseLong(non2xx.group(1));
    }
    return errors;
  }

  private static String errorDetail(String report) {
    List<String> parts = new ArrayList<>();
    Matcher socket = SOCKET_ERRORS.matcher(report);
    if (socket.find()) {
      parts.add(socket.group(0));
    }
    Matcher non2xx = NON_2XX.matcher(report);
    if (non2xx.find()) {
      parts.add(non2xx.group(0));
    }
    return parts.isEmpty() ? "none" : String.join("; ", parts);
  }

  /** CPU time of this JVM's live threads whose name starts with {@code prefix}. */
  private static long threadCpuNanos(String prefix) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith(prefix)) {
        sum += Math.max(0, threads.getThreadCpuTime(info.getThreadId()));
      }
    }
    return sum;
  }

  /**
   * Runs the warm-up and the measured wrk load through HAProxy in TCP mode in front of the same
   * kube-proxies; null when HAProxy is not installed.
   */
  private Reference haproxyReference(String wrk, List<SimulatedKubeProxy> proxies)
      throws Exception {
    String haproxy = findOnPath("haproxy");
    if (haproxy == null) {
      out.println("reference: HAProxy is not installed (apt-get install -y haproxy to compare)");
      return null;
    }
    StringBuilder config =
        new StringBuilder(
            """
            global
              maxconn 4096
              nbthread %d
            defaults
              mode tcp
              timeout connect 5s
              timeout client 30s
              timeout server 30s
            frontend lb
              bind %s:80
              default_backend nodes
            backend nodes
              balance roundrobin
            """
                .formatted(Runtime.getRuntime().availableProcessors(), REFERENCE_ADDRESS));
    for (SimulatedKubeProxy proxy : proxies) {
      config.append("  server %s %s:%d%n".formatted(proxy.nodeName(), proxy.nodeIp(), NODE_PORT));
    }
    java.nio.file.Path file = java.nio.file.Files.createTempFile("ccm4j-bench-haproxy", ".cfg");
    java.nio.file.Files.writeString(file, config);
    String version =
        finish(new ProcessBuilder(haproxy, "-v").redirectErrorStream(true).start())
            .lines()
            .findFirst()
            .orElse("HAProxy");
    Process process =
        new ProcessBuilder(haproxy, "-db", "-f", file.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      awaitListening(process, REFERENCE_ADDRESS, 80);
      String url = "http://" + REFERENCE_ADDRESS + ":80/";
      out.printf("reference: %s on %s, same wrk load, same kube-proxies%n", version, url);
      if (!settings.warmup().isZero()) {
        runWrk(wrk, url, settings.warmup());
      }
      String report = runWrk(wrk, url, settings.duration());
      Matcher rate = RATE.matcher(report);
      if (!rate.find()) {
        throw new IllegalStateException("cannot read wrk's report:\n" + report);
      }
      return new Reference(version, Double.parseDouble(rate.group(1)), errors(report));
    } finally {
      process.destroy();
      process.waitFor(5, TimeUnit.SECONDS);
      process.destroyForcibly();
      java.nio.file.Files.deleteIfExists(file);
    }
  }

  private static void awaitListening(Process process, String address, int port)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("HAProxy exited with " + process.exitValue());
      }
      try (var socket = new java.net.Socket(address, port)) {
        return;
      } catch (IOException notYet) {
        waitUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50));
      }
    }
    throw new IllegalStateException(
        "HAProxy did not listen on %s:%d in 10 s".formatted(address, port));
  }

  private static void waitUntil(long deadlineNanos) throws InterruptedException {
    long left = deadlineNanos - System.nanoTime();
    if (left > 0) {
      TimeUnit.NANOSECONDS.sleep(left);
    }
  }

  private static String findWrk() {
    String wrk = findOnPath("wrk");
    if (wrk == null) {
      throw new IllegalStateException(
          "wrk is not installed: apt-get install -y wrk (Debian's package) and run again");
    }
    return wrk;
  }

  private static String findOnPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      java.nio.file.Path candidate = java.nio.file.Path.of(dir, program);
      if (java.nio.file.Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    // Debian puts daemons such as HAProxy in /usr/sbin, which a user's PATH may lack.
    java.nio.file.Path sbin = java.nio.file.Path.of("/usr/sbin", program);
    return java.nio.file.Files.isExecutable(sbin) ? sbin.toString() : null;
  }

  private static Service service() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("bench")
        .withName("lb-forward")
        .withUid(UUID.randomUUID().toString())
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withExternalTrafficPolicy("Cluster")
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNodePort(NODE_PORT)
        .endPort()
        .endSpec()
        .build();
  }

  private static Node node(String name, String ip) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewStatus()
        .addNewAddress()
        .withType("InternalIP")
        .withAddress(ip)
        .endAddress()
        .endStatus()
        .build();
  }
}
