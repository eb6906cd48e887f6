package io.ccm4j.controllers.cloudnodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.NotImplementedException;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerHarness;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.RecordingBulkCloud;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.cloud.NotLeadingException;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The cloud-node-lifecycle controller (L1–L8) against a real API server and the sim cloud. */
@WithControlPlane
class CloudNodeLifecycleControllerIT {

  private static final ControllerSettings FAST =
      ControllerSettings.defaults()
          .withConcurrentNodeSyncs(2)
          .withCloudNodeLifecycle(
              CloudNodeLifecycleSettings.defaults().withMonitorPeriod(Duration.ofMillis(200)));

  private final KubernetesClient client;
  private final String prefix = "lc-" + UUID.randomUUID().toString().substring(0, 6) + "-";
  private KubeletFleet kubelets;
  private ControllerHarness harness;
  private SimCloud cloud;

  CloudNodeLifecycleControllerIT(KubernetesClient client) {
    this.client = client;
  }

  @BeforeEach
  void start() throws Exception {
    kubelets = new KubeletFleet(client, KubeletFleet.Options.kubeletDefaults());
    cloud = SimCloudProviderFactory.fromYaml("generate: {count: 3, prefix: %s}".formatted(prefix));
    harness = new ControllerHarness(client, cloud, FAST).start(Controllers.CLOUD_NODE_LIFECYCLE);
  }

  @AfterEach
  void stop() throws Exception {
    harness.close();
    kubelets.close();
  }

  private Node node(String name) {
    return client.nodes().withName(name).get();
  }

