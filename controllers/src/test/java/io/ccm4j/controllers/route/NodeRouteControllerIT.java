package io.ccm4j.controllers.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.Route;
import io.ccm4j.controllers.ControllerHarness;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.provider.sim.SimRoutes;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The node-route controller (R1–R9) against a real API server and the sim cloud's route table. */
@WithControlPlane
class NodeRouteControllerIT {

  private static final String CLUSTER = "kubernetes";
  private static final String CLUSTER_CIDRS = "10.110.0.0/16,fd00:110::/48";

  private final KubernetesClient client;
  private final String prefix = "rt-" + UUID.randomUUID().toString().substring(0, 6) + "-";
  private SimCloud cloud;
  private SimRoutes table;
  private ControllerHarness harness;
  private KubeletFleet kubelets;

  NodeRouteControllerIT(KubernetesClient client) {
    this.client = client;
  }

  @BeforeEach
  void cloud() throws Exception {
    // The controller routes every node of the cluster: start from none, so the routes and calls
    // counted are this test's (other classes share the API server and may leave pod CIDRs).
    client.nodes().delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> client.nodes().list().getItems().isEmpty());
    cloud = SimCloudProviderFactory.fromYaml("latencyMs: 5");
    table = cloud.routeTable();
  }

  @AfterEach
  void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
    if (kubelets != null) {
      kubelets.close();
    }
    client.nodes().list().getItems().stream()
        .filter(node -> node.getMetadata().getName().startsWith(prefix))
        .forEach(node -> client.nodes().resource(node).delete());
  }

  private static ControllerSettings settings(String clusterCidrs, boolean allocateNodeCidrs) {
    return settings(clusterCidrs, allocateNodeCidrs, false);
  }

  private static ControllerSettings settings(
      String clusterCidrs, boolean allocateNodeCidrs, boolean watchBased) {
    NetworkSettings network =
        new NetworkSettings(
            NetworkSettings.parseDualStack(clusterCidrs),
            true,
            Duration.ofMillis(300),
            allocateNodeCidrs,
            24,
            64,
            List.of(),
            watchBased);
    return ControllerSettings.defaults().withConcurrentNodeSyncs(1).withNetwork(network);
  }

  private void startRoutes() throws Exception {
    harness =
        new ControllerHarness(client, cloud, settings(CLUSTER_CIDRS, false))
            .start(Controllers.NODE_ROUTE);
  }

  private Node createNode(String name, String... podCidrs) {
    NodeBuilder node =
        new NodeBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewStatus()
            .withAddresses(new NodeAddress("192.168.0.10", "InternalIP"))
            .endStatus();
    if (podCidrs.length > 0) {
      node.editOrNewSpec().withPodCIDR(podCidrs[0]).withPodCIDRs(podCidrs).endSpec();
    }
    return client.nodes().resource(node.build()).create();
  }

  private Optional<Route> routeTo(String node, String cidr) {
    return table.routes(CLUSTER).stream()
        .filter(r -> r.targetNode().equals(node) && r.destinationCidr().equals(cidr))
        .findFirst();
  }

  private Optional<NodeCondition> networkUnavailable(String name) {
    Node node = client.nodes().withName(name).get();
    return node == null
        ? Optional.empty()
        : NodeConditions.find(node, NodeConditions.NETWORK_UNAVAILABLE);
  }

  private void awaitCondition(String name, String status, String reason, String message) {
    await()
        .atMost(20, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(networkUnavailable(name))
                    .hasValueSatisfying(
                        c -> {
                          assertThat(c.getStatus()).isEqualTo(status);
                          assertThat(c.getReason()).isEqualTo(reason);
                          assertThat(c.getMessage()).isEqualTo(message);
                        }));
  }

  /** Passes so far, of every outcome and trigger. */
  private double syncs() {
    return harness.metrics().find("route_controller_route_sync_total").counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  private double syncs(String outcome, String trigger) {
    Counter counter =
        harness
            .metrics()
            .find("route_controller_route_sync_total")
            .tags("outcome", outcome, "trigger", trigger)
            .counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void R7_R8_everyPodCidrGetsARouteAndTheNodeItsNetwork() throws Exception {
    String a = prefix + "a";
    String b = prefix + "b";
    String bare = prefix + "bare";
    Node nodeA = createNode(a, "10.110.1.0/24", "fd00:110:0:1::/64");
    createNode(b, "10.110.2.0/24");
    createNode(bare);
    startRoutes();

    awaitCondition(a, "False", "RouteCreated", "RouteController created a route");
    awaitCondition(b, "False", "RouteCreated", "RouteController created a route");
    assertThat(routeTo(a, "10.110.1.0/24")).isPresent();
    assertThat(routeTo(a, "fd00:110:0:1::/64")).isPresent();
    assertThat(routeTo(b, "10.110.2.0/24")).isPresent();
    assertThat(routeTo(a, "10.110.1.0/24").orElseThrow().name())
        .as("the node's UID is the name hint")
        .contains(nodeA.getMetadata().getUid());
    assertThat(networkUnavailable(bare)).as("a node without pod CIDRs is not touched").isEmpty();
    // The status subresource patch left the rest of the status alone.
    Node written = client.nodes().withName(a).get();
    assertThat(written.getStatus().getAddresses()).hasSize(1);

    // R8: once set, passes do not write the condition again.
    String version = client.nodes().withName(a).get().getMetadata().getResourceVersion();
    double before = syncs();
    await().atMost(10, TimeUnit.SECONDS).until(() -> syncs() >= before + 3);
    assertThat(client.nodes().withName(a).get().getMetadata().getResourceVersion())
        .isEqualTo(version);
    assertThat(cloud.calls().get("CreateRoute")).isEqualTo(3L);
  }

  /**
   * A hundred nodes need their NetworkUnavailable condition written in one pass: at most {@link
   * NodeRouteController#MAX_CONCURRENT_CONDITION_WRITES} patches are in flight at once, where one
   * thread per node used to put them all in the client's queue together.
   */
  @Test
  void conditionWritesOfAPassAreBoundedNotOnePerNodeAtOnce() throws Exception {
    int nodes = 100;
    IntStream.range(0, nodes)
        .forEach(i -> createNode(prefix + "n" + i, "10.110.%d.0/24".formatted(i + 1)));
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger mostInFlight = new AtomicInteger();
    Interceptor slowStatusPatches =
        new Interceptor() {
          @Override
          public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            if (!request.method().equals("PATCH") || !request.uri().getPath().endsWith("/status")) {
              return;
            }
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
              Thread.sleep(50);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            } finally {
              inFlight.decrementAndGet();
            }
          }
        };
    try (KubernetesClient counting =
        new KubernetesClientBuilder()
            .withConfig(client.getConfiguration())
            .withHttpClientBuilderConsumer(
                builder -> builder.addOrReplaceInterceptor("slow-status", slowStatusPatches))
            .build()) {
      harness =
          new ControllerHarness(counting, cloud, settings(CLUSTER_CIDRS, false))
              .start(Controllers.NODE_ROUTE);

      await()
          .atMost(60, TimeUnit.SECONDS)
          .until(
              () ->
                  IntStream.range(0, nodes)
                      .allMatch(
                          i ->
                              networkUnavailable(prefix + "n" + i)
                                  .filter(c -> c.getStatus().equals("False"))
                                  .isPresent()));
      harness.close();
      harness = null;
    }
    System.out.printf(
        "routes: %d NetworkUnavailable writes, at most %d in flight%n", nodes, mostInFlight.get());
    assertThat(mostInFlight.get())
        .isPositive()
        .isLessThanOrEqualTo(NodeRouteController.MAX_CONCURRENT_CONDITION_WRITES);
  }

  @Test
  void R6_aDeletedNodesRouteIsDeletedAndRoutesOutsideTheClusterCidrStay() throws Exception {
    String gone = prefix + "gone";
    createNode(gone, "10.110.3.0/24");
    Route vpn = new Route("vpn", "some-vm", false, List.of(), "192.168.50.0/24", false);
    Route gateway = new Route("gateway", "", false, List.of(), "0.0.0.0/0", false);
    Route stale = new Route("stale", prefix + "never", false, List.of(), "10.110.99.0/24", false);
    // Spelled IPv4-mapped, as a pod CIDR from before strict CIDR validation: still the cluster's.
    Route staleMapped =
        new Route(
            "stale-mapped", prefix + "never", false, List.of(), "::ffff:10.110.98.0/120", false);
    table.put(CLUSTER, vpn);
    table.put(CLUSTER, gateway);
    table.put(CLUSTER, stale);
    table.put(CLUSTER, staleMapped);
    startRoutes();
    await().atMost(20, TimeUnit.SECONDS).until(() -> routeTo(gone, "10.110.3.0/24").isPresent());

    client.nodes().withName(gone).delete();

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () ->
                routeTo(gone, "10.110.3.0/24").isEmpty()
                    && !table.routes(CLUSTER).contains(stale)
                    && !table.routes(CLUSTER).contains(staleMapped));
    double before = syncs();
    await().atMost(10, TimeUnit.SECONDS).until(() -> syncs() >= before + 2);
    assertThat(table.routes(CLUSTER)).contains(vpn, gateway);
  }

  @Test
  void R7_R8_aFailedCreateIsAWarningAndTheNetworkStaysUnavailableUntilItWorks() throws Exception {
    String name = prefix + "fail";
    Node node = createNode(name, "10.110.5.0/24");
    table.failCalls("CreateRoute", Integer.MAX_VALUE);
    startRoutes();

    awaitCondition(name, "True", "NoRouteCreated", "RouteController failed to create a route");
    await()
        .atMost(20, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor(name))
                    .anySatisfy(
                        event -> {
                          assertThat(event.getType()).isEqualTo("Warning");
                          assertThat(event.getReason()).isEqualTo("FailedToCreateRoute");
                          assertThat(event.getSource().getComponent())
                              .isEqualTo("route_controller");
                          assertThat(event.getMessage())
                              .startsWith(
                                  "Could not create route %s 10.110.5.0/24 for node %s after "
                                      .formatted(node.getMetadata().getUid(), name))
                              .endsWith(": sim: injected failure of CreateRoute");
                        }));

    table.clearFailures();

    awaitCondition(name, "False", "RouteCreated", "RouteController created a route");
    assertThat(routeTo(name, "10.110.5.0/24")).isPresent();
  }

  /**
   * A replaced node's pod CIDR goes to its successor: the pass deletes the old route and creates
   * the new one. A cloud that keys routes by destination (as AWS's route tables and the sim do)
   * refuses the creation while the old route exists, so it waits for the deletion.
   */
  @Test
  void R6_R7_aCidrPassedToANewNodeIsRoutedInOnePassWithoutAFailedCreate() throws Exception {
    String old = prefix + "old";
    String successor = prefix + "new";
    createNode(old, "10.110.8.0/24");
    startRoutes();
    await().atMost(20, TimeUnit.SECONDS).until(() -> routeTo(old, "10.110.8.0/24").isPresent());

    // Passes fail at their first call until both changes are in the informer's cache: the next
    // pass sees them together.
    table.failCalls("ListRoutes", Integer.MAX_VALUE);
    table.slowCalls("DeleteRoute", Duration.ofMillis(200));
    double failedBefore = syncs();
    client.nodes().withName(old).delete();
    createNode(successor, "10.110.8.0/24");
    await().atMost(10, TimeUnit.SECONDS).until(() -> syncs() >= failedBefore + 3);
    table.clearFailures();

    awaitCondition(successor, "False", "RouteCreated", "RouteController created a route");
    assertThat(routeTo(successor, "10.110.8.0/24")).isPresent();
    assertThat(routeTo(old, "10.110.8.0/24")).isEmpty();
    assertThat(harness.eventsFor(successor))
        .noneSatisfy(event -> assertThat(event.getReason()).isEqualTo("FailedToCreateRoute"));
  }

  @Test
  void R6_aBlackholeRouteIsReplaced() throws Exception {
    String name = prefix + "bh";
    createNode(name, "10.110.6.0/24");
    startRoutes();
    await().atMost(20, TimeUnit.SECONDS).until(() -> routeTo(name, "10.110.6.0/24").isPresent());

    assertThat(table.markBlackhole(CLUSTER, "10.110.6.0/24")).isTrue();

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () ->
                cloud.calls().getOrDefault("DeleteRoute", 0L) >= 1
                    && routeTo(name, "10.110.6.0/24").map(r -> !r.blackhole()).orElse(false));
  }

  @Test
  void R4_aListFailureAbortsOnlyThatPass() throws Exception {
    String name = prefix + "list";
    createNode(name, "10.110.7.0/24");
    table.failCalls("ListRoutes", 3);
    startRoutes();

    awaitCondition(name, "False", "RouteCreated", "RouteController created a route");
    assertThat(syncs()).isGreaterThanOrEqualTo(4);
    // upstream's route_sync_total{outcome, trigger}: the failed passes, then the one that created
    assertThat(syncs("error", "periodic")).isEqualTo(3);
    assertThat(syncs("changed", "periodic")).isGreaterThanOrEqualTo(1);
    await().atMost(10, TimeUnit.SECONDS).until(() -> syncs("noop", "periodic") >= 1);
  }

  @Test
  void nodeIpamAndRoutesTogetherBringKubeletNodesTheirNetwork() throws Exception {
    harness =
        new ControllerHarness(client, cloud, settings("10.111.0.0/16,fd00:111::/48", true))
            .start(Controllers.NODE_IPAM, Controllers.NODE_ROUTE);
    kubelets = new KubeletFleet(client, KubeletFleet.Options.kubeletDefaults());
    List<String> names = IntStream.range(0, 4).mapToObj(i -> prefix + "k" + i).toList();
    kubelets.registerAll(names.stream().map(NodeSpec::named).toList(), 4);

    for (String name : names) {
      awaitCondition(name, "False", "RouteCreated", "RouteController created a route");
      Node node = client.nodes().withName(name).get();
      assertThat(node.getSpec().getPodCIDRs()).hasSize(2);
      for (String cidr : node.getSpec().getPodCIDRs()) {
        assertThat(routeTo(name, cidr)).isPresent();
      }
      assertThat(NodeConditions.readyStatus(node)).isEqualTo("True");
    }
  }

  @Test
  void R3_watchBasedPassesRunOnNodeChangesOnlyAndReplaceARouteWhoseAddressesChanged()
      throws Exception {
    table.setEnableNodeAddresses(true);
    harness =
        new ControllerHarness(client, cloud, settings(CLUSTER_CIDRS, false, true))
            .start(Controllers.NODE_ROUTE);
    String name = prefix + "watch";
    createNode(name, "10.110.8.0/24");

    awaitCondition(name, "False", "RouteCreated", "RouteController created a route");
    assertThat(routeTo(name, "10.110.8.0/24").orElseThrow().targetNodeAddresses())
        .extracting(io.ccm4j.cloudprovider.NodeAddress::address)
        .containsExactly("192.168.0.10");
    // The Nodes the informer found at start may cause one more pass, up to 10 s later (R3).
    long[] seen = {-1};
    await()
        .atMost(20, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(2500))
        .until(
            () -> {
              long now = cloud.calls().get("ListRoutes");
              boolean quiet = now == seen[0];
              seen[0] = now;
              return quiet;
            });
    long lists = seen[0];
    // Nothing changes: no pass, though the periodic mode would run one every 300 ms here.
    await()
        .during(Duration.ofSeconds(2))
        .atMost(3, TimeUnit.SECONDS)
        .until(() -> cloud.calls().get("ListRoutes") == lists);

    client
        .nodes()
        .withName(name)
        .subresource("status")
        .patch(
            io.fabric8.kubernetes.client.dsl.base.PatchContext.of(
                io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
            "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"192.168.0.11\"}]}}");

    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(
            () ->
                routeTo(name, "10.110.8.0/24")
                    .map(r -> r.targetNodeAddresses().toString().contains("192.168.0.11"))
                    .orElse(false));
    assertThat(cloud.calls().get("DeleteRoute")).isEqualTo(1L);
  }
}
