package io.ccm4j.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.app.Ccm4j;
import io.ccm4j.bench.NodeInitBenchmark.Peer;
import io.ccm4j.bench.SteadyStateFigures.Sample;
import io.ccm4j.bench.SteadyStateReport.Run;
import io.ccm4j.bench.SteadyStateReport.Settings;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * The steady state, side by side: for each peer a fresh control plane, the same sim cloud (latency,
 * an account-wide rate limit that refuses calls beyond it as throttled), N initialised nodes and S
 * LoadBalancer Services; then a window in which nothing changes (the cloud calls, throttled calls,
 * API writes, address-sync passes and CPU it costs), then churn: an address changed in the cloud,
 * nodes joining, nodes leaving.
 *
 * <p>Both peers get the same address-sync period ({@code --node-status-update-frequency}), workers
 * and API QPS. ccm4j is given the account's limit as {@code --cloud-api-qps}/{@code
 * --cloud-api-burst}; upstream has no such flag. The sim cloud answers up to 1,000 instances and
 * 1,000 load balancers a call (as EC2's DescribeInstances): ccm4j's bulk facets use that,
 * upstream's per-node interface cannot. The kubelets send no heartbeats and no
 * kube-controller-manager runs, so every API write in the idle window, leases aside, is the peer's.
 */
final class SteadyStateBenchmark {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "steady-";
  private static final String NAMESPACE = "default";
  private static final Duration SAMPLE_EVERY = Duration.ofMillis(50);
  private static final Duration PASS_QUIET = Duration.ofSeconds(2);
  private static final Duration CHURN_QUIET = Duration.ofSeconds(5);
  private static final String CHANGED_ADDRESS = "10.250.0.1";

  private final Settings settings;
  private final PrintStream out;
  private final HttpClient http = HttpClient.newHttpClient();
  private String kubernetesVersion;

  SteadyStateBenchmark(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  String kubernetesVersion() {
    return kubernetesVersion;
  }

  List<Run> run() throws Exception {
    Optional<GoPeers> goPeers = Optional.empty();
    List<Run> runs = new ArrayList<>();
    for (Peer peer : settings.peers()) {
      try (LocalControlPlane controlPlane = LocalControlPlane.builder().start();
          KubernetesClient admin = controlPlane.newClient()) {
        kubernetesVersion = controlPlane.binaries().version().toString();
        out.printf(
            "%s: control plane %s ready in %.1f s%n",
            peer.id(), kubernetesVersion, controlPlane.startTime().toMillis() / 1000.0);
        if (peer != Peer.CCM4J && goPeers.isEmpty()) {
          goPeers = Optional.of(GoPeers.build(kubernetesVersion, out));
        }
        runs.add(runPeer(peer, controlPlane, admin, goPeers.orElse(null)));
      }
    }
    return runs;
  }

  private Run runPeer(
      Peer peer, LocalControlPlane controlPlane, KubernetesClient admin, GoPeers goPeers)
      throws Exception {
    Path dir = controlPlane.directory();
    int cloudAdminPort = freePort();
    Path cloudConfig = dir.resolve("sim-steady.yaml");
    Files.writeString(cloudConfig, cloudConfig(cloudAdminPort));
    Path log = dir.resolve(peer.id() + ".log");
    Map<String, Long> untaintedAt = new ConcurrentHashMap<>();
    Map<String, Long> changedAt = new ConcurrentHashMap<>();
    SharedIndexInformer<Node> untaint = NodeInitLoad.watchUntaint(admin, PREFIX, untaintedAt);
    SharedIndexInformer<Node> addressWatch =
        admin
            .nodes()
            .inform(
                new FirstTimeNodes(
                    node ->
                        node.getStatus() != null
                            && node.getStatus().getAddresses() != null
                            && node.getStatus().getAddresses().stream()
                                .anyMatch(a -> CHANGED_ADDRESS.equals(a.getAddress())),
                    changedAt));
    try (KubeletFleet fleet = new KubeletFleet(admin, KubeletFleet.Options.withoutHeartbeats())) {
      List<String> names = IntStream.range(0, settings.nodes()).mapToObj(i -> PREFIX + i).toList();
      fleet.registerAll(names.stream().map(NodeSpec::named).toList(), settings.workers());
      out.printf("%s: %d nodes registered%n", peer.id(), names.size());
      long started = System.nanoTime();
      Process manager =
          new ProcessBuilder(
                  peer == Peer.CCM4J
                      ? ccm4jCommand(controlPlane, cloudConfig)
                      : upstreamCommand(peer, controlPlane, cloudConfig, goPeers))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      try {
        NodeInitLoad.awaitUntainted(untaintedAt, names, manager, log, settings.timeout());
        if (!untaintedAt.keySet().containsAll(names)) {
          throw new IllegalStateException(
              "%s initialised %d of %d nodes in %s; see %s"
                  .formatted(peer.id(), untaintedAt.size(), names.size(), settings.timeout(), log));
        }
        double initialise =
            (names.stream().mapToLong(untaintedAt::get).max().orElseThrow() - started) / 1e9;
        out.printf(
            "%s: %d nodes initialised %.1f s after the manager started%n",
            peer.id(), names.size(), initialise);
        createServices(admin);
        awaitIngress(admin, manager, log);
        out.printf("%s: %d load balancers provisioned%n", peer.id(), settings.services());
        awaitQuiet(cloudAdminPort, CHURN_QUIET, Duration.ofMinutes(2));

        // Idle: nothing changes in the cluster or in the cloud.
        Map<String, Long> callsBefore = calls(cloudAdminPort);
        Map<String, Double> apiBefore = ApiServerMetrics.requestTotals(admin);
        double cpuBefore = ProcessStats.cpuSeconds(manager.pid());
        List<Sample> samples = new CopyOnWriteArrayList<>();
        long idleStart = System.nanoTime();
        long idleEnd = idleStart + settings.duration().toNanos();
        out.printf("%s: idle for %d s%n", peer.id(), settings.duration().toSeconds());
        while (System.nanoTime() < idleEnd) {
          if (!manager.isAlive()) {
            throw new IllegalStateException(
                "the manager exited with %d; see %s".formatted(manager.exitValue(), log));
          }
          samples.add(
              new Sample(System.nanoTime(), SteadyStateFigures.received(calls(cloudAdminPort))));
          Thread.sleep(SAMPLE_EVERY.toMillis());
        }
        double idleSeconds = (System.nanoTime() - idleStart) / 1e9;
        double cpu = ProcessStats.cpuSeconds(manager.pid()) - cpuBefore;
        Map<String, Double> apiAfter = ApiServerMetrics.requestTotals(admin);
        Map<String, Long> idleCalls = SteadyStateFigures.delta(callsBefore, calls(cloudAdminPort));

        // Churn: an address changed in the cloud, nodes joining, nodes leaving.
        double addressChange = addressChange(cloudAdminPort, names.getFirst(), changedAt);
        List<String> joining =
            IntStream.range(settings.nodes(), settings.nodes() + settings.churnNodes())
                .mapToObj(i -> PREFIX + i)
                .toList();
        long lbBefore = SteadyStateFigures.loadBalancerUpdates(calls(cloudAdminPort));
        fleet.registerAll(joining.stream().map(NodeSpec::named).toList(), settings.workers());
        NodeInitLoad.awaitUntainted(untaintedAt, joining, manager, log, settings.timeout());
        awaitQuiet(cloudAdminPort, CHURN_QUIET, Duration.ofMinutes(2));
        long lbJoined = SteadyStateFigures.loadBalancerUpdates(calls(cloudAdminPort));
        for (String name : joining) {
          admin.nodes().withName(name).delete();
          post(cloudAdminPort, "/instances/" + name + "/delete");
        }
        awaitQuiet(cloudAdminPort, CHURN_QUIET, Duration.ofMinutes(2));
        long lbLeft = SteadyStateFigures.loadBalancerUpdates(calls(cloudAdminPort));
        int churn = Math.max(1, joining.size());
        List<Double> passes = SteadyStateFigures.passSeconds(samples, PASS_QUIET.toNanos());
        out.printf(
            "%s: idle %.0f s: %d cloud calls (%d throttled), %d address-sync passes%n",
            peer.id(),
            idleSeconds,
            SteadyStateFigures.received(idleCalls),
            SteadyStateFigures.throttled(idleCalls),
            passes.size());
        return new Run(
            peer,
            initialise,
            idleSeconds,
            SteadyStateFigures.received(idleCalls),
            SteadyStateFigures.throttled(idleCalls),
            idleCalls,
            SteadyStateFigures.writes(apiBefore, apiAfter),
            passes,
            addressChange,
            (double) (lbJoined - lbBefore) / churn,
            (double) (lbLeft - lbJoined) / churn,
            cpu,
            peer == Peer.CCM4J
                ? "-Xmx%s, --cloud-api-qps=%s --cloud-api-burst=%d"
                    .formatted(settings.heap(), settings.accountQps(), settings.accountBurst())
                : String.join(" ", upstreamTuning(peer)));
      } finally {
        untaint.close();
        addressWatch.close();
        manager.destroy();
        if (!manager.waitFor(20, TimeUnit.SECONDS)) {
          manager.destroyForcibly();
        }
      }
    }
  }

  private String cloudConfig(int adminPort) {
    return """
        latencyMs: %d
        accountLimit: {qps: %s, burst: %d}
        instancesPerCall: 1000
        admin: 127.0.0.1:%d
        loadBalancers: {servicesPerCall: 1000}
        generate:
          count: %d
          prefix: %s
          regions: {bench-1: [bench-1a, bench-1b, bench-1c]}
          instanceTypes: [sim.small, sim.large]
        """
        .formatted(
            settings.cloudLatency().toMillis(),
            settings.accountQps(),
            settings.accountBurst(),
            adminPort,
            settings.nodes() + settings.churnNodes(),
            PREFIX);
  }

  private void createServices(KubernetesClient admin) {
    for (int i = 0; i < settings.services(); i++) {
      Service service =
          new ServiceBuilder()
              .withNewMetadata()
              .withName("steady-lb-" + i)
              .withNamespace(NAMESPACE)
              .endMetadata()
              .withNewSpec()
              .withType("LoadBalancer")
              .addToSelector("app", "steady-" + i)
              .addNewPort()
              .withName("http")
              .withPort(80)
              .withNewTargetPort(8080)
              .endPort()
              .endSpec()
              .build();
      admin.services().inNamespace(NAMESPACE).resource(service).create();
    }
  }

  private void awaitIngress(KubernetesClient admin, Process manager, Path log)
      throws InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    while (System.nanoTime() < deadline) {
      long ready =
          admin.services().inNamespace(NAMESPACE).list().getItems().stream()
              .filter(
                  s ->
                      s.getStatus() != null
                          && s.getStatus().getLoadBalancer() != null
                          && s.getStatus().getLoadBalancer().getIngress() != null
                          && !s.getStatus().getLoadBalancer().getIngress().isEmpty())
              .count();
      if (ready >= settings.services()) {
        return;
      }
      if (!manager.isAlive()) {
        throw new IllegalStateException(
            "the manager exited with %d; see %s".formatted(manager.exitValue(), log));
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException(
        "not every load balancer was provisioned in %s; see %s".formatted(settings.timeout(), log));
  }

  /** Waits until the cloud has had no call for {@code quiet}, at most {@code atMost}. */
  private void awaitQuiet(int adminPort, Duration quiet, Duration atMost) throws Exception {
    long deadline = System.nanoTime() + atMost.toNanos();
    long last = SteadyStateFigures.received(calls(adminPort));
    long lastMove = System.nanoTime();
    while (System.nanoTime() < deadline && System.nanoTime() - lastMove < quiet.toNanos()) {
      Thread.sleep(SAMPLE_EVERY.toMillis());
      long now = SteadyStateFigures.received(calls(adminPort));
      if (now != last) {
        last = now;
        lastMove = System.nanoTime();
      }
    }
  }

  /**
   * Changes the node's InternalIP in the cloud and waits for it on the Node: seconds, or NaN when
   * it has not arrived after three address-sync periods.
   */
  private double addressChange(int adminPort, String node, Map<String, Long> changedAt)
      throws Exception {
    long changed = System.nanoTime();
    post(adminPort, "/instances/" + node + "/internal-ip?value=" + CHANGED_ADDRESS);
    long deadline = changed + settings.addressSyncPeriod().toNanos() * 3 + 10_000_000_000L;
    while (!changedAt.containsKey(node) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    Long seen = changedAt.get(node);
    return seen == null ? Double.NaN : (seen - changed) / 1e9;
  }

  private Map<String, Long> calls(int adminPort) throws Exception {
    String body =
        http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/calls"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return JSON.readValue(body, new TypeReference<Map<String, Long>>() {});
  }

  private void post(int adminPort, String path) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          "the sim cloud answered %d to POST %s: %s"
              .formatted(response.statusCode(), path, response.body()));
    }
  }

  private List<String> ccm4jCommand(LocalControlPlane controlPlane, Path cloudConfig)
      throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command =
        new ArrayList<>(List.of(java, "-Xmx" + settings.heap(), "-XX:+ExitOnOutOfMemoryError"));
    command.addAll(LauncherJvm.runOptions());
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
            "--controllers=" + String.join(",", CONTROLLERS),
            "--bind-address=127.0.0.1",
            "--secure-port=" + freePort(),
            "--cloud-api-qps=" + settings.accountQps(),
            "--cloud-api-burst=" + settings.accountBurst()));
    command.addAll(sharedTuning());
    return command;
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
                "--controllers=" + String.join(",", CONTROLLERS),
                "--secure-port=0",
                "--v=1"));
    command.addAll(upstreamTuning(peer));
    return command;
  }

  /** The controllers both peers run: the ones that call the cloud in a steady state. */
  static final List<String> CONTROLLERS = List.of("cloud-node", "cloud-node-lifecycle", "service");

  /** The settings both peers get. */
  private List<String> sharedTuning() {
    return List.of(
        "--node-status-update-frequency=" + settings.addressSyncPeriod().toSeconds() + "s",
        "--concurrent-node-syncs=" + settings.workers(),
        "--kube-api-qps=" + settings.kubeApiQps(),
        "--kube-api-burst=" + (int) Math.max(1, settings.kubeApiQps()));
  }

  /** Upstream at its defaults but for the address-sync period, or tuned like ccm4j. */
  private List<String> upstreamTuning(Peer peer) {
    if (peer == Peer.UPSTREAM_TUNED) {
      return sharedTuning();
    }
    return List.of(
        "--node-status-update-frequency=" + settings.addressSyncPeriod().toSeconds() + "s");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
