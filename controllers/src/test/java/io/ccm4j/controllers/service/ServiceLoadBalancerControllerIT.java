package io.ccm4j.controllers.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InvalidServiceFieldException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.NotImplementedException;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.controllers.AdmissionDenial;
import io.ccm4j.controllers.ControllerHarness;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.provider.sim.SimLoadBalancers;
import io.ccm4j.runtime.client.Fence;
import io.ccm4j.runtime.client.KubeClients;
import io.ccm4j.runtime.cloud.CloudFence;
import io.ccm4j.runtime.cloud.NotLeadingException;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * The service-lb controller (S1–S16) against a real API server, the sim cloud's load balancers and
 * simulated kubelets. The node set is cluster-wide, so assertions look at this test's own nodes and
 * count cloud calls per Service.
 */
@WithControlPlane
class ServiceLoadBalancerControllerIT {

  private static final ControllerSettings SETTINGS =
      ControllerSettings.defaults().withConcurrentNodeSyncs(1).withConcurrentServiceSyncs(2);

  private static final String FINALIZER = WellKnownAnnotations.LOAD_BALANCER_CLEANUP_FINALIZER;

  private final KubernetesClient client;
  private final String prefix = "lb-" + UUID.randomUUID().toString().substring(0, 6);
  private final String namespace = prefix;
  private KubeletFleet kubelets;
  private ControllerHarness harness;
  private SimCloud cloud;

  ServiceLoadBalancerControllerIT(KubernetesClient client) {
    this.client = client;
  }

  @BeforeEach
  void createNamespace() {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    kubelets = new KubeletFleet(client, KubeletFleet.Options.withoutHeartbeats());
  }

  @AfterEach
  void cleanUp() throws Exception {
    try {
      if (harness != null) {
        client.services().inNamespace(namespace).delete();
        await()
            .atMost(20, TimeUnit.SECONDS)
            .until(() -> client.services().inNamespace(namespace).list().getItems().isEmpty());
      }
    } finally {
      // Never leave a finalizer behind for the next test's controller.
      for (Service left : client.services().inNamespace(namespace).list().getItems()) {
        client
            .services()
            .inNamespace(namespace)
            .withName(left.getMetadata().getName())
            .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
      }
      // Nor a Service: every later test's controller watches every namespace, and would ensure it
      // (a test that closed its controller itself, harness null, deleted none above).
      client.services().inNamespace(namespace).delete();
      if (harness != null) {
        harness.close();
      }
      kubelets.close();
      // Other tests share the cluster: leave no nodes behind.
      client.nodes().list().getItems().stream()
          .filter(n -> n.getMetadata().getName().startsWith(prefix + "-"))
          .forEach(n -> client.nodes().resource(n).delete());
    }
  }

  private void run(String simYaml) throws Exception {
    cloud = SimCloudProviderFactory.fromYaml(simYaml);
    startController();
  }

  private void startController() throws Exception {
    harness = new ControllerHarness(client, cloud, SETTINGS).start(Controllers.SERVICE_LB);
  }

  /** The controller on a cloud whose load balancers are the test's (wrapping the sim's). */
  private void startControllerWith(LoadBalancer loadBalancer) throws Exception {
    startControllerWith(loadBalancer, SETTINGS);
  }

  private void startControllerWith(LoadBalancer loadBalancer, ControllerSettings settings)
      throws Exception {
    CloudProvider provider =
        new CloudProvider() {
          @Override
          public String providerName() {
            return "sim";
          }

          @Override
          public Optional<LoadBalancer> loadBalancer() {
            return Optional.of(loadBalancer);
          }
        };
    harness = new ControllerHarness(client, provider, settings).start(Controllers.SERVICE_LB);
  }

  private SimLoadBalancers lbs() {
    return cloud.loadBalancers();
  }

  private String node(String suffix) {
    return prefix + "-" + suffix;
  }

  private Service create(String name) {
    return create(name, b -> b);
  }

  private Service create(String name, UnaryOperator<ServiceBuilder> edit) {
    ServiceBuilder builder =
        new ServiceBuilder()
            .withNewMetadata()
            .withNamespace(namespace)
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withType("LoadBalancer")
            .addToSelector("app", name)
            .addNewPort()
            .withName("http")
            .withProtocol("TCP")
            .withPort(80)
            .withTargetPort(new IntOrString(8080))
            .endPort()
            .endSpec();
    return client.services().inNamespace(namespace).resource(edit.apply(builder).build()).create();
  }

  private Service service(String name) {
    return client.services().inNamespace(namespace).withName(name).get();
  }

  private String ingressIp(String name) {
    Service service = service(name);
    if (service == null
        || service.getStatus() == null
        || service.getStatus().getLoadBalancer() == null
        || service.getStatus().getLoadBalancer().getIngress() == null
        || service.getStatus().getLoadBalancer().getIngress().isEmpty()) {
      return null;
    }
    return service.getStatus().getLoadBalancer().getIngress().get(0).getIp();
  }

  private void awaitIngress(String... names) {
    await()
        .atMost(30, TimeUnit.SECONDS)
        .until(() -> List.of(names).stream().allMatch(name -> ingressIp(name) != null));
  }

  private long calls(String name, String method) {
    return lbs().callsFor(namespace + "/" + name).getOrDefault(method, 0L);
  }

  private Map<String, String> backends(String name) {
    return lbs().loadBalancerOf(namespace + "/" + name).orElseThrow().backends();
  }

  private List<Event> events(String name) {
    return harness.eventsFor(name).stream()
        .filter(e -> namespace.equals(e.getInvolvedObject().getNamespace()))
        .toList();
  }

  private void awaitEvent(String name, String type, String reason, String message) {
    await()
        .atMost(15, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(events(name))
                    .anySatisfy(
                        event -> {
                          assertThat(event.getType()).isEqualTo(type);
                          assertThat(event.getReason()).isEqualTo(reason);
                          assertThat(event.getMessage()).contains(message);
                          assertThat(event.getSource().getComponent())
                              .isEqualTo("service-controller");
                        }));
  }

  @Test
  void S12_S13_theFinalizerComesBeforeTheIngressWithEventsAndBackends() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    kubelets.register(NodeSpec.named(node("b")));
    run("latencyMs: 200");
    List<String> states = new CopyOnWriteArrayList<>();
    try (Watch watch =
        client
            .services()
            .inNamespace(namespace)
            .withName("web")
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Service service) {
                    boolean finalizer = service.getMetadata().getFinalizers().contains(FINALIZER);
                    boolean ingress =
                        service.getStatus() != null
                            && service.getStatus().getLoadBalancer() != null
                            && !service.getStatus().getLoadBalancer().getIngress().isEmpty();
                    states.add((finalizer ? "finalizer" : "-") + "/" + (ingress ? "ingress" : "-"));
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      create("web");
      awaitIngress("web");
      await().atMost(5, TimeUnit.SECONDS).until(() -> states.contains("finalizer/ingress"));
    }

