package io.ccm4j.app.bench;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
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
import io.ccm4j.runtime.serving.LocalManagerHttp;
import io.ccm4j.runtime.serving.ServingKeys;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

/**
 * Faults injected into a manager under load, each on a control plane of its own (issue 12): the API
 * server or etcd crashes while nodes initialise; the cloud fails and hangs; a flood reaches the
 * serving port; a CNI's NetworkUnavailable conditions make the route controller write every node.
 * The manager runs in this process with a client per concern, as {@code ccm4j run} has, and leader
 * election on. Each scenario returns what it measured; {@code ccm4j bench faults} prints them, the
 * integration tests run them small and check them.
 */
public final class FaultsBenchmark {

  /**
   * @param nodes nodes per scenario
   * @param kubeApiQps the manager's {@code --kube-api-qps} (burst 1.5 times that)
   * @param workers {@code --concurrent-node-syncs} and {@code --concurrent-service-syncs}
   * @param timeout how long a phase may take before the scenario gives up
   */
  public record Settings(int nodes, double kubeApiQps, int workers, Duration timeout) {}

  /** What one fault did: whether its targets held, and its rows of the table. */
  public sealed interface Outcome permits Crash, CloudFaults, Flood, CniConditions {
    boolean ok();

    /** Rows of three cells: the fault, the figure, the detail. */
    List<String[]> rows();
  }

  /** Prints the outcomes as one table; whether every target held. */
  public static boolean print(PrintStream out, Settings settings, List<Outcome> outcomes) {
    out.println();
    out.printf(
        "faults: kube-api-qps %s, %d workers, leader election 15s/10s/2s, clients per concern%n",
        settings.kubeApiQps(), settings.workers());
    String format = "| %-46s | %-14s | %s |%n";
    out.printf(format, "fault", "figure", "detail");
    out.printf(format, "-".repeat(46), "-".repeat(14), "---");
    outcomes.stream()
        .flatMap(o -> o.rows().stream())
        .forEach(row -> out.printf(format, (Object[]) row));
    boolean ok = outcomes.stream().allMatch(Outcome::ok);
    out.println(ok ? "targets met" : "TARGET MISSED");
    return ok;
  }

  private static String[] row(String fault, String figure, String detail) {
    return new String[] {fault, figure, detail};
  }

  /** What a crash of {@code component} under node initialisation did. */
  public record Crash(
      String component,
      int nodes,
      int initialisedBefore,
      Duration outage,
      double recoveredSeconds,
      double totalSeconds,
      int initialised,
      int withoutProviderId,
      long metadataCalls,
      double retries,
      boolean leaseKept)
      implements Outcome {

    @Override
    public List<String[]> rows() {
      return List.of(
          row(
              component + " killed (SIGKILL), back after",
              "%.1f s".formatted(outage.toMillis() / 1000.0),
              "%d nodes, %d initialised before the kill".formatted(nodes, initialisedBefore)),
          row(
              "  all initialised after it was back",
              "%.1f s".formatted(recoveredSeconds),
              "%d / %d initialised, %d without provider ID, %.1f s in all"
                  .formatted(initialised, nodes, withoutProviderId, totalSeconds)),
          row(
              "  InstanceMetadata calls per node",
              "%.3f".formatted(metadataCalls / (double) nodes),
              "%.0f retries; Lease kept: %s".formatted(retries, leaseKept)));
    }

    @Override
    public boolean ok() {
      return initialised == nodes
          && withoutProviderId == 0
          && metadataCalls <= nodes + (long) retries
          && leaseKept;
    }
  }

  /** What a failing and hanging cloud did. */
  public record CloudFaults(
      int nodes,
      int services,
      double convergedSeconds,
      int initialised,
      int nodesLeft,
      int loadBalancers,
      int routesThen,
      int routesAfter,
      long calls,
      long failed,
      long hung,
      boolean leaseKept)
      implements Outcome {

    @Override
    public List<String[]> rows() {
      return List.of(
          row(
              "cloud fails 30%, hangs 5% (2 s): converged",
              "%.1f s".formatted(convergedSeconds),
              "%d NotReady nodes initialised, %d load balancers, %d routes"
                  .formatted(initialised, loadBalancers, routesThen)),
          row(
              "  15 s later",
              ok() ? "nothing lost" : "LOST",
              "%d nodes, %d routes; %d calls, %d failed, %d hung; Lease kept: %s"
                  .formatted(nodesLeft, routesAfter, calls, failed, hung, leaseKept)));
    }

    @Override
    public boolean ok() {
      return initialised == nodes
          && nodesLeft == nodes
          && loadBalancers == services
          && routesThen == nodes
          && routesAfter == nodes
          && leaseKept;
    }
  }

