package io.ccm4j.bench;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.runtime.serving.ServingKeys;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

/**
 * Faults injected into a manager under load, each on a control plane of its own: the API server or
 * etcd crashes while nodes initialise; the cloud fails and hangs; a flood reaches the serving port;
 * a CNI's NetworkUnavailable conditions make the route controller write every node. The manager
 * runs in this process with a client per concern, as {@code ccm4j run} has, and leader election on.
 * Each scenario returns what it measured (a {@link FaultOutcome}); {@code ccm4j bench faults}
 * prints them, the integration tests run them small and check them. The flood is {@link
 * ServingPortFlood}'s; what the scenarios read back from the cluster, {@link ClusterCounts}'.
 */
public final class FaultsBenchmark {

  /**
   * @param nodes nodes per scenario
   * @param kubeApiQps the manager's {@code --kube-api-qps} (burst 1.5 times that)
   * @param workers {@code --concurrent-node-syncs} and {@code --concurrent-service-syncs}
   * @param timeout how long a phase may take before the scenario gives up
   */
  /**
   * @param routeReconciliationPeriod the manager's {@code --route-reconciliation-period}: a route
   *     whose creation failed is tried again a period later (upstream's default: 10 s)
   */
  public record Settings(
      int nodes,
      double kubeApiQps,
      int workers,
      Duration timeout,
      Duration routeReconciliationPeriod) {}

  private static final String CLUSTER_CIDR = "10.64.0.0/10";

  private final Settings settings;
  private final PrintStream out;

