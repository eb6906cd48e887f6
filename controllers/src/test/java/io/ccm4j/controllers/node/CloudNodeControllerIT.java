package io.ccm4j.controllers.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerHarness;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.RecordingBulkCloud;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.provider.sim.SimInstance;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The cloud-node controller against a real API server, the sim cloud and simulated kubelets. */
@WithControlPlane
class CloudNodeControllerIT {

  private final KubernetesClient client;
  private final String prefix = "cn-" + UUID.randomUUID().toString().substring(0, 6) + "-";
  private KubeletFleet kubelets;
  private ControllerHarness harness;

  CloudNodeControllerIT(KubernetesClient client) {
    this.client = client;
  }

  @BeforeEach
  void startKubelets() {
    kubelets = new KubeletFleet(client, KubeletFleet.Options.withoutHeartbeats());
  }

  @AfterEach
  void stop() throws Exception {
    if (harness != null) {
      harness.close();
    }
    kubelets.close();
  }

  private SimCloud sim(String yaml) throws Exception {
    return SimCloudProviderFactory.fromYaml(yaml);
  }

  private void run(CloudProvider cloud) throws Exception {
    run(cloud, settings(Duration.ofMinutes(5)));
  }

  private void run(CloudProvider cloud, ControllerSettings settings) throws Exception {
    harness = new ControllerHarness(client, cloud, settings).start(Controllers.CLOUD_NODE);
  }

  private static ControllerSettings settings(Duration statusUpdateFrequency) {
    return ControllerSettings.defaults()
        .withCloudNode(
            CloudNodeSettings.defaults()
                .withConcurrentNodeSyncs(4)
                .withNodeStatusUpdateFrequency(statusUpdateFrequency));
  }

  private Node node(String name) {
    return client.nodes().withName(name).get();
  }

  private boolean untainted(String name) {
    Node node = node(name);
    return node != null && !Taints.hasKey(node, WellKnownTaints.UNINITIALIZED);
  }