  /** What a flood at the serving port did to node initialisation, the Lease and the reviews. */
  public record Flood(
      int nodes,
      double quietSeconds,
      double floodedSeconds,
      long requests,
      double floodSeconds,
      Map<Integer, Integer> answers,
      double reviews,
      double reviewBound,
      boolean leaseKept)
      implements Outcome {

    @Override
    public List<String[]> rows() {
      return List.of(
          row(
              "flood (32 clients, random paths and tokens)",
              "%.0f/s".formatted(requests / floodSeconds),
              "%.0f s, answers %s".formatted(floodSeconds, answers)),
          row(
              "  %d nodes initialised, quiet / flooded".formatted(nodes),
              "%.2f / %.2f s".formatted(quietSeconds, floodedSeconds),
              "target: within 10%%: %s".formatted(floodedSeconds <= quietSeconds * 1.1)),
          row(
              "  reviews sent to the API server",
              "%.0f".formatted(reviews),
              "bound %.0f; Lease kept: %s".formatted(reviewBound, leaseKept)));
    }

    @Override
    public boolean ok() {
      return leaseKept && reviews <= reviewBound && floodedSeconds <= quietSeconds * 1.1;
    }
  }

  /** What a CNI's conditions on every node did to the Lease while the route controller wrote. */
  public record CniConditions(
      int nodes, double routedSeconds, int routed, long routePasses, boolean leaseKept)
      implements Outcome {

    @Override
    public List<String[]> rows() {
      return List.<String[]>of(
          row(
              "CNI marks %d nodes NetworkUnavailable".formatted(nodes),
              "%.1f s".formatted(routedSeconds),
              "until %d / %d written back by the route controller; Lease kept: %s"
                  .formatted(routed, nodes, leaseKept)));
    }

    @Override
    public boolean ok() {
      return routed == nodes && leaseKept;
    }
  }

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
  public Crash crash(String component, Duration down) throws Exception {
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
          () -> initialised(client, prefix) >= nodes / 3,
          manager);
      int before = initialised(client, prefix);
      out.printf("crash %s: %d nodes initialised; killing %s%n", component, before, component);
      Duration outage = bed.controlPlane().crashAndRestart(component, down);
      long back = System.nanoTime();
      awaitTrue("every node initialised", () -> initialised(client, prefix) == nodes, manager);
      long done = System.nanoTime();
      List<Node> all = nodes(client, prefix);
      int withoutProviderId =
          (int)
              all.stream()
                  .filter(
                      node ->
                          node.getSpec().getProviderID() == null
                              || node.getSpec().getProviderID().isEmpty())
                  .count();
      return new Crash(
          component,
          nodes,
          before,
          outage,
          (done - back) / 1e9,
          (done - registered) / 1e9,
          initialised(client, prefix),
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
  public CloudFaults cloudFaults(int services, double errorRate, double hangRate, Duration hang)
      throws Exception {
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
      awaitTrue(
          "every node initialised, every load balancer and route in place",
          () ->
              initialised(client, prefix) == nodes
                  && withIngress(client, services) == services
                  && cloud.routeTable().routes("kubernetes").size() == nodes,
          manager);
      double converged = (System.nanoTime() - started) / 1e9;
      int routesThen = cloud.routeTable().routes("kubernetes").size();
      out.printf("cloud faults: converged after %.1f s; 15 s more of faults%n", converged);
      Thread.sleep(15_000);
      Map<String, Long> calls = cloud.calls();
      long failed = calls.getOrDefault(SimCloud.INJECTED_ERRORS, 0L);
      long hung = calls.getOrDefault(SimCloud.INJECTED_HANGS, 0L);
      long total =
          calls.values().stream().mapToLong(Long::longValue).sum()
              - failed
              - hung
              - calls.getOrDefault(SimCloud.THROTTLED, 0L);
      return new CloudFaults(
          nodes,
          services,
          converged,
          initialised(client, prefix),
          nodes(client, prefix).size(),
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
  public Flood flood(int clients, Duration minimum) throws Exception {
    String prefix = "flood-" + shortId() + "-";
    int nodes = settings.nodes();
    SimCloud cloud = cloud(prefix, 2 * nodes, "latencyMs: 5");
    Map<Integer, AtomicInteger> answers = new ConcurrentHashMap<>();
    AtomicBoolean flooding = new AtomicBoolean(true);
    List<Thread> flood = new ArrayList<>();
    try (Bed bed = Bed.open(cloud, List.of("cloud-node"), false, false, settings)) {
      KubernetesClient client = bed.client();
      Manager manager = bed.manager();
      KubeletFleet kubelets = bed.kubelets();
      double quiet = initialise(client, kubelets, prefix, 0, nodes, manager);
      out.printf("flood: %d nodes initialised in %.2f s without it; flooding%n", nodes, quiet);
      Map<String, Double> before = ApiServerMetrics.requestTotals(client);
      HttpClient http = LocalManagerHttp.client();
      String base = "https://127.0.0.1:" + manager.servingPort();
      long floodStarted = System.nanoTime();
      for (int i = 0; i < clients; i++) {
        boolean withToken = i % 2 == 0;
        flood.add(
            Thread.ofPlatform()
                .name("flood-" + i)
                .start(
                    () -> {
                      while (flooding.get()) {
                        String random = UUID.randomUUID().toString();
                        HttpRequest.Builder request =
                            HttpRequest.newBuilder(
                                    URI.create(base + (withToken ? "/metrics" : "/x" + random)))
                                .timeout(Duration.ofSeconds(5));
                        if (withToken) {
                          request.header("Authorization", "Bearer " + random);
                        }
                        int status;
                        try {
                          status =
                              http.send(request.build(), HttpResponse.BodyHandlers.discarding())
                                  .statusCode();
                        } catch (Exception e) {
                          status = -1;
                        }
                        answers
                            .computeIfAbsent(status, code -> new AtomicInteger())
                            .getAndIncrement();
                      }
                    }));
      }
      double flooded;
      try {
        flooded = initialise(client, kubelets, prefix, nodes, 2 * nodes, manager);
        while (System.nanoTime() - floodStarted < minimum.toNanos()) {
          manager.watchLease();
          Thread.sleep(250);
        }
      } finally {
        flooding.set(false);
        for (Thread thread : flood) {
          thread.join();
        }
      }
      double seconds = (System.nanoTime() - floodStarted) / 1e9;
      Map<String, Double> after = ApiServerMetrics.requestTotals(client);
      double reviews =
          ApiServerMetrics.delta(before, after, "POST tokenreviews")
              + ApiServerMetrics.delta(before, after, "POST subjectaccessreviews");
      Map<Integer, Integer> counted = new TreeMap<>();
      answers.forEach((code, count) -> counted.put(code, count.get()));
      return new Flood(
          nodes,
          quiet,
          flooded,
          counted.values().stream().mapToLong(Integer::longValue).sum(),
          seconds,
          counted,
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
  public CniConditions cniConditions() throws Exception {
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
      awaitTrue("every node routed", () -> routed(client, prefix) == nodes, manager);
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
      awaitTrue("every node routed again", () -> routed(client, prefix) == nodes, manager);
      double seconds = (System.nanoTime() - written) / 1e9;
      return new CniConditions(
          nodes,
          seconds,
          routed(client, prefix),
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
            nodes(client, prefix).stream()
                    .filter(node -> names.contains(node.getMetadata().getName()))
                    .filter(FaultsBenchmark::isInitialised)
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

  private static NetworkSettings network(boolean routes) {
    return new NetworkSettings(
        NetworkSettings.parseDualStack(CLUSTER_CIDR),
        routes,
        Duration.ofSeconds(10),
        routes,
        24,
        64,
        List.of(),
        false);
  }

  private static List<Node> nodes(KubernetesClient client, String prefix) {
    return client.nodes().list().getItems().stream()
        .filter(node -> node.getMetadata().getName().startsWith(prefix))
        .toList();
  }

  private static boolean isInitialised(Node node) {
    return node.getSpec().getProviderID() != null
        && (node.getSpec().getTaints() == null
            || node.getSpec().getTaints().stream()
                .noneMatch(t -> t.getKey().equals(WellKnownTaints.UNINITIALIZED)));
  }

  private static int initialised(KubernetesClient client, String prefix) {
    return (int) nodes(client, prefix).stream().filter(FaultsBenchmark::isInitialised).count();
  }

  private static int withIngress(KubernetesClient client, int services) {
    return (int)
        IntStream.range(0, services)
            .mapToObj(i -> client.services().inNamespace("default").withName("web-" + i).get())
            .filter(
                service ->
                    service != null
                        && service.getStatus() != null
                        && service.getStatus().getLoadBalancer() != null
                        && service.getStatus().getLoadBalancer().getIngress() != null
                        && !service.getStatus().getLoadBalancer().getIngress().isEmpty())
            .count();
  }

  /** Nodes whose NetworkUnavailable condition the route controller wrote False. */
  private static int routed(KubernetesClient client, String prefix) {
    return (int)
        nodes(client, prefix).stream()
            .filter(
                node ->
                    node.getStatus() != null
                        && node.getStatus().getConditions() != null
                        && node.getStatus().getConditions().stream()
                            .anyMatch(FaultsBenchmark::routeCreated))
            .count();
  }

  private static boolean routeCreated(NodeCondition condition) {
    return NodeConditions.NETWORK_UNAVAILABLE.equals(condition.getType())
        && ConditionStatus.FALSE.equals(condition.getStatus())
        && "RouteCreated".equals(condition.getReason());
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
        manager = Manager.start(controlPlane, cloud, controllers, network(routes), settings);
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
      var counter = search.counter();
      return counter == null ? 0 : counter.count();
    }

    @Override
    public void close() {
      manager.close();
      clients.close();
    }
  }
}