  public FaultsBenchmark(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /**
   * Kills {@code component} (kube-apiserver or etcd) with SIGKILL once a third of the nodes are
   * initialised and starts it again after {@code down}.
   */
  public FaultOutcome.Crash crash(String component, Duration down) throws Exception {
    String prefix = "crash-" + shortId() + "-";
    int nodes = settings.nodes();
    SimCloud cloud = cloud(prefix, nodes, "latencyMs: 5");
    try (Bed bed = Bed.open(cloud, List.of("cloud-node"), false, false, settings)) {
      KubernetesClient client = bed.client();
      Manager manager = bed.manager();
      long registered = System.nanoTime();
      out.printf("crash %s: registering %d nodes%n", component, nodes);
      for (int i = 0; i < nodes; i++) {
        bed.kubelets().register(NodeSpec.named(prefix + i));
      }
      awaitTrue(
          "a third of the nodes initialised",
          () -> ClusterCounts.initialised(client, prefix) >= nodes / 3,
          manager);
      int before = ClusterCounts.initialised(client, prefix);
      out.printf("crash %s: %d nodes initialised; killing %s%n", component, before, component);
      Duration outage = bed.controlPlane().crashAndRestart(component, down);
      long back = System.nanoTime();
      awaitTrue(
          "every node initialised",
          () -> ClusterCounts.initialised(client, prefix) == nodes,
          manager);
      long done = System.nanoTime();
      List<Node> all = ClusterCounts.nodes(client, prefix);
      int withoutProviderId =
          (int)
              all.stream()
                  .filter(
                      node ->
                          node.getSpec().getProviderID() == null
                              || node.getSpec().getProviderID().isEmpty())
                  .count();
      return new FaultOutcome.Crash(
          component,
          nodes,
          before,
          outage,
          (done - back) / 1e9,
          (done - registered) / 1e9,
          ClusterCounts.initialised(client, prefix),
          withoutProviderId,
          cloud.calls().getOrDefault("InstanceMetadata", 0L),
          manager.counter("workqueue.retries", "Nodes"),
          manager.leaseKept());
    }
  }

  /**
   * A cloud failing {@code errorRate} of its calls and letting {@code hangRate} hang for {@code
   * hang} and then fail; the nodes report NotReady throughout, so the cloud-node-lifecycle
   * controller asks about each of them every 5 s; load balancers and routes too.
   */
  public FaultOutcome.CloudFaults cloudFaults(
      int services, double errorRate, double hangRate, Duration hang) throws Exception {
    String prefix = "faulty-cloud-" + shortId() + "-";
    int nodes = settings.nodes();
    SimCloud cloud =
        cloud(
            prefix,
            nodes,
            "latencyMs: 5\nerrorRate: %s\nhangRate: %s\nhangMs: %d"
                .formatted(errorRate, hangRate, hang.toMillis()));
    List<String> controllers =
        List.of("cloud-node", "cloud-node-lifecycle", "service", "route", "nodeipam");
    try (Bed bed = Bed.open(cloud, controllers, true, true, settings)) {
      KubernetesClient client = bed.client();
      Manager manager = bed.manager();
      long started = System.nanoTime();
      for (int i = 0; i < nodes; i++) {
        bed.kubelets()
            .register(NodeSpec.named(prefix + i).withNotReady("network plugin not ready"));
      }
      for (int i = 0; i < services; i++) {
        client
            .services()
            .inNamespace("default")
            .resource(BenchServices.loadBalancer("web-" + i))
            .create();
      }
      // when each part first converged: the last one is the run's tail
      Map<String, Double> convergedAt = new ConcurrentHashMap<>();
      awaitTrue(
          "every node initialised, every load balancer and route in place",
          () ->
              converged(
                      convergedAt,
                      "nodes",
                      started,
                      ClusterCounts.initialised(client, prefix) == nodes)
                  & converged(
                      convergedAt,
                      "load balancers",
                      started,
                      ClusterCounts.withIngress(client, services) == services)
                  & converged(
                      convergedAt,
                      "routes",
                      started,
                      cloud.routeTable().routes("kubernetes").size() == nodes),
          manager);
      double converged = (System.nanoTime() - started) / 1e9;
      int routesThen = cloud.routeTable().routes("kubernetes").size();
      out.printf(
          "cloud faults: converged after %.1f s (nodes %.1f s, load balancers %.1f s, routes %.1f s,"
              + " route reconciliation every %s); 15 s more of faults%n",
          converged,
          convergedAt.get("nodes"),
          convergedAt.get("load balancers"),
          convergedAt.get("routes"),
          settings.routeReconciliationPeriod());
      Thread.sleep(15_000);
      Map<String, Long> calls = cloud.calls();
      long failed = calls.getOrDefault(SimCloud.INJECTED_ERRORS, 0L);
      long hung = calls.getOrDefault(SimCloud.INJECTED_HANGS, 0L);
      long total =
          calls.values().stream().mapToLong(Long::longValue).sum()
              - failed
              - hung
              - calls.getOrDefault(SimCloud.THROTTLED, 0L);
      return new FaultOutcome.CloudFaults(
          nodes,
          services,
          converged,
          ClusterCounts.initialised(client, prefix),
          ClusterCounts.nodes(client, prefix).size(),
          cloud.loadBalancers().loadBalancers().size(),
          routesThen,
          cloud.routeTable().routes("kubernetes").size(),
          total,
          failed,
          hung,
          manager.leaseKept());
    }
  }

  /**
   * Nodes initialise once without and once under a flood: {@code clients} clients sending anonymous
   * requests for random paths and requests with random bearer tokens to the serving port, for at
   * least {@code minimum}.
   */
  public FaultOutcome.Flood flood(int clients, Duration minimum) throws Exception {
    String prefix = "flood-" + shortId() + "-";
    int nodes = settings.nodes();
    SimCloud cloud = cloud(prefix, 2 * nodes, "latencyMs: 5");
    try (Bed bed = Bed.open(cloud, List.of("cloud-node"), false, false, settings)) {
      KubernetesClient client = bed.client();
      Manager manager = bed.manager();
      KubeletFleet kubelets = bed.kubelets();
      double quiet = initialise(client, kubelets, prefix, 0, nodes, manager);
      out.printf("flood: %d nodes initialised in %.2f s without it; flooding%n", nodes, quiet);
      Map<String, Double> before = ApiServerMetrics.requestTotals(client);
      long floodStarted = System.nanoTime();
      ServingPortFlood flood = ServingPortFlood.start(clients, manager.servingPort());
      double flooded;
      Map<Integer, Integer> answers;
      try {
        flooded = initialise(client, kubelets, prefix, nodes, 2 * nodes, manager);
        while (System.nanoTime() - floodStarted < minimum.toNanos()) {
          manager.watchLease();
          Thread.sleep(250);
        }
      } finally {
        answers = flood.stop();
      }
      double seconds = (System.nanoTime() - floodStarted) / 1e9;
      Map<String, Double> after = ApiServerMetrics.requestTotals(client);
      double reviews =
          ApiServerMetrics.delta(before, after, "POST tokenreviews")
              + ApiServerMetrics.delta(before, after, "POST subjectaccessreviews");
      return new FaultOutcome.Flood(
          nodes,
          quiet,
          flooded,
          answers.values().stream().mapToLong(Integer::longValue).sum(),
          seconds,
          answers,
          reviews,
          ManagerClients.REVIEW_BURST + ManagerClients.REVIEW_QPS * seconds,
          manager.leaseKept());
    }
  }

  /**
   * Every node's NetworkUnavailable condition is written True by a CNI (as one that waits for
   * routes does) while the route controller runs: it must write each node back, a thousand patches
   * in one pass, without its leader losing the Lease.
   */
  public FaultOutcome.CniConditions cniConditions() throws Exception {
    String prefix = "cni-" + shortId() + "-";
    int nodes = settings.nodes();
    SimCloud cloud = cloud(prefix, nodes, "latencyMs: 5");
    try (Bed bed =
        Bed.open(cloud, List.of("cloud-node", "route", "nodeipam"), true, false, settings)) {
      KubernetesClient client = bed.client();
      Manager manager = bed.manager();
      for (int i = 0; i < nodes; i++) {
        bed.kubelets().register(NodeSpec.named(prefix + i));
      }
      awaitTrue("every node routed", () -> ClusterCounts.routed(client, prefix) == nodes, manager);
      out.printf("cni: %d nodes routed; the CNI writes NetworkUnavailable=True on each%n", nodes);
      long written = System.nanoTime();
      IntStream.range(0, nodes)
          .parallel()
          .forEach(
              i ->
                  NodePatches.patchCondition(
                      client,
                      prefix + i,
                      NodeConditions.NETWORK_UNAVAILABLE,
                      ConditionStatus.TRUE,
                      "CNIWaitingForRoutes",
                      "the CNI waits for routes"));
      awaitTrue(
          "every node routed again", () -> ClusterCounts.routed(client, prefix) == nodes, manager);
      double seconds = (System.nanoTime() - written) / 1e9;
      return new FaultOutcome.CniConditions(
          nodes,
          seconds,
          ClusterCounts.routed(client, prefix),
          (long) manager.counter("route_controller_route_sync_total", null),
          manager.leaseKept());
    }
  }

  private double initialise(
      KubernetesClient client,
      KubeletFleet kubelets,
      String prefix,
      int from,
      int to,
      Manager manager)
      throws Exception {
    long registered = System.nanoTime();
    for (int i = from; i < to; i++) {
      kubelets.register(NodeSpec.named(prefix + i));
    }
    Set<String> names =
        IntStream.range(from, to)
            .mapToObj(i -> prefix + i)
            .collect(java.util.stream.Collectors.toSet());
    awaitTrue(
        "nodes %s%d..%d initialised".formatted(prefix, from, to - 1),
        () ->
            ClusterCounts.nodes(client, prefix).stream()
                    .filter(node -> names.contains(node.getMetadata().getName()))
                    .filter(ClusterCounts::isInitialised)
                    .count()
                == names.size(),
        manager);
    return (System.nanoTime() - registered) / 1e9;
  }

  /** Polls every 100 ms, watching the manager's Lease; a request that fails counts as false. */
  private void awaitTrue(String what, BooleanSupplier condition, Manager manager)
      throws InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    while (true) {
      manager.watchLease();
      boolean met;
      try {
        met = condition.getAsBoolean();
      } catch (RuntimeException e) {
        met = false; // the API server is down or restarting
      }
      if (met) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "gave up after %s waiting for: %s".formatted(settings.timeout(), what));
      }
      Thread.sleep(100);
    }
  }

  /** Whether a part has converged, noting the first time it had. */
  private static boolean converged(
      Map<String, Double> at, String part, long started, boolean converged) {
    if (converged) {
      at.putIfAbsent(part, (System.nanoTime() - started) / 1e9);
    }
    return converged;
  }

  private static SimCloud cloud(String prefix, int count, String faults)
      throws CloudConfigException {
    return SimCloudProviderFactory.fromYaml(
        """
        %s
        generate:
          count: %d
          prefix: %s
          regions: {r1: [r1-a, r1-b, r1-c]}
          instanceTypes: [sim.small]
        """
            .formatted(faults, count, prefix));
  }

  private static NetworkSettings network(boolean routes, Duration routeReconciliationPeriod) {
    return new NetworkSettings(
        NetworkSettings.parseDualStack(CLUSTER_CIDR),
        routes,
        routeReconciliationPeriod,
        routes,
        24,
        64,
        List.of(),
        false);
  }

  private static String shortId() {
    return UUID.randomUUID().toString().substring(0, 6);
  }

  /**
   * A control plane of the scenario's own, its manager, its kubelets; closed in that order back.
   */
  private record Bed(
      LocalControlPlane controlPlane,
      KubernetesClient client,
      Manager manager,
      KubeletFleet kubelets)
      implements AutoCloseable {

    static Bed open(
        SimCloud cloud,
        List<String> controllers,
        boolean routes,
        boolean heartbeats,
        Settings settings)
        throws InterruptedException {
      LocalControlPlane controlPlane = LocalControlPlane.builder().start();
      KubernetesClient client = controlPlane.newClient();
      Manager manager;
      try {
        manager =
            Manager.start(
                controlPlane,
                cloud,
                controllers,
                network(routes, settings.routeReconciliationPeriod()),
                settings);
      } catch (RuntimeException | InterruptedException e) {
        client.close();
        controlPlane.close();
        throw e;
      }
      KubeletFleet kubelets =
          new KubeletFleet(
              client,
              heartbeats
                  ? KubeletFleet.Options.kubeletDefaults()
                  : KubeletFleet.Options.withoutHeartbeats());
      return new Bed(controlPlane, client, manager, kubelets);
    }

    @Override
    public void close() throws Exception {
      kubelets.close();
      manager.close();
      client.close();
      controlPlane.close();
    }
  }

  /** A manager as {@code ccm4j run} has it, in this process, serving on loopback. */
  private static final class Manager implements AutoCloseable {
    private final ManagerClients clients;
    private final CloudControllerManager manager;
    private final List<Integer> exits;
    private final AtomicBoolean leaseKept = new AtomicBoolean(true);

    private Manager(ManagerClients clients, CloudControllerManager manager, List<Integer> exits) {
      this.clients = clients;
      this.manager = manager;
      this.exits = exits;
    }

    static Manager start(
        LocalControlPlane controlPlane,
        SimCloud cloud,
        List<String> controllers,
        NetworkSettings network,
        Settings settings)
        throws InterruptedException {
      ManagerClients clients =
          ManagerClients.create(
              controlPlane.adminConfig(),
              settings.kubeApiQps(),
              (int) Math.max(1, settings.kubeApiQps() * 1.5),
              false);
      List<Integer> exits = new CopyOnWriteArrayList<>();
      CloudControllerManager manager =
          CloudControllerManager.builder(clients)
              .cloud(cloud)
              .selection(ControllerSelection.parse(controllers, Set.of()))
              .controllers(
                  ControllerSettings.defaults()
                      .withConcurrentNodeSyncs(settings.workers())
                      .withConcurrentServiceSyncs(settings.workers())
                      .withNetwork(network))
              .leaderElection(LeaderElection.Settings.defaults("faults_" + UUID.randomUUID()))
              .serving(new InetSocketAddress("127.0.0.1", 0), ServingKeys.selfSigned())
              .exit(exits::add)
              .build();
      manager.start();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!manager.isLeader()) {
        if (System.nanoTime() > deadline) {
          manager.close();
          clients.close();
          throw new IllegalStateException("the manager did not lead within 60 s");
        }
        Thread.sleep(100);
      }
      return new Manager(clients, manager, exits);
    }

    void watchLease() {
      if (!exits.isEmpty() || !manager.isLeader()) {
        leaseKept.set(false);
      }
    }

    boolean leaseKept() {
      watchLease();
      return leaseKept.get();
    }

    int servingPort() {
      return manager.servingAddress().orElseThrow().getPort();
    }

    /** A counter of the manager's registry, by name and (when given) its {@code name} tag. */
    double counter(String name, String nameTag) {
      var search = manager.metrics().find(name);
      if (nameTag != null) {
        search = search.tag("name", nameTag);
      }
      // every series of the name (route_controller_route_sync_total has one per outcome and
      // trigger)
      return search.counters().stream().mapToDouble(c -> c.count()).sum();
    }

    @Override
    public void close() {
      manager.close();
      clients.close();
    }
  }
}