  @Test
  void N8_N9_N10_initialisesANodeFromInstanceMetadataAndEmitsSynced() throws Exception {
    String name = prefix + "a";
    run(
        sim(
            """
            instances:
              - name: %s
                region: eu-1
                zone: eu-1b
                instanceType: sim.large
                addresses: [10.1.0.7]
                labels: {sim.ccm4j.io/pool: blue}
            """
                .formatted(name)));

    kubelets.register(NodeSpec.named(name));

    await().atMost(20, TimeUnit.SECONDS).until(() -> untainted(name));
    Node node = node(name);
    assertThat(node.getSpec().getProviderID()).isEqualTo("sim://" + name);
    assertThat(node.getMetadata().getLabels())
        .containsEntry(WellKnownLabels.ZONE, "eu-1b")
        .containsEntry(WellKnownLabels.ZONE_BETA, "eu-1b")
        .containsEntry(WellKnownLabels.REGION, "eu-1")
        .containsEntry(WellKnownLabels.REGION_BETA, "eu-1")
        .containsEntry(WellKnownLabels.INSTANCE_TYPE, "sim.large")
        .containsEntry(WellKnownLabels.INSTANCE_TYPE_BETA, "sim.large")
        .containsEntry("sim.ccm4j.io/pool", "blue");
    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(node(name).getStatus().getAddresses())
                    .extracting(a -> a.getType() + "=" + a.getAddress())
                    .containsExactly("InternalIP=10.1.0.7", "Hostname=" + name));
    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor(name))
                    .anySatisfy(
                        event -> {
                          assertThat(event.getReason()).isEqualTo("Synced");
                          assertThat(event.getMessage()).isEqualTo("Node synced successfully");
                          assertThat(event.getSource().getComponent())
                              .isEqualTo("cloud-node-controller");
                        }));
  }

  @Test
  void N6_aNodeIsNeverUntaintedWithoutAProviderId() throws Exception {
    String name = prefix + "noid";
    AtomicInteger calls = new AtomicInteger();
    run(
        instancesOnly(
            node -> {
              calls.incrementAndGet();
              return Optional.of(
                  new InstanceMetadata("", "sim.small", List.of(), "z", "r", Map.of()));
            }));

    kubelets.register(NodeSpec.named(name));

    await("requeued with backoff").atMost(20, TimeUnit.SECONDS).until(() -> calls.get() >= 3);
    assertThat(Taints.hasKey(node(name), WellKnownTaints.UNINITIALIZED)).isTrue();
    assertThat(node(name).getSpec().getProviderID()).isNullOrEmpty();
  }

  @Test
  void N6_nilMetadataSkipsTheNodeWithoutRequeue() throws Exception {
    String name = prefix + "nil";
    AtomicInteger calls = new AtomicInteger();
    run(
        instancesOnly(
            node -> {
              if (node.getMetadata().getName().equals(name)) {
                calls.incrementAndGet();
              }
              return Optional.empty();
            }));

    kubelets.register(NodeSpec.named(name));

    await().atMost(10, TimeUnit.SECONDS).until(() -> calls.get() >= 1);
    await("no requeue")
        .during(Duration.ofSeconds(2))
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> calls.get() == 1);
    assertThat(Taints.hasKey(node(name), WellKnownTaints.UNINITIALIZED)).isTrue();
  }

  @Test
  void N7_aProvidedNodeIpMatchingNoCloudAddressKeepsTheNodeTaintedWithAWarning() throws Exception {
    String name = prefix + "ip";
    run(sim("instances: [{name: %s, addresses: [10.2.0.1]}]".formatted(name)));

    kubelets.register(NodeSpec.named(name).withNodeIp("10.9.9.9"));

    await()
        .atMost(20, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor(name))
                    .anySatisfy(
                        event -> {
                          assertThat(event.getType()).isEqualTo("Warning");
                          assertThat(event.getReason())
                              .isEqualTo(CloudNodeController.REASON_INVALID_NODE_IP);
                          assertThat(event.getMessage())
                              .contains("provided node ip for node \"" + name + "\" is not valid")
                              .contains("10.9.9.9");
                        }));
    assertThat(Taints.hasKey(node(name), WellKnownTaints.UNINITIALIZED)).isTrue();
    assertThat(node(name).getSpec().getProviderID()).isNullOrEmpty();
  }

  @Test
  void N11_N12_dualStackNodeIpsComeFirstAndAreTheOnlyAddressesOfTheirType() throws Exception {
    String name = prefix + "ds";
    run(
        sim(
            "instances: [{name: %s, addresses: [10.3.0.1, 10.3.0.2, \"fd00::3\"]}]"
                .formatted(name)));

    kubelets.register(NodeSpec.named(name).withNodeIp("fd00::3,10.3.0.2"));

    await()
        .atMost(20, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(node(name).getStatus().getAddresses())
                    .extracting(a -> a.getType() + "=" + a.getAddress())
                    .containsExactly(
                        "InternalIP=fd00::3", "InternalIP=10.3.0.2", "Hostname=" + name));
  }

  /**
   * An address write the manager's stop cuts short (its worker interrupted while the request is on
   * its way) is no failure: the operator stopping the manager sees no ERROR line for it.
   */
  @Test
  void anAddressWriteCutShortByTheShutdownLogsNoError() throws Exception {
    String name = prefix + "stopping";
    SimCloud cloud = sim("instances: [{name: %s, addresses: [10.5.0.1]}]".formatted(name));
    HeldStatusWrite held = new HeldStatusWrite(name);
    Logger logger = (Logger) LoggerFactory.getLogger(CloudNodeController.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    Level level = logger.getLevel();
    try (KubernetesClient controllerClient =
        new KubernetesClientBuilder()
            .withConfig(new ConfigBuilder(client.getConfiguration()).build())
            .withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor("held", held))
            .build()) {
      harness =
          new ControllerHarness(controllerClient, cloud, settings(Duration.ofMillis(200)))
              .start(Controllers.CLOUD_NODE);
      kubelets.register(NodeSpec.named(name));
      await().atMost(20, TimeUnit.SECONDS).until(() -> untainted(name));

      held.armed = true;
      readdress(cloud, name, "10.5.0.99");
      assertThat(held.inFlight.await(20, TimeUnit.SECONDS)).isTrue();
      logged.start();
      logger.addAppender(logged);
      logger.setLevel(Level.DEBUG);
      harness.close();
      harness = null;
    } finally {
      logger.detachAppender(logged);
      logger.setLevel(level);
    }

    assertThat(logged.list)
        .extracting(event -> event.getLevel() + " " + event.getFormattedMessage())
        .noneMatch(line -> line.startsWith("ERROR") || line.startsWith("WARN"))
        .anyMatch(line -> line.startsWith("DEBUG node %s: address update stopped".formatted(name)));
  }

  /** The instance's addresses become {@code internalIp} and its name as host name. */
  private static void readdress(SimCloud cloud, String name, String internalIp) {
    SimInstance before = cloud.instance(name).orElseThrow();
    cloud.add(
        new SimInstance(
            name,
            before.region(),
            before.zone(),
            before.instanceType(),
            List.of(NodeAddress.internalIp(internalIp), NodeAddress.hostname(name)),
            before.labels(),
            before.state()));
  }

  /**
   * Once armed, holds the node's status writes in flight until the writing thread is interrupted.
   */
  private static final class HeldStatusWrite implements Interceptor {
    private final String name;
    final CountDownLatch inFlight = new CountDownLatch(1);
    volatile boolean armed;

    HeldStatusWrite(String name) {
      this.name = name;
    }

    @Override
    public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
      if (!armed
          || !request.method().equals("PATCH")
          || !request.uri().getPath().endsWith("/nodes/" + name + "/status")) {
        return;
      }
      inFlight.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // and the request goes on, as one interrupted in flight
      }
    }
  }

  @Test
  void N13_thePeriodicRefreshPicksUpAddressChanges() throws Exception {
    String name = prefix + "refresh";
    SimCloud cloud = sim("instances: [{name: %s, addresses: [10.4.0.1]}]".formatted(name));
    run(cloud, settings(Duration.ofMillis(500)));
    kubelets.register(NodeSpec.named(name));
    await().atMost(20, TimeUnit.SECONDS).until(() -> untainted(name));

    readdress(cloud, name, "10.4.0.99");

    await()
        .atMost(20, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(node(name).getStatus().getAddresses())
                    .extracting(a -> a.getAddress())
                    .containsExactly("10.4.0.99", name));
  }

  @Test
  void N5_N14_anInitialisedNodeOnlyGetsItsGaLabelsReconciledFromTheBetaOnes() throws Exception {
    String name = prefix + "labels";
    SimCloud cloud = sim("instances: [{name: %s, zone: should-not-be-used}]".formatted(name));
    run(cloud);

    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(WellKnownLabels.ZONE_BETA, "old-zone")
                .addToLabels(WellKnownLabels.INSTANCE_TYPE_BETA, "old-type")
                .addToLabels(WellKnownLabels.INSTANCE_TYPE, "stale")
                .endMetadata()
                .build())
        .create();

    await()
        .atMost(20, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(node(name).getMetadata().getLabels())
                    .containsEntry(WellKnownLabels.ZONE, "old-zone")
                    .containsEntry(WellKnownLabels.INSTANCE_TYPE, "old-type"));
    assertThat(node(name).getSpec().getProviderID()).as("not initialised again").isNullOrEmpty();
    assertThat(node(name).getMetadata().getLabels())
        .containsEntry(WellKnownLabels.ZONE_BETA, "old-zone");
  }

  @Test
  void thirtyPercentInjectedCloudErrorsStillEndWithEveryNodeInitialised() throws Exception {
    int count = 30;
    run(sim("errorRate: 0.3\ngenerate: {count: %d, prefix: %s}".formatted(count, prefix + "e-")));

    kubelets.registerAll(
        IntStream.range(0, count).mapToObj(i -> NodeSpec.named(prefix + "e-" + i)).toList(), 8);

    await()
        .atMost(60, TimeUnit.SECONDS)
        .until(() -> IntStream.range(0, count).allMatch(i -> untainted(prefix + "e-" + i)));
    assertThat(
            IntStream.range(0, count)
                .mapToObj(i -> node(prefix + "e-" + i).getSpec().getProviderID()))
        .allMatch(id -> id.startsWith("sim://"));
  }

  @Test
  void aBurstIsInitialisedAndItsAddressesSyncedInBulkCalls() throws Exception {
    int count = 40;
    String burst = prefix + "b-";
    RecordingBulkCloud cloud =
        new RecordingBulkCloud(
            sim(
                "instancesPerCall: 1000\ngenerate: {count: %d, prefix: %s}"
                    .formatted(count, burst)));
    List<String> names = IntStream.range(0, count).mapToObj(i -> burst + i).toList();
    // The burst is in the cache before the workers start: the first lookup carries all of it.
    kubelets.registerAll(names.stream().map(NodeSpec::named).toList(), 8);
    run(cloud, settings(Duration.ofMillis(300)));

    await().atMost(60, TimeUnit.SECONDS).until(() -> names.stream().allMatch(this::untainted));
    // Two address-sync passes at least after the burst's initialisation.
    int before = cloud.callsAbout(names.get(0)).size();
    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> cloud.callsAbout(names.get(0)).size() >= before + 2);

    List<RecordingBulkCloud.Call> calls = cloud.callsAbout(names.get(0));
    assertThat(calls).extracting(RecordingBulkCloud.Call::method).containsOnly("InstancesMetadata");
    // Initialisation: one call for the 40 nodes. A sync pass once all are initialised: one call
    // for all of them too (ceil(40 / 1000)), never one per node.
    assertThat(calls.get(0).nodes()).containsAll(names);
    assertThat(calls.get(calls.size() - 1).nodes()).containsAll(names);
    for (String name : names) {
      assertThat(cloud.callsAbout(name)).hasSizeLessThanOrEqualTo(calls.size() + 1);
    }
  }

  @Test
  void N4_N15_aNodeMissingFromTheCacheIsDroppedAndDeletionNeedsNoCleanUp() throws Exception {
    String name = prefix + "gone";
    SimCloud cloud = sim("instances: [{name: %s}]".formatted(name));
    run(cloud);
    kubelets.register(NodeSpec.named(name));
    await().atMost(20, TimeUnit.SECONDS).until(() -> untainted(name));
    CloudNodeController controller = (CloudNodeController) harness.controllers().getFirst();
    long callsBefore = cloud.calls().getOrDefault("InstanceMetadata", 0L);

    client.nodes().withName(name).delete();
    await().atMost(10, TimeUnit.SECONDS).until(() -> node(name) == null);
    controller.syncNode(name);
    controller.syncNode(prefix + "never-existed");

    assertThat(cloud.calls().getOrDefault("InstanceMetadata", 0L)).isEqualTo(callsBefore);
  }

  @Test
  void theZonesFacetFillsZoneAndRegionWhenInstanceMetadataHasNeither() throws Exception {
    String name = prefix + "zones";
    CloudProvider withoutZone =
        instancesOnly(
            node ->
                Optional.of(
                    new InstanceMetadata(
                        "test://" + node.getMetadata().getName(),
                        "",
                        List.of(),
                        "",
                        "",
                        Map.of())));
    CloudProvider cloud =
        new CloudProvider() {
          @Override
          public String providerName() {
            return "test";
          }

          @Override
          public Optional<InstancesV2> instancesV2() {
            return withoutZone.instancesV2();
          }

          @Override
          public Optional<io.ccm4j.cloudprovider.Zones> zones() {
            return Optional.of(
                new io.ccm4j.cloudprovider.Zones() {
                  @Override
                  public Zone zoneByProviderId(String providerId) {
                    return new Zone("zone-from-zones", "region-from-zones");
                  }

                  @Override
                  public Zone zoneByNodeName(String nodeName) {
                    return new Zone("wrong", "wrong");
                  }
                });
          }
        };
    run(cloud);

    kubelets.register(NodeSpec.named(name));

    await().atMost(20, TimeUnit.SECONDS).until(() -> untainted(name));
    assertThat(node(name).getMetadata().getLabels())
        .containsEntry(WellKnownLabels.ZONE, "zone-from-zones")
        .containsEntry(WellKnownLabels.REGION, "region-from-zones");
  }

  /**
   * A Node deleted and registered again under its name while its cloud lookup runs is initialised
   * from its own instance, not from the answer about the Node it replaced.
   */
  @Test
  void aNodeReplacedDuringItsCloudLookupIsInitialisedFromItsOwnInstance() throws Exception {
    String name = prefix + "replaced";
    CountDownLatch firstLookup = new CountDownLatch(1);
    CountDownLatch answerFirst = new CountDownLatch(1);
    run(
        instancesOnly(
            node -> {
              boolean replacement = "test://new".equals(node.getSpec().getProviderID());
              if (!replacement) {
                firstLookup.countDown();
                try {
                  answerFirst.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
              String instance = replacement ? "new" : "old";
              return Optional.of(
                  new InstanceMetadata(
                      "test://" + instance,
                      "type-" + instance,
                      List.of(NodeAddress.internalIp("10.7.0." + (replacement ? 2 : 1))),
                      "zone-" + instance,
                      "region-1",
                      Map.of()));
            }));

    client.nodes().resource(uninitialised(name, null)).create();
    assertThat(firstLookup.await(20, TimeUnit.SECONDS)).isTrue();
    client.nodes().withName(name).withGracePeriod(0).delete();
    await().atMost(10, TimeUnit.SECONDS).until(() -> node(name) == null);
    String replacement =
        client.nodes().resource(uninitialised(name, "test://new")).create().getMetadata().getUid();
    Thread.sleep(500); // the informer's cache holds the replacement
    answerFirst.countDown();

    await().atMost(20, TimeUnit.SECONDS).until(() -> untainted(name));
    Node node = node(name);
    assertThat(node.getMetadata().getUid()).isEqualTo(replacement);
    assertThat(node.getSpec().getProviderID()).isEqualTo("test://new");
    assertThat(node.getMetadata().getLabels())
        .containsEntry(WellKnownLabels.ZONE, "zone-new")
        .containsEntry(WellKnownLabels.INSTANCE_TYPE, "type-new");
  }

  private static Node uninitialised(String name, String providerId) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withProviderID(providerId)
        .addNewTaint()
        .withKey(WellKnownTaints.UNINITIALIZED)
        .withValue("true")
        .withEffect("NoSchedule")
        .endTaint()
        .endSpec()
        .build();
  }

  /** A cloud with only instance metadata, as the test defines it. */
  private static CloudProvider instancesOnly(Metadata metadata) {
    InstancesV2 instances =
        new InstancesV2() {
          @Override
          public boolean instanceExists(Node node) {
            return true;
          }

          @Override
          public boolean instanceShutdown(Node node) {
            return false;
          }

          @Override
          public Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException {
            return metadata.of(node);
          }
        };
    return new CloudProvider() {
      @Override
      public String providerName() {
        return "test";
      }

      @Override
      public Optional<InstancesV2> instancesV2() {
        return Optional.of(instances);
      }
    };
  }

  @FunctionalInterface
  private interface Metadata {
    Optional<InstanceMetadata> of(Node node) throws CloudException;
  }
}