  @Test
  void L6_aNodeWhoseInstanceIsDeletedWhileNotReadyIsDeleted() {
    String name = prefix + "0";
    SimulatedKubelet kubelet = kubelets.register(NodeSpec.named(name));
    kubelet.setReady(false, "container runtime is down");

    cloud.delete(name);

    await().atMost(20, TimeUnit.SECONDS).until(() -> node(name) == null);
    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor(name))
                    .anySatisfy(
                        event -> {
                          assertThat(event.getReason()).isEqualTo("DeletingNode");
                          assertThat(event.getMessage())
                              .isEqualTo(
                                  "Deleting node "
                                      + name
                                      + " because it does not exist in the cloud provider");
                        }));
  }

  @Test
  void L4_L5_aReadyNodeIsNeverCheckedAndACloudErrorDeletesNothing() {
    String ready = prefix + "1";
    String notReady = prefix + "2";
    kubelets.register(NodeSpec.named(ready));
    kubelets.register(NodeSpec.named(notReady)).setReady(false, "network down");
    cloud.delete(ready);
    cloud.delete(notReady);
    cloud.setErrorRate(1.0);

    await()
        .during(Duration.ofSeconds(2))
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> node(ready) != null && node(notReady) != null);
    assertThat(cloud.calls().getOrDefault("InstanceExists", 0L)).isPositive();
    assertThat(cloud.calls().get(SimCloud.INJECTED_ERRORS)).isPositive();
  }

  /**
   * Once this instance no longer leads (it stops, or lost its Lease) the cloud is not called: the
   * pass stops with one line, not an error for every NotReady node.
   */
  @Test
  void aPassThatMayNoLongerCallTheCloudStopsQuietly() throws Exception {
    harness.close();
    CloudProvider fenced =
        new CloudProvider() {
          @Override
          public String providerName() {
            return "fenced";
          }

          @Override
          public Optional<InstancesV2> instancesV2() {
            return Optional.of(
                new InstancesV2() {
                  @Override
                  public boolean instanceExists(Node node) throws CloudException {
                    throw new NotLeadingException("InstanceExists " + node.getMetadata().getName());
                  }

                  @Override
                  public boolean instanceShutdown(Node node) throws CloudException {
                    throw new NotLeadingException("InstanceShutdown");
                  }

                  @Override
                  public Optional<InstanceMetadata> instanceMetadata(Node node) {
                    return Optional.empty();
                  }
                });
          }
        };
    harness =
        new ControllerHarness(client, fenced, ControllerSettings.defaults())
            .start(Controllers.CLOUD_NODE_LIFECYCLE);
    CloudNodeLifecycleController controller =
        (CloudNodeLifecycleController) harness.controllers().getFirst();
    for (int i = 0; i < 3; i++) {
      kubelets.register(NodeSpec.named(prefix + i)).setReady(false, "network down");
    }
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                IntStream.range(0, 3)
                    .mapToObj(i -> node(prefix + i))
                    .allMatch(n -> n != null && !"True".equals(NodeConditions.readyStatus(n))));
    Logger logger = (Logger) LoggerFactory.getLogger(CloudNodeLifecycleController.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    try {
      controller.monitorNodes();
    } finally {
      logger.detachAppender(logged);
    }

    // The controller's own pass may run meanwhile: each says the same, once.
    assertThat(logged.list).noneMatch(event -> event.getLevel() == Level.ERROR);
    assertThat(logged.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .isNotEmpty()
        .allMatch(message -> message.equals("the pass stops: this instance no longer leads"));
    assertThat(IntStream.range(0, 3).mapToObj(i -> node(prefix + i))).doesNotContainNull();
  }

  /**
   * L1: a sim cloud whose config names no instances (only load balancers, as several tests' and
   * labs' configs) simulates none, so it offers no instances and the controller does not start, as
   * upstream's refuses a cloud without instances; it does not take every NotReady node for gone.
   */
  @Test
  void L1_aSimCloudThatNamesNoInstancesDeletesNoNotReadyNode() throws Exception {
    harness.close();
    String name = prefix + "no-instance-section";
    kubelets.register(NodeSpec.named(name)).setReady(false, "network down");
    SimCloud withoutInstances =
        SimCloudProviderFactory.fromYaml("loadBalancers: {ingressPool: 127.0.200.0/24}");
    harness = new ControllerHarness(client, withoutInstances, FAST);

    Throwable refused = catchThrowable(() -> harness.start(Controllers.CLOUD_NODE_LIFECYCLE));

    await()
        .during(Duration.ofSeconds(2))
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> node(name) != null);
    assertThat(refused)
        .isInstanceOf(ControllerUnavailableException.class)
        .hasMessage("cloud provider does not support instances");
    assertThat(withoutInstances.calls()).doesNotContainKey("InstanceExists");
  }

  @Test
  void L5_L6_inBulkCallsAnErrorForOneNodeDeletesNeitherItNorTheOthers() throws Exception {
    harness.close();
    SimCloud bulk =
        SimCloudProviderFactory.fromYaml(
            "instancesPerCall: 1000\ngenerate: {count: 3, prefix: %s}".formatted(prefix));
    RecordingBulkCloud cloud = new RecordingBulkCloud(bulk);
    harness = new ControllerHarness(client, cloud, FAST).start(Controllers.CLOUD_NODE_LIFECYCLE);
    String gone = prefix + "0";
    String unknown = prefix + "1";
    String running = prefix + "2";
    for (String name : java.util.List.of(gone, unknown, running)) {
      kubelets.register(NodeSpec.named(name)).setReady(false, "network down");
    }
    bulk.delete(gone);
    bulk.delete(unknown);
    cloud.failInBulkAnswers(unknown); // gone too, but the cloud's answer for it is an error

    await().atMost(20, TimeUnit.SECONDS).until(() -> node(gone) == null);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> node(unknown) != null && node(running) != null);
    assertThat(cloud.callsAbout(running))
        .extracting(RecordingBulkCloud.Call::method)
        .contains("InstancesExist", "InstancesShutdown")
        .doesNotContain("InstanceExists", "InstanceShutdown");
    // One call asked about all three at once.
    assertThat(cloud.callsAbout(running))
        .anySatisfy(call -> assertThat(call.nodes()).contains(gone, unknown, running));
  }

  @Test
  void L7_L4_aShutDownInstanceGetsTheShutdownTaintAndLosesItWhenReady() {
    String name = prefix + "0";
    SimulatedKubelet kubelet = kubelets.register(NodeSpec.named(name));
    kubelet.setReady(false, "node is shutting down");
    cloud.shutdown(name);

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () ->
                Taints.has(
                    node(name), WellKnownTaints.SHUTDOWN, WellKnownTaints.EFFECT_NO_SCHEDULE));

    cloud.start(name);
    kubelet.setReady(true, "kubelet is posting ready status");

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> !Taints.hasKey(node(name), WellKnownTaints.SHUTDOWN));
    assertThat(node(name)).as("never deleted").isNotNull();
  }

  @Test
  void L3_aNodeWithoutAReadyConditionCountsAsNotReady() {
    String name = prefix + "2";
    client
        .nodes()
        .resource(
            new io.fabric8.kubernetes.api.model.NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .build())
        .create();
    cloud.delete(name);

    await().atMost(20, TimeUnit.SECONDS).until(() -> node(name) == null);
  }

  @Test
  void L8_aNotReadyNodeWhoseInstanceRunsIsLeftAlone() {
    String name = prefix + "1";
    kubelets.register(NodeSpec.named(name)).setReady(false, "kubelet restarting");

    await()
        .during(Duration.ofSeconds(2))
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> node(name) != null && !Taints.hasKey(node(name), WellKnownTaints.SHUTDOWN));
    assertThat(cloud.calls().getOrDefault("InstanceShutdown", 0L)).isPositive();
  }

  /**
   * A bulk call that fails as a whole counts each of its nodes as upstream counts the per-node call
   * that failed so: a provider without existence or shutdown checks is {@code not_implemented}, not
   * {@code error} (an alert on errors must not fire for it), and no node is deleted or tainted.
   */
  @Test
  void L5_L7_aBulkCallNotImplementedAsAWholeCountsAsNotImplemented() throws Exception {
    harness.close();
    java.util.concurrent.atomic.AtomicBoolean existsImplemented =
        new java.util.concurrent.atomic.AtomicBoolean(false);
    CloudProvider partial =
        new CloudProvider() {
          @Override
          public String providerName() {
            return "partial";
          }

          @Override
          public Optional<InstancesV2> instancesV2() {
            return Optional.of(
                new InstancesV2() {
                  @Override
                  public boolean instanceExists(Node node) throws CloudException {
                    throw new AssertionError("asked in bulk only");
                  }

                  @Override
                  public boolean instanceShutdown(Node node) throws CloudException {
                    throw new AssertionError("asked in bulk only");
                  }

                  @Override
                  public Optional<InstanceMetadata> instanceMetadata(Node node) {
                    return Optional.empty();
                  }

                  @Override
                  public int maxNodesPerCall() {
                    return 100;
                  }

                  @Override
                  public BulkAnswers<Boolean> instancesExist(java.util.Collection<Node> nodes)
                      throws CloudException {
                    if (!existsImplemented.get()) {
                      throw new NotImplementedException();
                    }
                    java.util.Map<String, Boolean> exist = new java.util.HashMap<>();
                    nodes.forEach(node -> exist.put(InstancesV2.nodeName(node), true));
                    return new BulkAnswers<>(exist, java.util.Map.of());
                  }

                  @Override
                  public BulkAnswers<Boolean> instancesShutdown(java.util.Collection<Node> nodes)
                      throws CloudException {
                    throw new NotImplementedException();
                  }
                });
          }
        };
    harness = new ControllerHarness(client, partial, FAST).start(Controllers.CLOUD_NODE_LIFECYCLE);
    String name = prefix + "0";
    kubelets.register(NodeSpec.named(name)).setReady(false, "network down");
    io.micrometer.core.instrument.MeterRegistry metrics = harness.metrics();

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> calls(metrics, "instance_exists", "not_implemented") > 0);
    existsImplemented.set(true);
    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> calls(metrics, "instance_shutdown", "not_implemented") > 0);

    assertThat(calls(metrics, "instance_exists", "error")).isZero();
    assertThat(calls(metrics, "instance_shutdown", "error")).isZero();
    assertThat(node(name)).as("never deleted").isNotNull();
    assertThat(Taints.hasKey(node(name), WellKnownTaints.SHUTDOWN)).isFalse();
  }

  /**
   * A cloud call the controller's stop interrupts counts as {@code canceled}, as upstream counts a
   * call its context's end cut short, not as {@code error}: an alert on cloud errors must not fire
   * at every stop or lost Lease.
   */
  @Test
  void aCallTheStopInterruptsCountsAsCanceled() throws Exception {
    harness.close();
    java.util.concurrent.CountDownLatch calling = new java.util.concurrent.CountDownLatch(1);
    CloudProvider slow =
        new CloudProvider() {
          @Override
          public String providerName() {
            return "slow";
          }

          @Override
          public Optional<InstancesV2> instancesV2() {
            return Optional.of(
                new InstancesV2() {
                  @Override
                  public boolean instanceExists(Node node) throws CloudException {
                    calling.countDown();
                    try {
                      Thread.sleep(Duration.ofMinutes(1)); // a cloud that does not answer
                      return true;
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                      throw new CloudException("interrupted while asking the cloud", e);
                    }
                  }

                  @Override
                  public boolean instanceShutdown(Node node) {
                    return false;
                  }

                  @Override
                  public Optional<InstanceMetadata> instanceMetadata(Node node) {
                    return Optional.empty();
                  }
                });
          }
        };
    harness = new ControllerHarness(client, slow, FAST).start(Controllers.CLOUD_NODE_LIFECYCLE);
    kubelets.register(NodeSpec.named(prefix + "0")).setReady(false, "network down");
    assertThat(calling.await(20, TimeUnit.SECONDS)).as("the cloud asked").isTrue();
    io.micrometer.core.instrument.MeterRegistry metrics = harness.metrics();

    harness.close();

    assertThat(calls(metrics, "instance_exists", "canceled")).isPositive();
    assertThat(calls(metrics, "instance_exists", "error")).isZero();
  }

  /**
   * Upstream's two metrics of this controller (v1.37): the pass duration, with its buckets, and the
   * cloud's answers by operation and result.
   */
  @Test
  void theMetricsAreUpstreams() {
    String gone = prefix + "0";
    String running = prefix + "1";
    kubelets.register(NodeSpec.named(gone)).setReady(false, "network down");
    kubelets.register(NodeSpec.named(running)).setReady(false, "network down");
    cloud.delete(gone);

    await().atMost(20, TimeUnit.SECONDS).until(() -> node(gone) == null);
    io.micrometer.core.instrument.MeterRegistry metrics = harness.metrics();
    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () -> {
              assertThat(calls(metrics, "instance_exists", "instance_not_found")).isPositive();
              assertThat(calls(metrics, "instance_exists", "success")).isPositive();
              assertThat(calls(metrics, "instance_shutdown", "success")).isPositive();
            });
    assertThat(calls(metrics, "instance_exists", "error")).isZero();

    io.micrometer.core.instrument.Timer duration =
        metrics.find("cloud_node_lifecycle_controller_monitor_nodes_duration").timer();
    assertThat(duration).isNotNull();
    io.micrometer.core.instrument.distribution.HistogramSnapshot snapshot = duration.takeSnapshot();
    io.micrometer.core.instrument.distribution.CountAtBucket[] buckets = snapshot.histogramCounts();
    assertThat(buckets)
        .extracting(bucket -> bucket.bucket(TimeUnit.SECONDS))
        .containsExactly(
            0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048,
            4.096, 8.192, 16.384);
    // A pass over two nodes of the sim cloud takes milliseconds: every one is below half a
    // second, in the bucket its duration says.
    long passes = snapshot.count();
    assertThat(passes).isPositive();
    assertThat(buckets[9].count()).as("passes within 0.512 s").isEqualTo(passes);
  }

  private static double calls(
      io.micrometer.core.instrument.MeterRegistry metrics, String operation, String result) {
    io.micrometer.core.instrument.Counter counter =
        metrics
            .find("cloud_node_lifecycle_controller_cloud_provider_calls")
            .tags("operation", operation, "result", result)
            .counter();
    return counter == null ? 0 : counter.count();
  }
}