    assertThat(states)
        .as("the finalizer is written before the cloud call, the ingress after it")
        .containsSubsequence("-/-", "finalizer/-", "finalizer/ingress")
        .doesNotContain("-/ingress");
    Service web = service("web");
    assertThat(ingressIp("web")).startsWith("127.0.200.");
    assertThat(web.getMetadata().getAnnotations())
        .containsKey(WellKnownAnnotations.LOAD_BALANCER_APPLIED);
    assertThat(backends("web")).containsKeys(node("a"), node("b"));
    assertThat(calls("web", "EnsureLoadBalancer")).isEqualTo(1);
    awaitEvent("web", "Normal", "EnsuringLoadBalancer", "Ensuring load balancer");
    awaitEvent("web", "Normal", "EnsuredLoadBalancer", "Ensured load balancer");
  }

  @Test
  void S15_backendsAreUpdatedOnlyWhenTheNameToProviderIdSetChanges() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("web");
    awaitIngress("web");
    assertThat(calls("web", "UpdateLoadBalancer")).isZero();

    kubelets.register(NodeSpec.named(node("b")));
    await().atMost(15, TimeUnit.SECONDS).until(() -> calls("web", "UpdateLoadBalancer") == 1);
    assertThat(backends("web")).containsKeys(node("a"), node("b"));
    awaitEvent("web", "Normal", "UpdatedLoadBalancer", "Updated load balancer with new hosts");

    // Neither a label nor readiness changes the backend set (S7, S16).
    kubelets.kubelet(node("b")).setReady(false, "kubelet stopped");
    client
        .nodes()
        .withName(node("b"))
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"example.com/team\":\"blue\"}}}");
    await()
        .during(Duration.ofSeconds(3))
        .atMost(6, TimeUnit.SECONDS)
        .until(() -> calls("web", "UpdateLoadBalancer") == 1);

    // A provider ID is part of the set.
    client
        .nodes()
        .withName(node("a"))
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"spec\":{\"providerID\":\"sim://%s\"}}".formatted(node("a")));
    await().atMost(15, TimeUnit.SECONDS).until(() -> calls("web", "UpdateLoadBalancer") == 2);
    assertThat(backends("web")).containsEntry(node("a"), "sim://" + node("a"));

    client.nodes().withName(node("b")).delete();
    await().atMost(15, TimeUnit.SECONDS).until(() -> calls("web", "UpdateLoadBalancer") == 3);
    assertThat(backends("web")).doesNotContainKey(node("b"));
    assertThat(calls("web", "EnsureLoadBalancer")).isEqualTo(1);
  }

  @Test
  void S15_withBulkUpdatesANodeJoiningUpdatesEveryLoadBalancerInOneCall() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("loadBalancers: {servicesPerCall: 1000}");
    List<String> names = List.of("bulk-1", "bulk-2", "bulk-3", "bulk-4", "bulk-5");
    names.forEach(this::create);
    awaitIngress(names.toArray(String[]::new));
    long before = cloud.calls().getOrDefault("UpdateLoadBalancers", 0L);

    kubelets.register(NodeSpec.named(node("b")));

    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(() -> names.stream().allMatch(n -> backends(n).containsKey(node("b"))));
    for (String name : names) {
      awaitEvent(name, "Normal", "UpdatedLoadBalancer", "Updated load balancer with new hosts");
      assertThat(calls(name, "UpdateLoadBalancer")).as(name).isZero();
    }
    // One pass, one call for the five (a node event of another test may add a pass).
    assertThat(cloud.calls().getOrDefault("UpdateLoadBalancers", 0L) - before).isBetween(1L, 2L);
  }

  /**
   * S15 step 3: any failure of UpdateLoadBalancer, an unchecked exception of the provider too, is a
   * Warning {@code UpdateLoadBalancerFailed} and counts in {@code nodesync_error_total} before the
   * full ensure, as upstream reports every error of the update.
   */
  @Test
  void S15_anUpdateThatThrowsUncheckedIsReportedAsAnyFailedUpdate() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("");
    LoadBalancer sim = cloud.loadBalancer().orElseThrow();
    AtomicInteger failures = new AtomicInteger(1);
    startControllerWith(
        new ForwardingLoadBalancer(sim) {
          @Override
          public void updateLoadBalancer(String cluster, Service service, List<Node> nodes)
              throws CloudException {
            if (failures.getAndDecrement() > 0) {
              throw new IllegalStateException("the provider lost its session");
            }
            super.updateLoadBalancer(cluster, service, nodes);
          }
        });
    create("web");
    awaitIngress("web");

    kubelets.register(NodeSpec.named(node("b")));

    awaitEvent(
        "web", "Warning", "UpdateLoadBalancerFailed", "error: the provider lost its session");
    await().atMost(15, TimeUnit.SECONDS).until(() -> backends("web").containsKey(node("b")));
    assertThat(harness.metrics().get("service_controller_nodesync_error").counter().count())
        .isEqualTo(1);
  }

  /**
   * S15 step 4: a bulk update that throws, an unchecked exception too, fails each Service of the
   * call as its own update would, so each goes for a full ensure. The pass had already stored the
   * new backend set, so a pass that ended on the exception left the load balancers on the old
   * nodes, and every later pass found the set unchanged.
   */
  @Test
  void S15_aBulkUpdateThatThrowsSendsEachServiceOfTheCallForAFullEnsure() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("loadBalancers: {servicesPerCall: 1000}");
    LoadBalancer sim = cloud.loadBalancer().orElseThrow();
    AtomicInteger failures = new AtomicInteger(1);
    startControllerWith(
        new ForwardingLoadBalancer(sim) {
          @Override
          public int maxServicesPerCall() {
            return sim.maxServicesPerCall();
          }

          @Override
          public BulkAnswers<Boolean> updateLoadBalancers(
              String cluster, Collection<Service> services, List<Node> nodes)
              throws CloudException {
            if (failures.getAndDecrement() > 0) {
              throw new IllegalStateException("the provider lost its session");
            }
            return sim.updateLoadBalancers(cluster, services, nodes);
          }
        });
    create("web");
    awaitIngress("web");

    kubelets.register(NodeSpec.named(node("b")));

    awaitEvent(
        "web", "Warning", "UpdateLoadBalancerFailed", "error: the provider lost its session");
    await().atMost(15, TimeUnit.SECONDS).until(() -> backends("web").containsKey(node("b")));
    assertThat(calls("web", "EnsureLoadBalancer")).as("the full ensure").isGreaterThanOrEqualTo(2);
  }

  /**
   * S15 step 4: after a failed update, the check whether the load balancer still exists may fail
   * too, unchecked; as upstream, that is logged and the update's failure reported and sent for a
   * full ensure. An exception that ended the bulk pass left the load balancer on the old nodes.
   */
  @Test
  void S15_aCheckThatThrowsAfterAFailedBulkUpdateStillReportsItAndEnsures() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("loadBalancers: {servicesPerCall: 1000}");
    LoadBalancer sim = cloud.loadBalancer().orElseThrow();
    AtomicInteger updateFailures = new AtomicInteger(1);
    AtomicInteger getFailures = new AtomicInteger(0);
    startControllerWith(
        new ForwardingLoadBalancer(sim) {
          @Override
          public int maxServicesPerCall() {
            return sim.maxServicesPerCall();
          }

          @Override
          public BulkAnswers<Boolean> updateLoadBalancers(
              String cluster, Collection<Service> services, List<Node> nodes)
              throws CloudException {
            if (updateFailures.getAndDecrement() > 0) {
              getFailures.set(1); // the check that follows fails too
              throw new CloudException("the update timed out");
            }
            return sim.updateLoadBalancers(cluster, services, nodes);
          }

          @Override
          public Optional<LoadBalancerStatus> getLoadBalancer(String cluster, Service service)
              throws CloudException {
            if (getFailures.getAndDecrement() > 0) {
              throw new IllegalStateException("the provider lost its session");
            }
            return super.getLoadBalancer(cluster, service);
          }
        });
    create("web");
    awaitIngress("web");

    kubelets.register(NodeSpec.named(node("b")));

    awaitEvent("web", "Warning", "UpdateLoadBalancerFailed", "error: the update timed out");
    await().atMost(15, TimeUnit.SECONDS).until(() -> backends("web").containsKey(node("b")));
    assertThat(calls("web", "EnsureLoadBalancer")).as("the full ensure").isGreaterThanOrEqualTo(2);
  }

  @Test
  void S15_nodesJoiningDuringAPassCoalesceIntoOneMorePass() throws Exception {
    kubelets.register(NodeSpec.named(node("first")));
    run("");
    create("web");
    awaitIngress("web");
    var passes = harness.metrics().get("service_controller_nodesync_latency").summary();
    long before = passes.count();
    // Each backend update takes 1 s, so most nodes join while a pass is running.
    cloud.setLatency(Duration.ofSeconds(1));
    List<NodeSpec> joining = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      joining.add(NodeSpec.named(node("join-" + i)));
    }
    kubelets.registerAll(joining, 10);
    await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () ->
                backends("web")
                    .keySet()
                    .containsAll(joining.stream().map(NodeSpec::name).toList()));
    AtomicLong last = new AtomicLong(-1);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> passes.count() == last.getAndSet(passes.count()));
    // One pass per joining node would be 30 passes over every Service.
    assertThat(passes.count() - before).isBetween(1L, 4L);
  }

  @Test
  void closingDuringASlowNodeSyncPassReturnsPromptly() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    List<String> names = List.of("s1", "s2", "s3", "s4", "s5");
    names.forEach(this::create);
    awaitIngress(names.toArray(String[]::new));
    // Every UpdateLoadBalancer now takes 3 s: with two node-sync threads, a pass over five
    // Services has tasks still queued when the controller is closed.
    cloud.setLatency(Duration.ofSeconds(3));
    kubelets.register(NodeSpec.named(node("b")));
    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(() -> names.stream().mapToLong(n -> calls(n, "UpdateLoadBalancer")).sum() >= 1);

    ControllerHarness closing = harness;
    harness = null;
    // close() waits for the running cloud calls, not for the queued ones (it used to wait for
    // them forever, and a manager losing its Lease never exited).
    assertTimeoutPreemptively(Duration.ofSeconds(10), closing::close);
  }

  @Test
  void S15_aFailedBackendUpdateIsReportedAndEndsInAFullEnsure() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("web");
    awaitIngress("web");

    cloud.setErrorRate(1.0);
    kubelets.register(NodeSpec.named(node("b")));
    awaitEvent(
        "web",
        "Warning",
        "UpdateLoadBalancerFailed",
        "Error updating load balancer with new hosts [");
    assertThat(
            events("web").stream()
                .filter(e -> e.getReason().equals("UpdateLoadBalancerFailed"))
                .findFirst()
                .orElseThrow()
                .getMessage())
        // The names are a sample of 20 of the control plane's nodes, which other tests share: the
        // new node need not be among them.
        .contains(
            "[node names limited, total number of nodes: ",
            "error: sim: injected error in UpdateLoadBalancer");
    // The service was queued for a full ensure, which fails too while the cloud is down.
    awaitEvent("web", "Warning", "SyncLoadBalancerFailed", "injected error in EnsureLoadBalancer");
    assertThat(harness.metrics().get("service_controller_nodesync_error").counter().count())
        .isEqualTo(1);
    assertThat(
            harness
                .metrics()
                .get("service_controller_update_loadbalancer_host_latency")
                .summary()
                .count())
        .as("the failed update is timed too")
        .isEqualTo(1);

    cloud.setErrorRate(0);
    await().atMost(30, TimeUnit.SECONDS).until(() -> backends("web").containsKey(node("b")));
    assertThat(calls("web", "EnsureLoadBalancer")).isGreaterThanOrEqualTo(3);
  }

  /**
   * S15 once this instance no longer leads: a node sync whose calls the fences refuse (the cloud's
   * when the manager stops, the API server's too when the Lease is lost) is no failed update. The
   * load balancer is the next leader's: no Warning about it, no error counted, no full ensure
   * queued (which the fence would refuse again, as a {@code SyncLoadBalancerFailed} Warning); the
   * pass stops.
   */
  @ParameterizedTest(name = "{0}, API server fenced too: {1}")
  @CsvSource({
    "'', false",
    "'loadBalancers: {servicesPerCall: 1000}', false",
    "'', true",
  })
  void S15_aNodeSyncTheFencesRefuseStopsWithoutWarningsOrRetries(String simYaml, boolean apiFenced)
      throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml(simYaml);
    CloudFence cloudFence = new CloudFence();
    Fence apiFence = new Fence();
    try (KubernetesClient fencedClient =
        KubeClients.create(
            new ConfigBuilder(client.getConfiguration()).build(),
            KubeClients.USER_AGENT,
            100,
            100,
            apiFence,
            null)) {
      harness =
          new ControllerHarness(client, cloudFence.guard(cloud), SETTINGS)
              .withControllerClient(fencedClient)
              .start(Controllers.SERVICE_LB);
      create("web");
      awaitIngress("web");
      awaitRecorded(List.of("web"));
      Logger logger = (Logger) LoggerFactory.getLogger(ServiceLoadBalancerController.class);
      ListAppender<ILoggingEvent> logged = new ListAppender<>();
      logged.start();
      logger.addAppender(logged);
      try {
        cloudFence.close();
        if (apiFenced) {
          apiFence.close();
        }
        kubelets.register(NodeSpec.named(node("b")));

        await()
            .during(Duration.ofSeconds(3))
            .atMost(10, TimeUnit.SECONDS)
            .untilAsserted(
                () ->
                    assertThat(events("web"))
                        .extracting(Event::getReason)
                        .doesNotContain("UpdateLoadBalancerFailed", "SyncLoadBalancerFailed"));
        await()
            .atMost(10, TimeUnit.SECONDS)
            .untilAsserted(
                () ->
                    assertThat(logged.list)
                        .extracting(ILoggingEvent::getFormattedMessage)
                        .contains("the node sync stops: this instance no longer leads"));
        assertThat(harness.metrics().get("service_controller_nodesync_error").counter().count())
            .isZero();
      } finally {
        logger.detachAppender(logged);
        // A fenced controller cannot delete either: stop it, the clean-up drops the finalizer.
        harness.close();
        harness = null;
      }
    }
  }

  @Test
  void S16_theExclusionLabelExcludesTrueAndUnparsableValues() throws Exception {
    String label = WellKnownLabels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS;
    kubelets.register(NodeSpec.named(node("yes")).withLabels(Map.of(label, "true")));
    kubelets.register(NodeSpec.named(node("no")).withLabels(Map.of(label, "false")));
    kubelets.register(NodeSpec.named(node("junk")).withLabels(Map.of(label, "garbage")));
    kubelets.register(NodeSpec.named(node("plain")));
    run("");
    create("web");
    awaitIngress("web");

    assertThat(backends("web"))
        .containsKeys(node("no"), node("plain"))
        .doesNotContainKeys(node("yes"), node("junk"));

    client
        .nodes()
        .withName(node("junk"))
        .edit(
            n -> {
              n.getMetadata().getLabels().put(label, "False");
              return n;
            });
    await().atMost(15, TimeUnit.SECONDS).until(() -> backends("web").containsKey(node("junk")));
    assertThat(calls("web", "UpdateLoadBalancer")).isEqualTo(1);
  }

  @Test
  void S11_aDeletionTheCloudRefusesAsInvalidIsRetriedNotDropped() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("");
    LoadBalancer sim = cloud.loadBalancer().orElseThrow();
    AtomicInteger refusals = new AtomicInteger(1);
    LoadBalancer refusingOneDeletion =
        new ForwardingLoadBalancer(sim) {
          @Override
          public void ensureLoadBalancerDeleted(String cluster, Service service)
              throws CloudException {
            if (refusals.getAndDecrement() > 0) {
              throw new InvalidServiceFieldException("spec.ports", "refused once by the test");
            }
            super.ensureLoadBalancerDeleted(cluster, service);
          }
        };
    startControllerWith(refusingOneDeletion);
    create("web");
    awaitIngress("web");

    client
        .services()
        .inNamespace(namespace)
        .withName("web")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"type\":\"ClusterIP\"}}");

    // A retry with backoff (5 s) deletes it; a dropped key would wait for the Service resync
    // (30 s), and without the finalizer the load balancer would leak.
    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(
            () ->
                lbs().loadBalancerOf(namespace + "/web").isEmpty()
                    && !service("web").getMetadata().getFinalizers().contains(FINALIZER));
    assertThat(refusals.get()).isNegative();
  }

  /**
   * S10, S12: a provider's unchecked exception fails the ensure as any error does, and the Warning
   * says which step failed and what was thrown; without a message of its own it read "Error syncing
   * load balancer: null", which upstream's error text never is.
   */
  @Test
  void S12_anEnsureThatThrowsUncheckedIsAWarningNamingTheStepAndTheException() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("");
    LoadBalancer sim = cloud.loadBalancer().orElseThrow();
    AtomicInteger failures = new AtomicInteger(1);
    startControllerWith(
        new ForwardingLoadBalancer(sim) {
          @Override
          public LoadBalancerStatus ensureLoadBalancer(
              String cluster, Service service, List<Node> nodes) throws CloudException {
            if (failures.getAndDecrement() > 0) {
              throw new IllegalStateException();
            }
            return super.ensureLoadBalancer(cluster, service, nodes);
          }
        });
    create("web");

    awaitEvent(
        "web",
        "Warning",
        "SyncLoadBalancerFailed",
        "Error syncing load balancer: failed to ensure load balancer: java.lang.IllegalStateException");
    awaitIngress("web"); // retried with backoff, as any failure
  }

  /**
   * S11, as S12: a provider's unchecked exception while a load balancer is deleted (the Service no
   * longer of type LoadBalancer) is worded as any failed deletion, never "null".
   */
  @Test
  void S11_aDeletionThatThrowsUncheckedIsAWarningNamingTheStepAndTheException() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("");
    LoadBalancer sim = cloud.loadBalancer().orElseThrow();
    AtomicInteger failures = new AtomicInteger(1);
    startControllerWith(
        new ForwardingLoadBalancer(sim) {
          @Override
          public void ensureLoadBalancerDeleted(String cluster, Service service)
              throws CloudException {
            if (failures.getAndDecrement() > 0) {
              throw new IllegalStateException();
            }
            super.ensureLoadBalancerDeleted(cluster, service);
          }
        });
    create("web");
    awaitIngress("web");

    client
        .services()
        .inNamespace(namespace)
        .withName("web")
        .edit(
            s -> {
              s.getSpec().setType("ClusterIP");
              s.getSpec().getPorts().forEach(p -> p.setNodePort(null));
              return s;
            });

    awaitEvent(
        "web",
        "Warning",
        "SyncLoadBalancerFailed",
        "Error syncing load balancer: failed to delete load balancer:"
            + " java.lang.IllegalStateException");
    awaitEvent("web", "Normal", "DeletedLoadBalancer", "Deleted load balancer"); // retried
  }

  /**
   * S9: a Service that went without the finalizer has its load balancer deleted from the copy the
   * controller synced; whatever the provider throws there is a Warning {@code
   * DeleteLoadBalancerFailed}, as upstream records every error of that deletion, and not only a
   * line in the log behind a Normal {@code DeletingLoadBalancer} repeated at each retry.
   */
  @Test
  void S9_anyFailureOfTheDeletionOfAServiceGoneWithoutFinalizerIsAWarning() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("");
    LoadBalancer failingDeletions =
        new ForwardingLoadBalancer(cloud.loadBalancer().orElseThrow()) {
          @Override
          public void ensureLoadBalancerDeleted(String cluster, Service service) {
            throw new IllegalStateException("the provider lost its session");
          }
        };
    // The periodic re-ensure queues the key of every Service this instance synced, so the sync
    // finds this one gone (S9) soon after its deletion.
    startControllerWith(
        failingDeletions,
        SETTINGS.withService(
            SETTINGS.service().withLoadBalancerResyncPeriod(Duration.ofSeconds(2))));
    create("gone");
    awaitIngress("gone");

    client
        .services()
        .inNamespace(namespace)
        .withName("gone")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    client.services().inNamespace(namespace).withName("gone").delete();

    awaitEvent(
        "gone",
        "Warning",
        "DeleteLoadBalancerFailed",
        "Error deleting load balancer: the provider lost its session");
  }

  /**
   * A write the API server refuses is named in the event as upstream's says it, by the API server's
   * message, not fabric8's line with the request's URL and the whole Status object.
   */
  @Test
  void aRefusedWriteIsNamedInTheEventByTheApiServersMessage() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    String policy = prefix + "-deny-status";
    try (AdmissionDenial denial =
        AdmissionDenial.ofUpdates(
            client,
            policy,
            List.of("services", "services/status"),
            "refused",
            "writes to refused are blocked")) {
      // The policy takes effect once the API server has loaded it: until a write of a probe is
      // refused.
      create("refused-probe", b -> b.editSpec().withType("ClusterIP").endSpec());
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(
              () -> {
                try {
                  client
                      .services()
                      .inNamespace(namespace)
                      .withName("refused-probe")
                      .edit(
                          s ->
                              new ServiceBuilder(s)
                                  .editMetadata()
                                  .addToLabels("probe", String.valueOf(System.nanoTime()))
                                  .endMetadata()
                                  .build());
                  return false;
                } catch (KubernetesClientException e) {
                  return e.getMessage().contains("denied request");
                }
              });
      run("");
      create("refused");
      String refusal =
          "services \"refused\" is forbidden: ValidatingAdmissionPolicy '%s' with binding '%s'"
                  .formatted(policy, policy)
              + " denied request: writes to refused are blocked";
      awaitEvent(
          "refused",
          "Warning",
          ServiceLoadBalancerController.REASON_SYNC_FAILED,
          "Error syncing load balancer: failed to add load balancer cleanup finalizer: " + refusal);
      assertThat(events("refused"))
          .extracting(Event::getMessage)
          .noneMatch(
              message -> message.contains("Received status") || message.contains("https://"));
    }
  }

  /**
   * A load balancer still being provisioned ({@code RetryAfterException.inProgress}) is looked at
   * again after the delay the provider names, without a Warning event at each look; a plain
   * retry-after answer is a failure, recorded as upstream's is.
   */
  @Test
  void S14_aLoadBalancerInProgressIsRetriedWithoutWarningsAndAPlainRetryWarns() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("");
    LoadBalancer sim = cloud.loadBalancer().orElseThrow();
    AtomicInteger looks = new AtomicInteger();
    AtomicInteger throttled = new AtomicInteger();
    startControllerWith(
        new ForwardingLoadBalancer(sim) {
          @Override
          public LoadBalancerStatus ensureLoadBalancer(
              String cluster, Service service, List<Node> nodes) throws CloudException {
            String name = service.getMetadata().getName();
            if (name.equals("provisioning") && looks.incrementAndGet() <= 3) {
              throw RetryAfterException.inProgress("no ingress yet", Duration.ofMillis(300));
            }
            if (name.equals("throttled") && throttled.incrementAndGet() <= 2) {
              throw new RetryAfterException("throttled", Duration.ofMillis(300));
            }
            return super.ensureLoadBalancer(cluster, service, nodes);
          }
        });

    create("provisioning");
    awaitIngress("provisioning");
    assertThat(looks.get()).isGreaterThanOrEqualTo(4);
    assertThat(events("provisioning")).extracting(Event::getType).doesNotContain("Warning");

    create("throttled");
    awaitIngress("throttled");
    awaitEvent(
        "throttled",
        "Warning",
        ServiceLoadBalancerController.REASON_SYNC_FAILED,
        "Error syncing load balancer: failed to ensure load balancer: throttled");
  }

  @Test
  void S4_aServiceWithALoadBalancerClassIsLeftAlone() throws Exception {
    run("");
    Service created =
        create("classy", b -> b.editSpec().withLoadBalancerClass("example.com/lb").endSpec());
    assertThat(created.getSpec().getLoadBalancerClass())
        .as(
            "spec.loadBalancerClass as the API server stored it (Kubernetes 1.21 and newer keep it)")
        .isEqualTo("example.com/lb");
    create("plain");
    awaitIngress("plain");
    await()
        .during(Duration.ofSeconds(2))
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> lbs().callsFor(namespace + "/classy").isEmpty());
    assertThat(service("classy").getMetadata().getFinalizers()).doesNotContain(FINALIZER);
  }

  @Test
  void S13_ipModeIsWrittenAsTheCloudSaysAndTheServersVipDefaultCausesNoFurtherWrites()
      throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("");
    LoadBalancer sim = cloud.loadBalancer().orElseThrow();
    // "proxied" gets ipMode Proxy from the cloud, "hostnamed" a hostname with ipMode Proxy (which
    // the API server refuses without an ip); every other Service an IP without ipMode, which the
    // API server (1.30 and newer) stores as VIP.
    LoadBalancer proxying =
        new ForwardingLoadBalancer(sim) {
          @Override
          public Optional<LoadBalancerStatus> getLoadBalancer(String cluster, Service service)
              throws CloudException {
            return super.getLoadBalancer(cluster, service).map(status -> proxied(service, status));
          }

          @Override
          public LoadBalancerStatus ensureLoadBalancer(
              String cluster, Service service, List<Node> nodes) throws CloudException {
            return proxied(service, super.ensureLoadBalancer(cluster, service, nodes));
          }

          private LoadBalancerStatus proxied(Service service, LoadBalancerStatus status) {
            if ("hostnamed".equals(service.getMetadata().getName())) {
              return new LoadBalancerStatus(
                  List.of(new LoadBalancerStatus.Ingress("", "lb.example.com", "Proxy")));
            }
            if (!"proxied".equals(service.getMetadata().getName())) {
              return status;
            }
            return new LoadBalancerStatus(
                status.ingress().stream()
                    .map(i -> new LoadBalancerStatus.Ingress(i.ip(), i.hostname(), "Proxy"))
                    .toList());
          }
        };
    startControllerWith(proxying);
    create("proxied");
    create("plain");
    create("hostnamed");
    awaitIngress("proxied", "plain");
    await()
        .atMost(30, TimeUnit.SECONDS)
        .until(
            () ->
                service("hostnamed").getStatus().getLoadBalancer().getIngress().size() == 1
                    && service("hostnamed")
                            .getStatus()
                            .getLoadBalancer()
                            .getIngress()
                            .get(0)
                            .getHostname()
                        != null);
    assertThat(service("hostnamed").getStatus().getLoadBalancer().getIngress().get(0).getIpMode())
        .isNull();

    assertThat(service("proxied").getStatus().getLoadBalancer().getIngress().get(0).getIpMode())
        .isEqualTo("Proxy");
    assertThat(service("plain").getStatus().getLoadBalancer().getIngress().get(0).getIpMode())
        .as("defaulted by the API server")
        .isEqualTo("VIP");
    // A status that compared unequal to the server's defaulted one would be written again and
    // again: each write an update event, each event a sync.
    String proxiedVersion = service("proxied").getMetadata().getResourceVersion();
    String plainVersion =
        client
            .services()
            .inNamespace(namespace)
            .withName("plain")
            .edit(
                s -> {
                  s.getMetadata().setLabels(Map.of("touched", "true"));
                  return s;
                })
            .getMetadata()
            .getResourceVersion();
    await()
        .during(Duration.ofSeconds(3))
        .atMost(6, TimeUnit.SECONDS)
        .until(
            () ->
                service("proxied").getMetadata().getResourceVersion().equals(proxiedVersion)
                    && service("plain").getMetadata().getResourceVersion().equals(plainVersion));
    assertThat(calls("plain", "EnsureLoadBalancer")).isEqualTo(1);
  }

  @Test
  void S11_aTypeChangeAndADeletionDeleteTheLoadBalancerAndReleaseTheFinalizer() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("changed");
    create("deleted");
    awaitIngress("changed", "deleted");

    client
        .services()
        .inNamespace(namespace)
        .withName("changed")
        .edit(
            s -> {
              s.getSpec().setType("ClusterIP");
              s.getSpec().getPorts().forEach(p -> p.setNodePort(null));
              return s;
            });
    await()
        .atMost(15, TimeUnit.SECONDS)
        .until(() -> !service("changed").getMetadata().getFinalizers().contains(FINALIZER));
    await().atMost(5, TimeUnit.SECONDS).until(() -> ingressIp("changed") == null);
    assertThat(calls("changed", "EnsureLoadBalancerDeleted")).isEqualTo(1);
    assertThat(lbs().loadBalancerOf(namespace + "/changed")).isEmpty();
    awaitEvent("changed", "Normal", "DeletingLoadBalancer", "Deleting load balancer");
    awaitEvent("changed", "Normal", "DeletedLoadBalancer", "Deleted load balancer");

    client.services().inNamespace(namespace).withName("deleted").delete();
    await().atMost(15, TimeUnit.SECONDS).until(() -> service("deleted") == null);
    assertThat(calls("deleted", "EnsureLoadBalancerDeleted")).isEqualTo(1);
    assertThat(lbs().loadBalancerOf(namespace + "/deleted")).isEmpty();
  }

  @Test
  void S10_aServiceRecreatedWithoutFinalizerLosesItsOldLoadBalancerFirst() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    Service first = create("again");
    awaitIngress("again");
    String oldBalancer = lbs().loadBalancerOf(namespace + "/again").orElseThrow().name();
    // Without its finalizer (stripped by hand) the deletion goes unnoticed until the name is
    // reused.
    client
        .services()
        .inNamespace(namespace)
        .withName("again")
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    client.services().inNamespace(namespace).withName("again").delete();
    await().atMost(10, TimeUnit.SECONDS).until(() -> service("again") == null);
    Service second = create("again");

    awaitIngress("again");
    assertThat(second.getMetadata().getUid()).isNotEqualTo(first.getMetadata().getUid());
    assertThat(lbs().loadBalancers()).doesNotContainKey(oldBalancer);
    assertThat(lbs().loadBalancerOf(namespace + "/again").orElseThrow().name())
        .isNotEqualTo(oldBalancer);
    assertThat(calls("again", "EnsureLoadBalancerDeleted")).isEqualTo(1);
    awaitEvent("again", "Normal", "DeletedLoadBalancer", "Deleted load balancer");
  }

  @Test
  void S14_aRetryAfterIsRetriedAfterItsFixedDelayNotTheBackoff() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("loadBalancers: {provisioningRetries: 2, provisioningRetryAfterMs: 1000}");
    long started = System.nanoTime();
    create("slow");
    awaitIngress("slow");
    double seconds = (System.nanoTime() - started) / 1e9;

    assertThat(calls("slow", "EnsureLoadBalancer")).isEqualTo(3);
    // Two fixed 1 s delays; the rate limiter would have waited 5 s and then 10 s.
    assertThat(seconds).isBetween(2.0, 4.9);
    awaitEvent("slow", "Warning", "SyncLoadBalancerFailed", "is being provisioned");
  }

  @Test
  void failover_aNewInstanceMakesOneReadAndNoEnsurePerUnchangedService() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    List<String> names = List.of("s0", "s1", "s2", "s3", "s4");
    names.forEach(this::create);
    awaitIngress(names.toArray(String[]::new));
    awaitRecorded(names);
    harness.close(); // the leader goes away

    // While no one leads, one Service changes.
    client
        .services()
        .inNamespace(namespace)
        .withName("s4")
        .edit(
            s -> {
              s.getSpec().getPorts().get(0).setPort(81);
              return s;
            });
    Map<String, Map<String, Long>> before = callsByService(names);
    startController(); // a new leader over the same cloud

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(
            () ->
                names.stream()
                    .allMatch(
                        n ->
                            delta(before, n, "GetLoadBalancer") >= 1
                                || delta(before, n, "EnsureLoadBalancer") >= 1));
    await()
        .during(Duration.ofSeconds(2))
        .atMost(5, TimeUnit.SECONDS)
        .until(
            () ->
                calls("s4", "EnsureLoadBalancer")
                        - before.get("s4").getOrDefault("EnsureLoadBalancer", 0L)
                    == 1);
    for (String unchanged : names.subList(0, 4)) {
      assertThat(delta(before, unchanged, "GetLoadBalancer")).as(unchanged).isEqualTo(1);
      assertThat(delta(before, unchanged, "EnsureLoadBalancer")).as(unchanged).isZero();
      assertThat(delta(before, unchanged, "UpdateLoadBalancer")).as(unchanged).isZero();
    }
    assertThat(service("s4").getSpec().getPorts())
        .extracting(ServicePort::getPort)
        .containsExactly(81);
  }

  /**
   * §8.8: the record is checked with one GetLoadBalancer; when that read fails (a flaky cloud, a
   * provider that throws unchecked, one that does not implement it), the new leader ensures the
   * load balancer as upstream would at any start, with its events, instead of failing the sync.
   */
  @Test
  void failover_aFailedReadOfTheLoadBalancerEndsInTheFullEnsureNotAFailedSync() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    List<String> names = List.of("flaky", "unchecked", "unimplemented");
    names.forEach(this::create);
    awaitIngress(names.toArray(String[]::new));
    awaitRecorded(names);
    harness.close();
    Map<String, Map<String, Long>> before = callsByService(names);
    Map<String, Integer> ensuredBefore = new java.util.HashMap<>();
    names.forEach(n -> ensuredBefore.put(n, eventCount(n, "EnsuredLoadBalancer")));

    // Only the new leader's check fails: the clean-up's reads before deleting must succeed.
    Set<String> failed = ConcurrentHashMap.newKeySet();
    startControllerWith(
        new ForwardingLoadBalancer(lbs()) {
          @Override
          public Optional<LoadBalancerStatus> getLoadBalancer(String cluster, Service service)
              throws CloudException {
            String name = service.getMetadata().getName();
            if (!failed.add(name)) {
              return super.getLoadBalancer(cluster, service);
            }
            return switch (name) {
              case "flaky" -> throw new CloudException("connection reset");
              case "unchecked" -> throw new IllegalStateException("no client yet");
              case "unimplemented" -> throw new NotImplementedException();
              default -> super.getLoadBalancer(cluster, service);
            };
          }
        });

    await()
        .atMost(20, TimeUnit.SECONDS)
        .untilAsserted(
            () -> {
              for (String name : names) {
                assertThat(delta(before, name, "EnsureLoadBalancer")).as(name).isEqualTo(1);
                assertThat(eventCount(name, "EnsuredLoadBalancer"))
                    .as(name)
                    .isGreaterThan(ensuredBefore.get(name));
              }
            });
    for (String name : names) {
      assertThat(eventCount(name, "SyncLoadBalancerFailed")).as(name).isZero();
      assertThat(ingressIp(name)).as(name).isNotNull();
    }
  }

  /**
   * A read the fence refused (this instance no longer leads) is no failure of the cloud to fall
   * back from: the sync fails as a refused ensure would, without announcing an ensure it cannot
   * make.
   */
  @Test
  void failover_aReadRefusedBecauseTheInstanceNoLongerLeadsEnsuresNothing() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("web");
    awaitIngress("web");
    awaitRecorded(List.of("web"));
    harness.close();
    int ensuringBefore = eventCount("web", "EnsuringLoadBalancer");

    startControllerWith(
        new ForwardingLoadBalancer(lbs()) {
          @Override
          public Optional<LoadBalancerStatus> getLoadBalancer(String cluster, Service service)
              throws CloudException {
            throw new NotLeadingException("GetLoadBalancer " + service.getMetadata().getName());
          }

          @Override
          public LoadBalancerStatus ensureLoadBalancer(
              String cluster, Service service, List<Node> nodes) throws CloudException {
            throw new NotLeadingException("EnsureLoadBalancer " + service.getMetadata().getName());
          }
        });

    awaitEvent(
        "web",
        "Warning",
        "SyncLoadBalancerFailed",
        "failed to get load balancer: not called: this instance no longer leads");
    // The retry, due 5 s after the failure, is a plain ensure; the first sync announced none.
    assertThat(eventCount("web", "EnsuringLoadBalancer")).isEqualTo(ensuringBefore);
    // A fenced controller cannot delete either: stop it, the clean-up drops the finalizer.
    harness.close();
    harness = null;
  }

  /**
   * A provider upgrade or a changed cloud-config (another fingerprint) must reach the load
   * balancers a previous leader ensured; their records vouch only for what they were ensured with.
   */
  @Test
  void failover_aProviderWithAnotherFingerprintEnsuresEveryLoadBalancerAgain() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    List<String> names = List.of("s0", "s1");
    names.forEach(this::create);
    awaitIngress(names.toArray(String[]::new));
    awaitRecorded(names);
    harness.close();
    Map<String, Map<String, Long>> before = callsByService(names);

    // The same cloud, upgraded: its fingerprint is another.
    startControllerWith(
        new ForwardingLoadBalancer(lbs()) {
          @Override
          public String fingerprint() {
            return "sim/v2";
          }
        });

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> names.stream().allMatch(n -> delta(before, n, "EnsureLoadBalancer") == 1));
    String recorded =
        service("s0")
            .getMetadata()
            .getAnnotations()
            .get(WellKnownAnnotations.LOAD_BALANCER_APPLIED);
    assertThat(recorded)
        .isEqualTo(
            AppliedLoadBalancer.of(
                    service("s0"),
                    LoadBalancerNodes.stableNodeSet(client.nodes().list().getItems()),
                    "kubernetes",
                    "sim/v2")
                .annotationValue());
  }

  /**
   * The cluster name is an input of every ensure (providers name and tag load balancers with it): a
   * corrected {@code --cluster-name} must reach the load balancers a previous leader ensured, as
   * upstream's ensure of every load balancer at each start makes it, whatever the provider's
   * fingerprint says.
   */
  @Test
  void failover_aNewLeaderWithAnotherClusterNameEnsuresEveryLoadBalancerAgain() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    List<String> names = List.of("c0", "c1");
    names.forEach(this::create);
    awaitIngress(names.toArray(String[]::new));
    awaitRecorded(names);
    harness.close();
    Map<String, Map<String, Long>> before = callsByService(names);

    harness =
        new ControllerHarness(client, cloud, SETTINGS)
            .withClusterName("renamed")
            .start(Controllers.SERVICE_LB);

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> names.stream().allMatch(n -> delta(before, n, "EnsureLoadBalancer") == 1));
  }

  /**
   * Drift in the cloud (a load balancer deleted in the cloud's console) is corrected by the
   * periodic re-ensure, spread over the resync period, without any change to the Service.
   */
  @Test
  void resync_aLoadBalancerDeletedInTheCloudIsEnsuredAgainWithinTheResyncPeriod() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    cloud = SimCloudProviderFactory.fromYaml("");
    Duration resync = Duration.ofSeconds(3);
    harness =
        new ControllerHarness(
                client,
                cloud,
                SETTINGS.withService(SETTINGS.service().withLoadBalancerResyncPeriod(resync)))
            .start(Controllers.SERVICE_LB);
    List<String> names = List.of("r0", "r1", "r2");
    names.forEach(this::create);
    awaitIngress(names.toArray(String[]::new));
    assertThat(lbs().dropOutOfBand(namespace + "/r1")).isTrue();
    Map<String, Map<String, Long>> before = callsByService(names);
    long dropped = System.nanoTime();

    await("every load balancer ensured again, r1 recreated")
        .atMost(resync.multipliedBy(3))
        .until(
            () ->
                names.stream().allMatch(n -> delta(before, n, "EnsureLoadBalancer") >= 1)
                    && lbs().loadBalancerOf(namespace + "/r1").isPresent());
    System.out.printf(
        "resync: 3 load balancers ensured again, the dropped one back after %.1f s (period %s)%n",
        (System.nanoTime() - dropped) / 1e9, resync);
    assertThat(names).allSatisfy(n -> assertThat(delta(before, n, "EnsureLoadBalancer")).isOne());
  }

  @Test
  void failover_backendsChangedWhileNoOneLedAreUpdatedNotEnsured() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("web");
    awaitIngress("web");
    awaitRecorded(List.of("web"));
    harness.close();

    kubelets.register(NodeSpec.named(node("b")));
    startController();

    await().atMost(20, TimeUnit.SECONDS).until(() -> backends("web").containsKey(node("b")));
    await()
        .during(Duration.ofSeconds(2))
        .atMost(5, TimeUnit.SECONDS)
        .until(
            () ->
                calls("web", "EnsureLoadBalancer") == 1 && calls("web", "UpdateLoadBalancer") == 1);
    assertThat(calls("web", "GetLoadBalancer")).isEqualTo(1);
  }

  /**
   * The new leader's update of backends that changed while no one led is written ahead as a node
   * sync's is: while the cloud moves the backends, the record no longer vouches for the old ones,
   * so a leader that died before its status write would leave a record that no new leader trusts.
   */
  @Test
  void failover_theRecordStopsVouchingForTheOldBackendsBeforeANewLeaderMovesThem()
      throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("web");
    awaitIngress("web");
    awaitRecorded(List.of("web"));
    String ensuredWithA = applied("web");
    harness.close();

    kubelets.register(NodeSpec.named(node("b")));
    List<String> recordDuringUpdate = new CopyOnWriteArrayList<>();
    startControllerWith(
        new ForwardingLoadBalancer(lbs()) {
          @Override
          public void updateLoadBalancer(String cluster, Service service, List<Node> nodes)
              throws CloudException {
            if (service.getMetadata().getName().equals("web")) {
              recordDuringUpdate.add(String.valueOf(applied("web")));
            }
            super.updateLoadBalancer(cluster, service, nodes);
          }
        });

    await().atMost(20, TimeUnit.SECONDS).until(() -> backends("web").containsKey(node("b")));
    assertThat(recordDuringUpdate)
        .first()
        .isNotEqualTo(ensuredWithA)
        .isEqualTo(
            ensuredWithA.substring(0, ensuredWithA.indexOf(",nodes="))
                + ",nodes="
                + AppliedLoadBalancer.NODES_UNRECORDED);
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> applied("web") != null && !applied("web").equals(recordDuringUpdate.get(0)));
    assertThat(calls("web", "EnsureLoadBalancer")).isEqualTo(1);
  }

  @Test
  void failover_backendsANodeSyncChangedAreUpdatedEvenWhenTheNodesMatchTheRecordAgain()
      throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("web");
    awaitIngress("web");
    await().atMost(10, TimeUnit.SECONDS).until(() -> applied("web") != null);
    String ensuredWithA = applied("web");

    // A node sync moves the backends away from what the ensure recorded...
    kubelets.register(NodeSpec.named(node("b")));
    await().atMost(15, TimeUnit.SECONDS).until(() -> backends("web").containsKey(node("b")));
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> applied("web").endsWith(",nodes=" + AppliedLoadBalancer.NODES_UNRECORDED));
    harness.close();

    // ...and while no one leads, the nodes become the recorded set again.
    client.nodes().withName(node("b")).delete();
    Map<String, Map<String, Long>> before = callsByService(List.of("web"));
    startController();

    await().atMost(20, TimeUnit.SECONDS).until(() -> !backends("web").containsKey(node("b")));
    await().atMost(10, TimeUnit.SECONDS).until(() -> ensuredWithA.equals(applied("web")));
    assertThat(delta(before, "web", "GetLoadBalancer")).isEqualTo(1);
    assertThat(delta(before, "web", "UpdateLoadBalancer")).isEqualTo(1);
    assertThat(delta(before, "web", "EnsureLoadBalancer")).isZero();
  }

  private String applied(String name) {
    Map<String, String> annotations = service(name).getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(WellKnownAnnotations.LOAD_BALANCER_APPLIED);
  }

  @Test
  void badInput_aPortTheCloudRefusesEndsAsAWarningNamingTheFieldWithoutRetries() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("sctp", b -> b.editSpec().editFirstPort().withProtocol("SCTP").endPort().endSpec());

    awaitEvent(
        "sctp",
        "Warning",
        "SyncLoadBalancerFailed",
        "Error syncing load balancer: failed to ensure load balancer: spec.ports[0].protocol: sim load balancers support TCP and UDP, not SCTP");
    await()
        .during(Duration.ofSeconds(6))
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> calls("sctp", "EnsureLoadBalancer") == 1);

    // The fix is an update of the Service, which syncs it again.
    client
        .services()
        .inNamespace(namespace)
        .withName("sctp")
        .edit(
            s -> {
              s.getSpec().getPorts().get(0).setProtocol("TCP");
              return s;
            });
    awaitIngress("sctp");
  }

  @Test
  void badInput_aLoadBalancerIpOutsideTheCloudsPoolEndsAsAWarningNamingTheField() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("pinned", b -> b.editSpec().withLoadBalancerIP("192.0.2.10").endSpec());

    awaitEvent(
        "pinned",
        "Warning",
        "SyncLoadBalancerFailed",
        "spec.loadBalancerIP: \"192.0.2.10\" is not in the sim cloud's ingress pool 127.0.200.0/24");
    assertThat(ingressIp("pinned")).isNull();
  }

  /**
   * The API server refuses a malformed source-ranges annotation on create and update (it names the
   * field itself), but not through the status subresource, which lets metadata through: that is how
   * a bad value can reach the controller, which then must not pass it to the cloud. The controller
   * checks it where upstream's providers do, inside the ensure: after {@code EnsuringLoadBalancer}
   * and the finalizer, the error worded as any failed ensure.
   */
  @Test
  void badInput_aMalformedSourceRangesAnnotationEndsAsAWarningNamingItAfterEnsuring()
      throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    String annotation = WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES;
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () ->
                create(
                    "refused",
                    b ->
                        b.editMetadata().addToAnnotations(annotation, "10.0.0.0/33").endMetadata()))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            e -> {
              assertThat(e.getCode()).isEqualTo(422);
              assertThat(e.getMessage()).contains("metadata.annotations[" + annotation + "]");
            });
    create("ranges");
    patchAnnotationThroughStatus("ranges", annotation, "10.0.0.0/33");
    List<String> reasons = new CopyOnWriteArrayList<>();

    try (Watch watch =
        client
            .v1()
            .events()
            .inNamespace(namespace)
            .withField("involvedObject.name", "ranges")
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, Event event) {
                    reasons.add(event.getReason());
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      run("");
      awaitEvent(
          "ranges",
          "Warning",
          "SyncLoadBalancerFailed",
          "Error syncing load balancer: failed to ensure load balancer: metadata.annotations["
              + annotation
              + "]: \"10.0.0.0/33\" is not an IP range");
    }

    assertThat(reasons)
        .as("upstream's order: the ensure is announced, then fails")
        .containsSubsequence("EnsuringLoadBalancer", "SyncLoadBalancerFailed")
        .doesNotContain("EnsuredLoadBalancer");
    assertThat(service("ranges").getMetadata().getFinalizers()).contains(FINALIZER);
    await()
        .during(Duration.ofSeconds(2))
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> calls("ranges", "EnsureLoadBalancer") == 0);
  }

  /**
   * A Service that goes bad while no one leads keeps its load balancer; upstream's new leader
   * stores the nodes of its failed ensure and so its node syncs keep that load balancer's backends
   * in line with the nodes. So must ccm4j's, though its ensure stops at the malformed value.
   */
  @Test
  void failover_aServiceWithAMalformedSourceRangeStillHasItsBackendsFollowTheNodes()
      throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("ranges");
    awaitIngress("ranges");
    awaitRecorded(List.of("ranges"));
    harness.close();
    String annotation = WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES;
    patchAnnotationThroughStatus("ranges", annotation, "10.0.0.0/33");
    Map<String, Map<String, Long>> before = callsByService(List.of("ranges"));

    startController();
    awaitEvent(
        "ranges", "Warning", "SyncLoadBalancerFailed", "metadata.annotations[" + annotation + "]");
    kubelets.register(NodeSpec.named(node("b")));

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> backends("ranges").keySet().containsAll(List.of(node("a"), node("b"))));
    assertThat(delta(before, "ranges", "UpdateLoadBalancer")).isEqualTo(1);
    assertThat(delta(before, "ranges", "EnsureLoadBalancer")).isZero();
  }

  /**
   * A record is no reason to skip a check the controller makes at every ensure: one that matches a
   * malformed source range (written by a build whose check was laxer) still ends in the warning.
   */
  @Test
  void failover_aRecordThatMatchesAMalformedSourceRangeIsNotTrusted() throws Exception {
    kubelets.register(NodeSpec.named(node("a")));
    run("");
    create("ranges");
    awaitIngress("ranges");
    awaitRecorded(List.of("ranges"));
    harness.close();
    String annotation = WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES;
    patchAnnotationThroughStatus("ranges", annotation, "10.0.0.0/33");
    String matching =
        AppliedLoadBalancer.of(
                service("ranges"),
                LoadBalancerNodes.stableNodeSet(client.nodes().list().getItems()),
                "kubernetes",
                lbs().fingerprint())
            .annotationValue();
    patchAnnotationThroughStatus("ranges", WellKnownAnnotations.LOAD_BALANCER_APPLIED, matching);

    startController();

    awaitEvent(
        "ranges", "Warning", "SyncLoadBalancerFailed", "metadata.annotations[" + annotation + "]");
  }

  /**
   * Upstream's ensure at every leader start warns of a load balancer no node backs; a new leader
   * that skips the ensure (the record matches) must warn all the same. The nodes are cluster-wide
   * and earlier test classes leave theirs, so every node is excluded from load balancers here.
   */
  @Test
  void failover_aNewLeaderWhoseRecordMatchesStillWarnsThatNoNodeBacksTheLoadBalancer()
      throws Exception {
    List<String> excluded = excludeEveryNodeFromLoadBalancers();
    try {
      run("");
      create("lonely");
      awaitIngress("lonely");
      awaitRecorded(List.of("lonely"));
      awaitEvent(
          "lonely",
          "Warning",
          "UnAvailableLoadBalancer",
          ServiceLoadBalancerController.MESSAGE_UNAVAILABLE);
      harness.close();
      int warned = unavailableCount("lonely");
      Map<String, Map<String, Long>> before = callsByService(List.of("lonely"));

      startController();

      await()
          .atMost(20, TimeUnit.SECONDS)
          .until(() -> delta(before, "lonely", "GetLoadBalancer") == 1);
      await()
          .atMost(15, TimeUnit.SECONDS)
          .untilAsserted(() -> assertThat(unavailableCount("lonely")).isGreaterThan(warned));
      assertThat(delta(before, "lonely", "EnsureLoadBalancer")).isZero();
      assertThat(delta(before, "lonely", "UpdateLoadBalancer")).isZero();
    } finally {
      for (String name : excluded) {
        try {
          client
              .nodes()
              .withName(name)
              .patch(
                  PatchContext.of(PatchType.JSON_MERGE),
                  "{\"metadata\":{\"labels\":{\"%s\":null}}}"
                      .formatted(WellKnownLabels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS));
        } catch (KubernetesClientException e) {
          if (e.getCode() != 404) {
            throw e;
          }
        }
      }
    }
  }

  /** Labels every node a load balancer would take as excluded; returns the ones it labelled. */
  private List<String> excludeEveryNodeFromLoadBalancers() {
    List<String> labelled = new ArrayList<>();
    for (Node node : LoadBalancerNodes.stableNodeSet(client.nodes().list().getItems())) {
      String name = node.getMetadata().getName();
      client
          .nodes()
          .withName(name)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"metadata\":{\"labels\":{\"%s\":\"true\"}}}"
                  .formatted(WellKnownLabels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS));
      labelled.add(name);
    }
    return labelled;
  }

  /** How many times the Service had an event with this reason (the events' counts). */
  private int eventCount(String name, String reason) {
    return events(name).stream()
        .filter(e -> reason.equals(e.getReason()))
        .mapToInt(e -> e.getCount() == null ? 1 : e.getCount())
        .sum();
  }

  /** How many times the Service was warned that no node backs it (the events' counts). */
  private int unavailableCount(String name) {
    return events(name).stream()
        .filter(e -> "UnAvailableLoadBalancer".equals(e.getReason()))
        .mapToInt(e -> e.getCount() == null ? 1 : e.getCount())
        .sum();
  }

  /** Metadata through the status subresource: the API server does not validate it there. */
  private void patchAnnotationThroughStatus(String name, String annotation, String value) {
    client
        .services()
        .inNamespace(namespace)
        .withName(name)
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            "{\"metadata\":{\"annotations\":{\"%s\":\"%s\"}}}".formatted(annotation, value));
  }

  /** Until each Service carries ccm4j's record of its ensure. */
  private void awaitRecorded(List<String> names) {
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                names.stream()
                    .allMatch(
                        n ->
                            service(n).getMetadata().getAnnotations() != null
                                && service(n)
                                    .getMetadata()
                                    .getAnnotations()
                                    .containsKey(WellKnownAnnotations.LOAD_BALANCER_APPLIED)));
  }

  private Map<String, Map<String, Long>> callsByService(List<String> names) {
    Map<String, Map<String, Long>> snapshot = new java.util.HashMap<>();
    names.forEach(n -> snapshot.put(n, lbs().callsFor(namespace + "/" + n)));
    return snapshot;
  }

  private long delta(Map<String, Map<String, Long>> before, String name, String method) {
    return calls(name, method) - before.get(name).getOrDefault(method, 0L);
  }
}
