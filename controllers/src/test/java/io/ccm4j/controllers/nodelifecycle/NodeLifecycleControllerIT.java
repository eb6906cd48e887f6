package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.AdmissionDenial;
import io.ccm4j.controllers.ControllerHarness;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.PodNamespaces;
import io.ccm4j.controllers.SharedInformers;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.PodStatusPatches;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.client.KubeClients;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The node-lifecycle controller against a real API server, with simulated kubelets and short
 * periods.
 *
 * <p>Each test starts from no Node at all (the controller judges every Node of the cluster), so the
 * class has a control plane of its own and runs beside the module's other classes (JUnit's parallel
 * execution, see this module's pom), its tests one after the other ({@link #OWN_NODES}).
 */
@WithControlPlane(shared = false)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(NodeLifecycleControllerIT.OWN_NODES)
class NodeLifecycleControllerIT {

  /** The Nodes of the class's control plane, which every test deletes first. */
  static final String OWN_NODES =
      "io.ccm4j.controllers.nodelifecycle.NodeLifecycleControllerIT.nodes";

  private static final Duration GRACE = Duration.ofSeconds(2);

  /** How often the simulated kubelets renew their Lease and post their status. */
  private static final Duration HEARTBEAT = Duration.ofMillis(300);

  private static final NodeHealthSettings FAST =
      new NodeHealthSettings(
          Duration.ofMillis(200), GRACE, Duration.ofSeconds(3), 0.5, 0.25, 0.55f, 5);

  private final KubernetesClient client;
  private final String prefix = "nl-" + UUID.randomUUID().toString().substring(0, 6) + "-";
  private KubeletFleet kubelets;
  private ControllerHarness harness;
  private NodeLifecycleController controller;

  NodeLifecycleControllerIT(KubernetesClient client) {
    this.client = client;
  }

  @BeforeEach
  void start() throws Exception {
    // The controller judges every node of the cluster: start from none, so zones are this test's.
    client.nodes().delete();
    await().atMost(30, TimeUnit.SECONDS).until(() -> client.nodes().list().getItems().isEmpty());
    kubelets = new KubeletFleet(client, new KubeletFleet.Options(HEARTBEAT, HEARTBEAT, true));
    ControllerSettings settings = ControllerSettings.defaults().withNodeHealth(FAST);
    harness =
        new ControllerHarness(client, SimCloudProviderFactory.fromYaml(""), settings)
            .start(Controllers.NODE_LIFECYCLE);
    controller = (NodeLifecycleController) harness.controllers().getFirst();
  }

  /** A client a test made for the controller; closed after it. */
  private KubernetesClient controllerClient;

  /** A client a test made for the controller's taint eviction; closed after it. */
  private KubernetesClient evictionClient;

  @AfterEach
  void stop() throws Exception {
    harness.close();
    kubelets.close();
    if (controllerClient != null) {
      controllerClient.close();
    }
    if (evictionClient != null) {
      evictionClient.close();
    }
  }

  private Node node(String name) {
    return client.nodes().withName(name).get();
  }

  private String ready(String name) {
    return NodeConditions.readyStatus(node(name));
  }

  private boolean hasTaint(String name, String key, String effect) {
    Node node = node(name);
    return node != null && Taints.has(node, key, effect);
  }

  private SimulatedKubelet kubelet(String name, String region, String zone) {
    return kubelets.register(
        NodeSpec.named(name)
            .withLabels(Map.of(WellKnownLabels.REGION, region, WellKnownLabels.ZONE, zone)));
  }

  @Test
  void aNodeWithoutHeartbeatsBecomesUnknownOnlyAfterTheGracePeriodAndIsTaintedUnreachable() {
    String name = prefix + "silent";
    SimulatedKubelet kubelet = kubelet(name, "r", "a");
    kubelet(prefix + "peer", "r", "a");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

    long stoppedAt = System.nanoTime();
    kubelet.stopHeartbeats();
    await()
        .atMost(20, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> "Unknown".equals(ready(name)));
    Duration silence = Duration.ofNanos(System.nanoTime() - stoppedAt);

    // The grace period runs from the last heartbeat seen, up to one interval before they stopped.
    assertThat(silence).isGreaterThan(GRACE.minus(HEARTBEAT));
    NodeCondition readyCondition = NodeConditions.find(node(name), "Ready").orElseThrow();
    assertThat(readyCondition.getReason()).isEqualTo("NodeStatusUnknown");
    assertThat(readyCondition.getMessage()).isEqualTo("Kubelet stopped posting node status.");
    assertThat(node(name).getStatus().getConditions())
        .filteredOn(
            c -> List.of("MemoryPressure", "DiskPressure", "PIDPressure").contains(c.getType()))
        .extracting(NodeCondition::getStatus)
        .containsOnly("Unknown");
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                hasTaint(name, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_SCHEDULE)
                    && hasTaint(
                        name, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE));

    kubelet.resumeHeartbeats();
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                "True".equals(ready(name))
                    && !Taints.hasKey(node(name), WellKnownTaints.NODE_UNREACHABLE));
  }

  @Test
  void aNodeIsQueuedForItsNoExecuteTaintInThePassThatMarksItUnknown() throws Exception {
    // Passes only when called here (the periodic one runs once, at start). Its zone's queue
    // remembers the nodes it was given until they are removed, tainted since or not, so what one
    // pass queued can be seen.
    harness.close();
    harness =
        new ControllerHarness(
                client,
                SimCloudProviderFactory.fromYaml(""),
                ControllerSettings.defaults()
                    .withNodeHealth(FAST.withMonitorPeriod(Duration.ofHours(1))))
            .start(Controllers.NODE_LIFECYCLE);
    controller = (NodeLifecycleController) harness.controllers().getFirst();
    String name = prefix + "queued";
    SimulatedKubelet kubelet = kubelet(name, "r", "q");
    kubelet(prefix + "queued-peer", "r", "q");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

    kubelet.stopHeartbeats();
    Thread.sleep(HEARTBEAT.toMillis() * 2); // the last heartbeat reaches the cache
    controller.monitorNodeHealth();
    assertThat(controller.isMarkedForNoExecuteTaint(name)).isFalse();
    Thread.sleep(GRACE.toMillis() + 500);
    controller.monitorNodeHealth();

    assertThat(ready(name)).isEqualTo("Unknown");
    // Upstream (1.37) queues it on the Ready this pass wrote, not on the True it read before.
    assertThat(controller.isMarkedForNoExecuteTaint(name)).isTrue();
  }

  @Test
  void aNodeStillUnknownWhenANewLeaderStartsGetsItsNoExecuteTaintBackWithoutWaitingAPass()
      throws Exception {
    String name = prefix + "failover";
    SimulatedKubelet kubelet = kubelet(name, "r", "f");
    kubelet(prefix + "failover-peer", "r", "f");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));
    kubelet.stopHeartbeats();
    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () ->
                "Unknown".equals(ready(name))
                    && hasTaint(
                        name, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE));
    // The leader goes; its taint stays, stamped long ago so the new leader's own can be told apart.
    harness.close();
    String previousLeaders = "2020-01-01T00:00:00Z";
    editTaints(
        name,
        taints ->
            taints.replaceAll(
                t ->
                    WellKnownTaints.NODE_UNREACHABLE.equals(t.getKey())
                            && WellKnownTaints.EFFECT_NO_EXECUTE.equals(t.getEffect())
                        ? new TaintBuilder(t).withTimeAdded(previousLeaders).build()
                        : t));

    // A new leader whose second pass is an hour away: upstream lifts the taint of a node it sees
    // for the first time and queues the node again in that same first pass.
    harness =
        new ControllerHarness(
                client,
                SimCloudProviderFactory.fromYaml(""),
                ControllerSettings.defaults()
                    .withNodeHealth(FAST.withMonitorPeriod(Duration.ofHours(1))))
            .start(Controllers.NODE_LIFECYCLE);

    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                Taints.of(node(name)).stream()
                    .anyMatch(
                        t ->
                            WellKnownTaints.NODE_UNREACHABLE.equals(t.getKey())
                                && WellKnownTaints.EFFECT_NO_EXECUTE.equals(t.getEffect())
                                && !previousLeaders.equals(t.getTimeAdded())));
  }

  @Test
  void aNodeIsNotMarkedUnknownWhileTheLeaseCacheMissesItsRenewals() {
    // A kubelet that renews its Lease and posts its status only at registration, as real ones do
    // between their status reports (every 5 minutes).
    try (KubeletFleet leaseOnly =
        new KubeletFleet(client, new KubeletFleet.Options(HEARTBEAT, Duration.ofHours(1), true))) {
      String name = prefix + "lease-only";
      leaseOnly.register(
          NodeSpec.named(name)
              .withLabels(Map.of(WellKnownLabels.REGION, "r", WellKnownLabels.ZONE, "l")));
      kubelet(prefix + "lease-only-peer", "r", "l");
      await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

      // The manager's Lease watch stalls: its cache keeps the last renewal it saw, the API server
      // has newer ones.
      SharedInformers.of(harness.context(Controllers.NODE_LIFECYCLE).informers(), Lease.class)
          .stop();

      await()
          .during(GRACE.multipliedBy(3))
          .atMost(GRACE.multipliedBy(4))
          .until(() -> "True".equals(ready(name)));
    }
  }

  @Test
  void aNodeThatNeverReportedBecomesUnknownAfterTheStartupGracePeriod() {
    String name = prefix + "mute";
    long created = System.nanoTime();
    client
        .nodes()
        .resource(
            new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .build())
        .create();

    // No Ready condition at all until the controller writes one.
    await()
        .atMost(20, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> NodeConditions.find(node(name), "Ready").isPresent());

    // Creation timestamps have whole seconds: allow for the truncation.
    assertThat(Duration.ofNanos(System.nanoTime() - created))
        .isGreaterThan(FAST.startupGracePeriod().minusSeconds(1));
    NodeCondition readyCondition = NodeConditions.find(node(name), "Ready").orElseThrow();
    assertThat(readyCondition.getReason()).isEqualTo("NodeStatusNeverUpdated");
    assertThat(readyCondition.getMessage()).isEqualTo("Kubelet never posted node status.");
  }

  @Test
  void nodesLabelledExcludeDisruptionDoNotCountInTheirZone() {
    SimulatedKubelet a = kubelet(prefix + "ex-0", "r", "ex");
    SimulatedKubelet b = kubelet(prefix + "ex-1", "r", "ex");
    kubelets.register(
        NodeSpec.named(prefix + "ex-2")
            .withLabels(
                Map.of(
                    WellKnownLabels.REGION,
                    "r",
                    WellKnownLabels.ZONE,
                    "ex",
                    WellKnownLabels.EXCLUDE_DISRUPTION,
                    "")));
    kubelet(prefix + "fine-0", "r", "fine");
    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(() -> controller.zoneState("r:\u0000:ex") == ZoneState.NORMAL);

    a.setReady(false, "down");
    b.setReady(false, "down");

    // The Ready but excluded node does not count: every counted node of the zone is down.
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> controller.zoneState("r:\u0000:ex") == ZoneState.FULL_DISRUPTION);
    assertThat(controller.zoneState("r:\u0000:fine")).isEqualTo(ZoneState.NORMAL);
    assertThat(
            harness.metrics().get("node_collector_zone_size").tag("zone", "r/ex").gauge().value())
        .isEqualTo(2.0);
    assertThat(
            harness
                .metrics()
                .get("node_collector_unhealthy_nodes_in_zone")
                .tag("zone", "r/ex")
                .gauge()
                .value())
        .isEqualTo(2.0);
  }

  @Test
  void podsOnANodeTheControllerMarksUnknownAreMarkedNotReady() {
    String nodeName = prefix + "podready";
    SimulatedKubelet kubelet = kubelet(nodeName, "r", "g");
    kubelet(prefix + "podready-peer", "r", "g");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(nodeName)));
    pod("serving", nodeName);
    client
        .pods()
        .inNamespace(namespace())
        .withName("serving")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");

    // Only the controller's own True -> Unknown transition marks pods (a kubelet that reports
    // NotReady marks its pods itself).
    kubelet.stopHeartbeats();

    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                client
                    .pods()
                    .inNamespace(namespace())
                    .withName("serving")
                    .get()
                    .getStatus()
                    .getConditions()
                    .stream()
                    .anyMatch(c -> "Ready".equals(c.getType()) && "False".equals(c.getStatus())));
    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () -> {
              assertThat(harness.eventsFor("serving"))
                  .anySatisfy(
                      e ->
                          assertThat(e.getReason() + ": " + e.getMessage())
                              .isEqualTo("NodeNotReady: Node is not ready"));
              assertThat(harness.eventsFor(nodeName))
                  .anySatisfy(
                      e ->
                          assertThat(e.getMessage())
                              .isEqualTo("Node " + nodeName + " status is now: NodeNotReady"));
            });
  }

  @Test
  void aPodBoundToANodeKnownToBeNotReadyIsMarkedNotReadyAtOnce() {
    String nodeName = prefix + "bound";
    SimulatedKubelet kubelet = kubelet(nodeName, "r", "h");
    kubelet(prefix + "bound-peer", "r", "h");
    kubelet.setReady(false, "runtime down");
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                hasTaint(
                    nodeName, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE));
    // The NoExecute taint comes from the health pass: the controller now knows the node is not
    // Ready.
    // An unbound pod that already reports Ready, then bound as the scheduler binds.
    pod("late", null);
    client
        .pods()
        .inNamespace(namespace())
        .withName("late")
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    client
        .bindings()
        .inNamespace(namespace())
        .resource(
            new io.fabric8.kubernetes.api.model.BindingBuilder()
                .withNewMetadata()
                .withName("late")
                .endMetadata()
                .withNewTarget()
                .withKind("Node")
                .withName(nodeName)
                .endTarget()
                .build())
        .create();

    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor("late"))
                    .anySatisfy(
                        e ->
                            assertThat(e.getReason() + ": " + e.getMessage())
                                .isEqualTo("NodeNotReady: Node is not ready")));
  }

  @Test
  void noExecuteTaintsLeftFromBeforeARestartAreRemovedFromReadyNodes() {
    String name = prefix + "restart";
    kubelet(name, "r", "i");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));
    editTaints(name, taints -> taints.add(NoExecuteTainting.UNREACHABLE_NO_EXECUTE));

    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                !hasTaint(
                    name, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE));
  }

  @Test
  void aRenewedLeaseKeepsANodeWhoseStatusIsStaleHealthy() {
    String name = prefix + "lease-only";
    try (KubeletFleet leaseOnly =
        new KubeletFleet(
            client, new KubeletFleet.Options(Duration.ofMillis(300), Duration.ofHours(1), true))) {
      leaseOnly.register(NodeSpec.named(name));

      await()
          .during(GRACE.multipliedBy(3))
          .atMost(GRACE.multipliedBy(4))
          .until(() -> "True".equals(ready(name)));
    }
  }

  @Test
  void notReadyGivesBothNotReadyTaintsAndSilenceSwapsTheNoExecuteOneForUnreachable() {
    String name = prefix + "nr";
    SimulatedKubelet kubelet = kubelet(name, "r", "b");
    kubelet(prefix + "nr-peer", "r", "b");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

    kubelet.setReady(false, "container runtime network not ready");
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                hasTaint(name, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_SCHEDULE)
                    && hasTaint(
                        name, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE));

    kubelet.stopHeartbeats();
    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () ->
                hasTaint(name, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE)
                    && !hasTaint(
                        name, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE)
                    && hasTaint(
                        name, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_SCHEDULE)
                    && !hasTaint(
                        name, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_SCHEDULE));
  }

  @Test
  void aNodeDeletedWhileItsNoExecuteTaintConflictsIsNeitherCountedAsAnEvictionNorGivenAnEvent()
      throws Exception {
    String name = prefix + "vanishing";
    NodeVanishesOnConflict race = new NodeVanishesOnConflict(client, name);
    restartWithInterceptor(race, FAST);
    SimulatedKubelet kubelet = kubelet(name, "r", "vanishing");
    String next = prefix + "vanishing-next";
    SimulatedKubelet nextKubelet = kubelet(next, "r", "vanishing");
    kubelet(prefix + "vanishing-peer", "r", "vanishing");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

    kubelet.stopHeartbeats();
    await().atMost(GRACE.multipliedBy(10)).until(() -> race.deleted);
    // The zone's queue taints one node after the other: once the next one has its taint and its
    // event, whatever the tainting did for the deleted node is counted and written.
    nextKubelet.stopHeartbeats();
    await()
        .atMost(GRACE.multipliedBy(10))
        .until(
            () ->
                harness.eventsFor(next).stream()
                    .anyMatch(
                        e -> e.getReason().equals(NodeLifecycleEvents.TAINT_ADDED_NO_EXECUTE)));

    assertThat(harness.eventsFor(name))
        .noneMatch(e -> e.getReason().equals(NodeLifecycleEvents.TAINT_ADDED_NO_EXECUTE));
    assertThat(
            harness
                .metrics()
                .get("node_collector_evictions")
                .tag("zone", "r/vanishing")
                .counter()
                .count())
        .isEqualTo(1);
  }

  /**
   * Another writer changes the node just before the controller's NoExecute taint patch, so the
   * patch conflicts, and deletes it just before the controller reads it again.
   */
  private static final class NodeVanishesOnConflict implements Interceptor {
    private final KubernetesClient admin;
    private final String name;
    private volatile boolean conflicted;
    volatile boolean deleted;

    NodeVanishesOnConflict(KubernetesClient admin, String name) {
      this.admin = admin;
      this.name = name;
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
      if (!request.uri().getPath().endsWith("/nodes/" + name)) {
        return;
      }
      if (!conflicted
          && request.method().equals("PATCH")
          && request.bodyString().contains(WellKnownTaints.EFFECT_NO_EXECUTE)) {
        admin
            .nodes()
            .withName(name)
            .edit(
                node ->
                    new NodeBuilder(node)
                        .editMetadata()
                        .addToLabels("raced", "true")
                        .endMetadata()
                        .build());
        conflicted = true;
      } else if (conflicted && !deleted && request.method().equals("GET")) {
        admin.nodes().withName(name).delete();
        await()
            .atMost(10, TimeUnit.SECONDS)
            .until(() -> admin.nodes().withName(name).get() == null);
        deleted = true;
      }
    }
  }

  /**
   * A controller whose passes run only when the test calls them, on a client whose status writes to
   * {@code node} another writer makes conflict, {@code conflicts} times.
   */
  private StatusWritesConflict startWithConflictingStatusWrites(String node, int conflicts)
      throws Exception {
    StatusWritesConflict race = new StatusWritesConflict(client, node, conflicts);
    restartWithInterceptor(race, FAST.withMonitorPeriod(Duration.ofHours(1)));
    return race;
  }

  /**
   * The controller started again on a client of its own whose requests pass {@code race} first (a
   * conflict or a deletion injected between the controller's read and its write).
   */
  private void restartWithInterceptor(Interceptor race, NodeHealthSettings health)
      throws Exception {
    harness.close();
    controllerClient =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder(client.getConfiguration()).build())
            .withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor("race", race))
            .build();
    harness =
        new ControllerHarness(
                controllerClient,
                SimCloudProviderFactory.fromYaml(""),
                ControllerSettings.defaults().withNodeHealth(health))
            .start(Controllers.NODE_LIFECYCLE);
    controller = (NodeLifecycleController) harness.controllers().getFirst();
  }

  /** Stops the node's heartbeats and runs passes until one finds it past its grace period. */
  private void silenceAndPassTheGrace(SimulatedKubelet kubelet) throws Exception {
    kubelet.stopHeartbeats();
    Thread.sleep(HEARTBEAT.toMillis() * 2); // the last heartbeat reaches the cache
    controller.monitorNodeHealth();
    Thread.sleep(GRACE.toMillis() + 500);
    controller.monitorNodeHealth();
  }

  private double zoneSize(String zone) {
    return harness.metrics().get("node_collector_zone_size").tag("zone", zone).gauge().value();
  }

  @Test
  void aHealthWriteThatConflictsIsRetriedInTheSamePassOnTheNodeReadAgain() throws Exception {
    String name = prefix + "conflicted";
    StatusWritesConflict race = startWithConflictingStatusWrites(name, 2);
    SimulatedKubelet kubelet = kubelet(name, "r", "c");
    kubelet(prefix + "conflicted-peer", "r", "c");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

    silenceAndPassTheGrace(kubelet);

    // Upstream tries up to five times, 20 ms apart, each after the first on a fresh GET: this
    // pass, not the next, marks the node Unknown, records NodeNotReady, queues its NoExecute
    // taint and counts it in its zone.
    assertThat(ready(name)).isEqualTo("Unknown");
    assertThat(race.statusWrites).isEqualTo(3);
    assertThat(controller.isMarkedForNoExecuteTaint(name)).isTrue();
    await()
        .atMost(5, TimeUnit.SECONDS)
        .until(
            () ->
                harness.eventsFor(name).stream()
                    .anyMatch(e -> e.getReason().equals(NodeLifecycleEvents.NODE_NOT_READY)));
    assertThat(zoneSize("r/c")).isEqualTo(2);
  }

  @Test
  void aNodeReadAgainInAZoneThePassHadNotSeenStartsThatZoneAndIsTaintedThere() throws Exception {
    // Its zone label changes between the pass's list and its health write (which conflicts), so
    // the node read again for the second try is counted in a zone no node of the list was in.
    String name = prefix + "moved";
    StatusWritesConflict race =
        new StatusWritesConflict(client, name, 1, Map.of(WellKnownLabels.ZONE, "moved-to"));
    restartWithInterceptor(race, FAST.withMonitorPeriod(Duration.ofHours(1)));
    SimulatedKubelet kubelet = kubelet(name, "r", "m");
    kubelet(prefix + "moved-peer", "r", "m");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

    kubelet.stopHeartbeats();
    // Passes until one marks it Unknown: only that one writes its status.
    await()
        .atMost(20, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              controller.monitorNodeHealth();
              return "Unknown".equals(ready(name));
            });

    assertThat(race.statusWrites).isEqualTo(2);
    assertThat(zoneSize("r/moved-to")).isEqualTo(1);
    assertThat(controller.zoneState("r:\u0000:moved-to")).isEqualTo(ZoneState.FULL_DISRUPTION);
    // A new zone's queue, its bucket full: tainted without waiting for another pass.
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                hasTaint(
                    name, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE));
  }

  @Test
  void aNodeWhoseHealthCannotBeWrittenInFiveTriesIsSkippedForThePass() throws Exception {
    String name = prefix + "unwritable";
    StatusWritesConflict race = startWithConflictingStatusWrites(name, Integer.MAX_VALUE);
    SimulatedKubelet kubelet = kubelet(name, "r", "u");
    kubelet(prefix + "unwritable-peer", "r", "u");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

    silenceAndPassTheGrace(kubelet);

    // Five tries, then "Skipping - no pods will be evicted": not queued, no event, not counted.
    assertThat(race.statusWrites).isEqualTo(NodeLifecycleController.HEALTH_UPDATE_TRIES);
    assertThat(ready(name)).isEqualTo("True");
    assertThat(controller.isMarkedForNoExecuteTaint(name)).isFalse();
    assertThat(zoneSize("r/u")).isEqualTo(1);
    assertThat(harness.eventsFor(name))
        .noneMatch(e -> e.getReason().equals(NodeLifecycleEvents.NODE_NOT_READY));

    // The next pass, with the writer gone, marks it.
    race.stop();
    controller.monitorNodeHealth();
    assertThat(ready(name)).isEqualTo("Unknown");
    assertThat(controller.isMarkedForNoExecuteTaint(name)).isTrue();
    assertThat(zoneSize("r/u")).isEqualTo(2);
  }

  @Test
  void aQueuedNodeWhoseReadyConditionIsGoneStaysQueuedAndIsTaintedWhenItComesBack()
      throws Exception {
    // Passes only when called here; the zone's tainter at 0.5 nodes/s, a token every 2 s.
    harness.close();
    harness =
        new ControllerHarness(
                client,
                SimCloudProviderFactory.fromYaml(""),
                ControllerSettings.defaults()
                    .withNodeHealth(FAST.withMonitorPeriod(Duration.ofHours(1))))
            .start(Controllers.NODE_LIFECYCLE);
    controller = (NodeLifecycleController) harness.controllers().getFirst();
    List<SimulatedKubelet> silent =
        List.of(kubelet(prefix + "retried-1", "r", "n"), kubelet(prefix + "retried-2", "r", "n"));
    kubelet(prefix + "retried-peer", "r", "n"); // the zone stays Normal
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> silent.stream().allMatch(k -> "True".equals(ready(k.nodeName()))));
    controller.monitorNodeHealth();
    silent.forEach(SimulatedKubelet::stopHeartbeats);
    Thread.sleep(HEARTBEAT.toMillis() * 2);
    controller.monitorNodeHealth();
    Thread.sleep(GRACE.toMillis() + 500);
    controller.monitorNodeHealth(); // both Unknown, and queued for the unreachable taint

    // The zone's token goes to one of them; the other waits 2 s for the next, and meanwhile its
    // Ready condition is taken away.
    await()
        .atMost(5, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(20))
        .until(() -> noExecuteTainted(silent) == 1);
    String waiting =
        silent.stream()
            .map(SimulatedKubelet::nodeName)
            .filter(
                n ->
                    !hasTaint(
                        n, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE))
            .findFirst()
            .orElseThrow();
    List<NodeCondition> conditions = new ArrayList<>(node(waiting).getStatus().getConditions());
    NodeCondition readyCondition =
        conditions.stream().filter(c -> c.getType().equals("Ready")).findFirst().orElseThrow();
    conditions.remove(readyCondition);
    replaceConditions(waiting, conditions);
    await()
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> NodeConditions.find(node(waiting), "Ready").isEmpty());
    Thread.sleep(3000); // its turn comes without a Ready condition
    assertThat(
            hasTaint(waiting, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE))
        .isFalse();

    // Upstream keeps it queued, retried every 50 ms: its Ready back, the next token taints it,
    // with no health pass in between.
    conditions.add(readyCondition);
    replaceConditions(waiting, conditions);
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                hasTaint(
                    waiting, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE));
  }

  private void replaceConditions(String node, List<NodeCondition> conditions) {
    client
        .nodes()
        .withName(node)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            client
                .getKubernetesSerialization()
                .asJson(Map.of("status", Map.of("conditions", conditions))));
  }

  /**
   * Another writer labels the node just before each of the controller's first {@code conflicts}
   * writes of its status, so each of them, sent with the resource version the controller read,
   * conflicts.
   */
  private static final class StatusWritesConflict implements Interceptor {
    private final KubernetesClient admin;
    private final String name;
    private final Map<String, String> alsoLabels;
    private volatile int conflicts;
    volatile int statusWrites;

    StatusWritesConflict(KubernetesClient admin, String name, int conflicts) {
      this(admin, name, conflicts, Map.of());
    }

    /** The same, the writer also setting {@code alsoLabels} (a zone label, say). */
    StatusWritesConflict(
        KubernetesClient admin, String name, int conflicts, Map<String, String> alsoLabels) {
      this.admin = admin;
      this.name = name;
      this.conflicts = conflicts;
      this.alsoLabels = alsoLabels;
    }

    void stop() {
      conflicts = 0;
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
      if (!request.method().equals("PATCH")
          || !request.uri().getPath().endsWith("/nodes/" + name + "/status")) {
        return;
      }
      statusWrites++;
      if (statusWrites <= conflicts) {
        admin
            .nodes()
            .withName(name)
            .edit(
                node ->
                    new NodeBuilder(node)
                        .editMetadata()
                        .addToLabels("raced", Integer.toString(statusWrites))
                        .addToLabels(alsoLabels)
                        .endMetadata()
                        .build());
      }
    }
  }

  @Test
  void aDeletedNodeIsRemovedWithAnEventAndItsZoneSeriesShowNoNode() {
    String name = prefix + "leaving";
    kubelet(name, "r", "alone");
    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(() -> controller.zoneState("r:\u0000:alone") == ZoneState.NORMAL);
    assertThat(harness.metrics().find("node_collector_zone_size").tag("zone", "r/alone").gauge())
        .isNotNull();

    client.nodes().withName(name).delete();
    await()
        .atMost(15, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor(name))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getReason()).isEqualTo("RemovingNode");
                          assertThat(e.getMessage())
                              .isEqualTo(
                                  "Node %s event: Removing Node %s from Controller"
                                      .formatted(name, name));
                        }));
    // Forgotten, its series stay as upstream's handleDisruption sets them: no node.
    await().atMost(10, TimeUnit.SECONDS).until(() -> zoneSize("r/alone") == 0);
    assertThat(
            harness
                .metrics()
                .get("node_collector_zone_health")
                .tag("zone", "r/alone")
                .gauge()
                .value())
        .isEqualTo(100);
    assertThat(
            harness
                .metrics()
                .get("node_collector_unhealthy_nodes_in_zone")
                .tag("zone", "r/alone")
                .gauge()
                .value())
        .isZero();
  }

  @Test
  void conditionsAndCordoningAreMirroredAsNoScheduleTaints() {
    String name = prefix + "pressure";
    kubelet(name, "r", "c");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

    // A merge patch without resourceVersion: the controller writes taints meanwhile.
    client
        .nodes()
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":true}}");
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                hasTaint(
                    name, WellKnownTaints.NODE_UNSCHEDULABLE, WellKnownTaints.EFFECT_NO_SCHEDULE));

    // A merge patch without resourceVersion: the controller writes taints meanwhile.
    client
        .nodes()
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"unschedulable\":false}}");
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> !Taints.hasKey(node(name), WellKnownTaints.NODE_UNSCHEDULABLE));
  }

  @Test
  void theBetaOsAndArchLabelsFollowTheGaOnes() {
    String name = prefix + "labels";
    kubelet(name, "r", "c");
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(name)));

    client
        .nodes()
        .withName(name)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"kubernetes.io/os\":\"linux\","
                + "\"beta.kubernetes.io/os\":\"windows\",\"kubernetes.io/arch\":\"arm64\","
                + "\"beta.kubernetes.io/arch\":null}}}");

    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(node(name).getMetadata().getLabels())
                    .containsEntry("beta.kubernetes.io/os", "linux")
                    .containsEntry("beta.kubernetes.io/arch", "arm64"));
  }

  @Test
  void aPartiallyDisruptedZoneSlowsToTheSecondaryRateWhenLargeAndStopsWhenSmall() {
    // Large-cluster threshold 5: a zone of 6 is "large", a zone of 5 is not.
    List<SimulatedKubelet> large = new ArrayList<>();
    List<SimulatedKubelet> small = new ArrayList<>();
    IntStream.range(0, 6).forEach(i -> large.add(kubelet(prefix + "large-" + i, "r", "large")));
    IntStream.range(0, 5).forEach(i -> small.add(kubelet(prefix + "small-" + i, "r", "small")));
    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(
            () ->
                controller.zoneState("r:\u0000:large") == ZoneState.NORMAL
                    && controller.zoneState("r:\u0000:small") == ZoneState.NORMAL);

    large.subList(0, 4).forEach(k -> k.setReady(false, "down"));
    small.subList(0, 3).forEach(k -> k.setReady(false, "down"));

    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                controller.zoneState("r:\u0000:large") == ZoneState.PARTIAL_DISRUPTION
                    && controller.zoneState("r:\u0000:small") == ZoneState.PARTIAL_DISRUPTION);
    await("the large zone keeps tainting, slowly")
        .atMost(30, TimeUnit.SECONDS)
        .until(() -> noExecuteTainted(large) >= 3);
    assertThat(noExecuteTainted(small))
        .as("the small zone stopped after at most its one initial token")
        .isLessThanOrEqualTo(1);
    assertThat(harness.eventsFor("kube-system"))
        .anySatisfy(
            e -> assertThat(e.getMessage()).contains("changed from Normal to PartialDisruption"));
    assertThat(
            harness
                .metrics()
                .get("node_collector_zone_state")
                .tag("zone", "r/small")
                .gauge()
                .value())
        .isEqualTo(ZoneState.PARTIAL_DISRUPTION.ordinal());
  }

  @Test
  void aLostZoneIsTaintedAtItsConfiguredRateWhileTheOthersAreHealthy() {
    List<SimulatedKubelet> lost = new ArrayList<>();
    IntStream.range(0, 4).forEach(i -> lost.add(kubelet(prefix + "lost-" + i, "r", "lost")));
    IntStream.range(0, 3).forEach(i -> kubelet(prefix + "ok-" + i, "r", "ok"));
    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(() -> controller.zoneState("r:\u0000:lost") == ZoneState.NORMAL);

    lost.forEach(SimulatedKubelet::stopHeartbeats);

    Map<String, Long> taintedAt = new java.util.concurrent.ConcurrentHashMap<>();
    await()
        .atMost(40, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              lost.forEach(
                  k -> {
                    if (hasTaint(
                        k.nodeName(),
                        WellKnownTaints.NODE_UNREACHABLE,
                        WellKnownTaints.EFFECT_NO_EXECUTE)) {
                      taintedAt.putIfAbsent(k.nodeName(), System.nanoTime());
                    }
                  });
              return taintedAt.size() == lost.size();
            });
    assertThat(controller.zoneState("r:\u0000:lost")).isEqualTo(ZoneState.FULL_DISRUPTION);
    assertThat(controller.zoneState("r:\u0000:ok")).isEqualTo(ZoneState.NORMAL);
    List<Long> times = taintedAt.values().stream().sorted().toList();
    Duration spread = Duration.ofNanos(times.getLast() - times.getFirst());
    // Four taints at 0.5/s with a burst of one: at least three intervals of 2 s.
    assertThat(spread).isGreaterThanOrEqualTo(Duration.ofMillis(5500));
  }

  @Test
  void whenEveryZoneIsFullyDisruptedNoNodeKeepsANoExecuteTaint() {
    List<SimulatedKubelet> all = new ArrayList<>();
    IntStream.range(0, 2).forEach(i -> all.add(kubelet(prefix + "x-" + i, "r", "x")));
    IntStream.range(0, 2).forEach(i -> all.add(kubelet(prefix + "y-" + i, "r", "y")));
    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(() -> controller.zoneState("r:\u0000:x") == ZoneState.NORMAL);

    all.forEach(k -> k.setReady(false, "power outage"));

    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                controller.zoneState("r:\u0000:x") == ZoneState.FULL_DISRUPTION
                    && controller.zoneState("r:\u0000:y") == ZoneState.FULL_DISRUPTION);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> noExecuteTainted(all) == 0);
    await("the stop is announced")
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor("kube-system"))
                    .anySatisfy(
                        e ->
                            // The zone whose last node goes last (x or y) announces the stop.
                            assertThat(e.getMessage())
                                .containsPattern("r/[xy] changed from Normal to FullDisruption")
                                .endsWith(
                                    "(every zone is fully disrupted:"
                                        + " tainting and evictions stopped)")));
    assertThat(all)
        .allSatisfy(
            k ->
                assertThat(
                        hasTaint(
                            k.nodeName(),
                            WellKnownTaints.NODE_NOT_READY,
                            WellKnownTaints.EFFECT_NO_SCHEDULE))
                    .isTrue());
  }

  private long noExecuteTainted(List<SimulatedKubelet> kubelets) {
    return kubelets.stream()
        .filter(
            k ->
                hasTaint(
                        k.nodeName(),
                        WellKnownTaints.NODE_NOT_READY,
                        WellKnownTaints.EFFECT_NO_EXECUTE)
                    || hasTaint(
                        k.nodeName(),
                        WellKnownTaints.NODE_UNREACHABLE,
                        WellKnownTaints.EFFECT_NO_EXECUTE))
        .count();
  }

  // Taint-based eviction, with a NoExecute taint of the test's own (the apiserver's
  // DefaultTolerationSeconds admission gives every pod 300 s for not-ready and unreachable).

  private static final String MAINTENANCE = "example.com/maintenance";

  private String namespace() {
    String namespace = prefix + "pods";
    if (client.namespaces().withName(namespace).get() == null) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .create();
      PodNamespaces.defaultServiceAccount(client, namespace);
    }
    return namespace;
  }

  private Pod pod(String name, String nodeName, Toleration... tolerations) {
    return client
        .pods()
        .inNamespace(namespace())
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                // No token: nothing runs kube-controller-manager's token controller here.
                .withAutomountServiceAccountToken(false)
                .withNodeName(nodeName)
                .withTolerations(tolerations)
                .addNewContainer()
                .withName("app")
                .withImage("registry.invalid/app:1")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private static Toleration maintenance(Long seconds) {
    return new TolerationBuilder()
        .withKey(MAINTENANCE)
        .withOperator("Exists")
        .withEffect("NoExecute")
        .withTolerationSeconds(seconds)
        .build();
  }

  /** Adds a NoExecute taint no test pod tolerates. */
  private void fence(String node) {
    editTaints(
        node,
        taints ->
            taints.add(
                new TaintBuilder().withKey("example.com/fenced").withEffect("NoExecute").build()));
  }

  private void taintForMaintenance(String node, boolean on) {
    editTaints(
        node,
        taints -> {
          taints.removeIf(t -> MAINTENANCE.equals(t.getKey()));
          if (on) {
            taints.add(new TaintBuilder().withKey(MAINTENANCE).withEffect("NoExecute").build());
          }
        });
  }

  /** The controller writes taints too: a 409 is retried on a fresh read, as a user's tool would. */
  private void editTaints(
      String node, java.util.function.Consumer<List<io.fabric8.kubernetes.api.model.Taint>> edit) {
    io.ccm4j.runtime.client.Conflicts.retryOnConflict(
        io.ccm4j.runtime.client.Conflicts.PATCH_BACKOFF,
        () ->
            client
                .nodes()
                .withName(node)
                .edit(
                    n -> {
                      List<io.fabric8.kubernetes.api.model.Taint> taints =
                          new ArrayList<>(Taints.of(n));
                      edit.accept(taints);
                      n.getSpec().setTaints(taints);
                      return n;
                    }));
  }

  private boolean markedForDeletion(String pod) {
    Pod current = client.pods().inNamespace(namespace()).withName(pod).get();
    return current == null || current.getMetadata().getDeletionTimestamp() != null;
  }

  @Test
  void
      podsAreEvictedAfterTheirLeastTolerationSecondsImmediatelyWithoutOneAndNeverWithAnUnboundedOne() {
    String nodeName = prefix + "evict";
    kubelet(nodeName, "r", "e");
    kubelet(prefix + "evict-peer", "r", "e");
    pod("three-seconds", nodeName, maintenance(3L));
    pod("untolerated", nodeName);
    pod("forever", nodeName, maintenance(null));

    long taintedAt = System.nanoTime();
    taintForMaintenance(nodeName, true);

    await().atMost(5, TimeUnit.SECONDS).until(() -> markedForDeletion("untolerated"));
    await()
        .atMost(15, TimeUnit.SECONDS)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> markedForDeletion("three-seconds"));
    assertThat(Duration.ofNanos(System.nanoTime() - taintedAt))
        .isGreaterThanOrEqualTo(Duration.ofSeconds(3));
    assertThat(markedForDeletion("forever")).isFalse();
    Pod evicted = client.pods().inNamespace(namespace()).withName("three-seconds").get();
    if (evicted != null) {
      assertThat(evicted.getStatus().getConditions())
          .anySatisfy(
              c -> {
                assertThat(c.getType()).isEqualTo("DisruptionTarget");
                assertThat(c.getReason()).isEqualTo("DeletionByTaintManager");
              });
    }
    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor("three-seconds"))
                    .anySatisfy(
                        e ->
                            assertThat(e.getMessage())
                                .isEqualTo(
                                    "Marking for deletion Pod " + namespace() + "/three-seconds")));
    assertThat(harness.metrics().get("taint_eviction_controller_pod_deletions").counter().count())
        .isGreaterThanOrEqualTo(2);
    assertThat(
            harness
                .metrics()
                .get("taint_eviction_controller_pod_deletion_duration")
                .timer()
                .count())
        .isGreaterThanOrEqualTo(2);
    assertThat(
            harness
                .metrics()
                .get("node_collector_update_all_nodes_health_duration")
                .timer()
                .count())
        .isPositive();
    assertThat(harness.metrics().get("node_collector_update_node_health_duration").timer().count())
        .isPositive();
  }

  @Test
  void aBurstOfEvictionsDoesNotHoldUpTheHealthPass() throws Exception {
    // The controller's client and taint eviction's each throttled as the manager's are
    // (--kube-api-qps, a rate limit each), here to 5 requests a second: 60 pods evicted at once
    // are some 180 requests, 36 s of that budget. Shared with the health pass, the budget would
    // hold the pass up until the evictions were done.
    harness.close();
    controllerClient =
        KubeClients.create(new ConfigBuilder(client.getConfiguration()).build(), 5, 5);
    evictionClient = KubeClients.create(new ConfigBuilder(client.getConfiguration()).build(), 5, 5);
    harness =
        new ControllerHarness(
                controllerClient,
                SimCloudProviderFactory.fromYaml(""),
                ControllerSettings.defaults().withNodeHealth(FAST))
            .withPartClients(
                part -> {
                  assertThat(part).isEqualTo(NodeLifecycleController.TAINT_EVICTION);
                  return evictionClient;
                })
            .start(Controllers.NODE_LIFECYCLE);
    String drained = prefix + "drained";
    String silent = prefix + "burst-silent";
    kubelet(drained, "r", "g");
    SimulatedKubelet silentKubelet = kubelet(silent, "r", "g");
    kubelet(prefix + "burst-peer", "r", "g");
    List<String> burst = IntStream.range(0, 60).mapToObj(i -> "burst-" + i).toList();
    burst.forEach(pod -> pod(pod, drained));
    await().atMost(10, TimeUnit.SECONDS).until(() -> "True".equals(ready(silent)));

    taintForMaintenance(drained, true); // tolerated by none: every pod is due at once
    // Every deletion starts at once, its requests (a read, the DisruptionTarget condition, the
    // delete) behind taint eviction's rate limit with all the others', as upstream's goroutines
    // do: the first deletes come some 24 s later.
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                client.v1().events().inNamespace(namespace()).list().getItems().stream()
                    .anyMatch(
                        e -> e.getReason().equals(NodeLifecycleEvents.TAINT_MANAGER_EVICTION)));
    silentKubelet.stopHeartbeats();

    await()
        .atMost(GRACE.multipliedBy(10))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> "Unknown".equals(ready(silent)));
    // Judged while the evictions were still going on, not after them.
    assertThat(burst).anyMatch(pod -> !markedForDeletion(pod));
  }

  @Test
  void aTaintRemovedBeforeTheTolerationEndsCancelsTheEviction() {
    String nodeName = prefix + "cancel";
    kubelet(nodeName, "r", "f");
    kubelet(prefix + "cancel-peer", "r", "f");
    pod("patient", nodeName, maintenance(4L));

    taintForMaintenance(nodeName, true);
    await()
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> controller.isEvictionPending(namespace() + "/patient"));
    taintForMaintenance(nodeName, false);

    await()
        .during(Duration.ofSeconds(5))
        .atMost(8, TimeUnit.SECONDS)
        .until(() -> !markedForDeletion("patient"));
    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor("patient"))
                    .anySatisfy(
                        e ->
                            assertThat(e.getMessage())
                                .isEqualTo(
                                    "Cancelling deletion of Pod " + namespace() + "/patient")));
  }

  @Test
  void anUntoleratedTaintCancelsAPendingEvictionWithItsEventAndEvictsAtOnce() {
    String nodeName = prefix + "replace";
    kubelet(nodeName, "r", "g");
    kubelet(prefix + "replace-peer", "r", "g");
    Pod pod = pod("replaced", nodeName, maintenance(300L));
    taintForMaintenance(nodeName, true);
    await()
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> controller.isEvictionPending(namespace() + "/replaced"));

    fence(nodeName);

    await().atMost(5, TimeUnit.SECONDS).until(() -> markedForDeletion("replaced"));
    // Upstream's processPodOnNode cancels the scheduled deletion through cancelWorkWithEvent
    // before it deletes at once: both TaintManagerEviction events, Normal, on the pod.
    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor("replaced"))
                    .filteredOn(e -> "TaintManagerEviction".equals(e.getReason()))
                    .allSatisfy(
                        e -> {
                          assertThat(e.getType()).isEqualTo("Normal");
                          assertThat(e.getMetadata().getNamespace()).isEqualTo(namespace());
                          assertThat(e.getInvolvedObject().getKind()).isEqualTo("Pod");
                          assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("v1");
                          assertThat(e.getInvolvedObject().getNamespace()).isEqualTo(namespace());
                          assertThat(e.getInvolvedObject().getUid())
                              .isEqualTo(pod.getMetadata().getUid());
                        })
                    .extracting(e -> e.getMessage())
                    .containsExactlyInAnyOrder(
                        "Cancelling deletion of Pod " + namespace() + "/replaced",
                        "Marking for deletion Pod " + namespace() + "/replaced"));
  }

  @Test
  void aPodWhoseDisruptionTargetConditionCannotBeWrittenIsNotDeleted() {
    String nodeName = prefix + "unmarkable";
    kubelet(nodeName, "r", "h");
    kubelet(prefix + "unmarkable-peer", "r", "h");
    pod("unmarkable", nodeName);
    Pod probe = pod("unmarkable-probe", prefix + "unmarkable-peer");
    String policy = prefix + "deny-pod-status";
    try (AdmissionDenial denial =
        AdmissionDenial.ofUpdates(
            client,
            policy,
            List.of("pods/status"),
            "unmarkable",
            "status writes to unmarkable pods are blocked")) {
      // The policy takes effect once the API server has loaded it: until a probe's write fails.
      await().atMost(30, TimeUnit.SECONDS).until(() -> !canWriteStatus(probe));

      taintForMaintenance(nodeName, true);

      await()
          .atMost(10, TimeUnit.SECONDS)
          .untilAsserted(
              () ->
                  assertThat(harness.eventsFor("unmarkable"))
                      .extracting(e -> e.getMessage())
                      .contains("Marking for deletion Pod " + namespace() + "/unmarkable"));
      // Upstream's addConditionAndDeletePod returns the patch's error before the delete: each of
      // its tries fails, and the pod stays.
      await()
          .during(Duration.ofSeconds(3))
          .atMost(5, TimeUnit.SECONDS)
          .until(() -> !markedForDeletion("unmarkable"));
    }
    await().atMost(30, TimeUnit.SECONDS).until(() -> canWriteStatus(probe));

    // Given up until the pod is scheduled for deletion anew, here by another taint.
    fence(nodeName);
    await().atMost(10, TimeUnit.SECONDS).until(() -> markedForDeletion("unmarkable"));
  }

  /** Whether a condition can be written to the pod's status; false when a policy denies it. */
  private boolean canWriteStatus(Pod pod) {
    try {
      PodStatusPatches.patchCondition(
          client,
          pod,
          new PodConditionBuilder()
              .withType("example.com/Probe")
              .withStatus("True")
              .withMessage(String.valueOf(System.nanoTime()))
              .build());
      return true;
    } catch (KubernetesClientException e) {
      if (!e.getMessage().contains("denied request")) {
        throw e;
      }
      return false;
    }
  }
}
