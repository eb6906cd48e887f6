package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.simulator.virt.SimulatedVirt;
import io.ccm4j.simulator.virt.VirtualMachineSpec;
import io.fabric8.kubernetes.api.model.EndpointsBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The EndpointSlice controller (§4) against a real API server that plays both clusters: the tenant
 * cluster's EndpointSlices live in a namespace of their own, the VMIs, infrastructure Services and
 * their slices in the infrastructure namespace.
 */
@WithControlPlane
class KubeVirtEndpointSlicesIT {

  private final LocalControlPlane plane;
  private final KubernetesClient client;
  private final String id = UUID.randomUUID().toString().substring(0, 8);
  private final String infraNamespace = "infra-" + id;
  private final String tenantNamespace = "shop-" + id;
  private final String cluster = "tenant-" + id;
  private SimulatedVirt virt;
  private KubeVirtCloud cloud;

  /**
   * The controller's queue metrics, to tell when it has synced: the registry the manager gives the
   * provider ({@code ProviderContext.metrics}).
   */
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @TempDir Path temp;

  KubeVirtEndpointSlicesIT(LocalControlPlane plane, KubernetesClient client) {
    this.plane = plane;
    this.client = client;
  }

  @BeforeEach
  void start() {
    for (String namespace : List.of(infraNamespace, tenantNamespace)) {
      client
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .create();
    }
    virt = new SimulatedVirt(client, infraNamespace);
    SimulatedVirt.addNode(client, "infra-a-" + id, "eu-west", "eu-west-a");
    SimulatedVirt.addNode(client, "infra-b-" + id, "eu-west", "eu-west-b");
  }

  @AfterEach
  void stop() {
    if (cloud != null) {
      cloud.close();
    }
    client.namespaces().withName(infraNamespace).delete();
    client.namespaces().withName(tenantNamespace).delete();
    client.nodes().withName("infra-a-" + id).delete();
    client.nodes().withName("infra-b-" + id).delete();
  }

  private KubeVirtCloud cloud(boolean enabledByControllersFlag) throws Exception {
    return cloud(enabledByControllersFlag, plane.kubeconfigPath());
  }

  private KubeVirtCloud cloud(boolean enabledByControllersFlag, Path kubeconfig) throws Exception {
    return cloud(enabledByControllersFlag, kubeconfig, "{enableEPSController: true}");
  }

  private KubeVirtCloud cloud(
      boolean enabledByControllersFlag, Path kubeconfig, String loadBalancer) throws Exception {
    Path config = temp.resolve("cloud.yaml");
    Files.writeString(
        config,
        "kubeconfig: %s\nnamespace: %s\nloadBalancer: %s\n"
            .formatted(kubeconfig, infraNamespace, loadBalancer));
    KubeVirtCloud created =
        (KubeVirtCloud) new KubeVirtCloudProviderFactory().create(Optional.of(config));
    created.initialize(
        new ProviderContext(
            cluster,
            Optional.of(client),
            name -> enabledByControllersFlag && name.equals("kubevirt_eps_controller"),
            meters));
    return created;
  }

  private Service tenantService(String trafficPolicy) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName("web")
        .withNamespace(tenantNamespace)
        .withUid(UUID.randomUUID().toString())
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withExternalTrafficPolicy(trafficPolicy)
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNodePort(30080)
        .endPort()
        .endSpec()
        .build();
  }

  /**
   * The load balancer facet creates the infrastructure Service, as the service controller would.
   */
  private String ensure(LoadBalancer balancer, Service tenant) {
    assertThatThrownBy(() -> balancer.ensureLoadBalancer(cluster, tenant, List.of()))
        .isInstanceOf(RetryAfterException.class);
    return LoadBalancer.defaultName(tenant);
  }

  private void tenantEndpoints(String... nodeNames) {
    List<Endpoint> endpoints =
        Arrays.stream(nodeNames)
            .map(
                node ->
                    node.isEmpty()
                        ? new EndpointBuilder().withAddresses("10.244.9.9").build()
                        : new EndpointBuilder()
                            .withAddresses("10.244." + node.length() + ".1")
                            .withNodeName(node)
                            .build())
            .toList();
    tenantEndpoints(endpoints);
  }

  private void tenantEndpoints(List<Endpoint> endpoints) {
    client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(tenantNamespace)
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("web-abcde")
                .withNamespace(tenantNamespace)
                .addToLabels(KubeVirtEndpointSlices.SERVICE_NAME_LABEL, "web")
                .endMetadata()
                .withAddressType("IPv4")
                .withEndpoints(endpoints)
                .addNewPort()
                .withName("http")
                .withPort(8080)
                .withProtocol("TCP")
                .endPort()
                .build())
        .createOr(existing -> existing.update());
  }

  private List<EndpointSlice> managed(String infraService) {
    return client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(infraNamespace)
        .withLabel(KubeVirtEndpointSlices.MANAGED_BY_LABEL, KubeVirtEndpointSlices.MANAGED_BY)
        .withLabel(KubeVirtEndpointSlices.SERVICE_NAME_LABEL, infraService)
        .list()
        .getItems();
  }

  private List<String> addresses(String infraService) {
    return managed(infraService).stream()
        .flatMap(s -> s.getEndpoints() == null ? null : s.getEndpoints().stream())
        .map(
            e ->
                e.getAddresses().get(0)
                    + "@"
                    + e.getNodeName()
                    + ":"
                    + e.getConditions().getReady())
        .sorted()
        .toList();
  }

  @Test
  void k72_k74_k75_k76_theVmisOfTheNodesWithEndpointsBackALocalTrafficService() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    virt.start(VirtualMachineSpec.worker("worker-2", cluster, "infra-b-" + id, "10.60.0.12"));
    virt.start(VirtualMachineSpec.worker("worker-33", cluster, "infra-b-" + id, "10.60.0.33"));
    cloud = cloud(true);
    LoadBalancer balancer = cloud.loadBalancer().orElseThrow();
    Service tenant = tenantService("Local");
    String name = ensure(balancer, tenant);
    Service infraService = client.services().inNamespace(infraNamespace).withName(name).get();
    // K46: no selector, so the infrastructure cluster writes no endpoints of its own.
    assertThat(infraService.getSpec().getSelector()).isNullOrEmpty();

    // Two tenant nodes run the Service's pods; an endpoint without a node name is skipped (K74).
    tenantEndpoints("worker-1", "worker-2", "");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(addresses(name))
                    .containsExactly(
                        "10.60.0.11@infra-a-" + id + ":true",
                        "10.60.0.12@infra-b-" + id + ":true"));
    EndpointSlice slice = managed(name).get(0);
    assertThat(slice.getAddressType()).isEqualTo("IPv4");
    assertThat(slice.getMetadata().getName()).startsWith(name);
    assertThat(slice.getMetadata().getLabels())
        .containsEntry(KubeVirtEndpointSlices.SERVICE_NAME_LABEL, name)
        .containsEntry(KubeVirtApi.TENANT_SERVICE_NAME_LABEL, "web")
        .containsEntry(KubeVirtApi.CLUSTER_NAME_LABEL, cluster);
    assertThat(slice.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            owner -> {
              assertThat(owner.getKind()).isEqualTo("Service");
              assertThat(owner.getUid()).isEqualTo(infraService.getMetadata().getUid());
              assertThat(owner.getController()).isTrue();
            });
    // K75: the infrastructure target port, the tenant node port.
    assertThat(slice.getPorts())
        .singleElement()
        .satisfies(
            port -> {
              assertThat(port.getName()).isEqualTo("http");
              assertThat(port.getPort()).isEqualTo(30080);
              assertThat(port.getProtocol()).isEqualTo("TCP");
            });
    // Nothing changed: no write (no update loop between the controller and its own informer).
    String version = managed(name).get(0).getMetadata().getResourceVersion();
    Thread.sleep(2_000);
    assertThat(managed(name).get(0).getMetadata().getResourceVersion()).isEqualTo(version);

    // The pods moved to another node: none of the slice's endpoints is still wanted, and the slice
    // is updated in place (K75 Quirk: upstream crashes here).
    tenantEndpoints("worker-33");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(addresses(name)).containsExactly("10.60.0.33@infra-b-" + id + ":true"));
    assertThat(managed(name))
        .singleElement()
        .extracting(s -> s.getMetadata().getName())
        .isEqualTo(slice.getMetadata().getName());

    // The VMI fails: its endpoint is no longer ready but terminating (VMIs are watched, K121).
    virt.setVmiPhase("worker-33", KubeVirtApi.PHASE_FAILED);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              Endpoint endpoint = managed(name).get(0).getEndpoints().get(0);
              assertThat(endpoint.getConditions().getReady()).isFalse();
              assertThat(endpoint.getConditions().getTerminating()).isTrue();
            });
    virt.setVmiPhase("worker-33", KubeVirtApi.PHASE_RUNNING);
    // A new address of the VMI reaches the slice.
    virt.setVmiAddresses("worker-33", List.of("10.60.0.34"));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(addresses(name)).containsExactly("10.60.0.34@infra-b-" + id + ":true"));

    // A managed slice deleted by hand comes back (K71 c).
    client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(infraNamespace)
        .withName(managed(name).get(0).getMetadata().getName())
        .delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(addresses(name)).containsExactly("10.60.0.34@infra-b-" + id + ":true"));

    // The tenant Service goes back to Cluster traffic: the infrastructure Service gets its
    // selector again, and the managed slices go (K72).
    balancer.updateLoadBalancer(cluster, tenantWithUid(tenant, "Cluster"), List.of());
    assertThat(
            client
                .services()
                .inNamespace(infraNamespace)
                .withName(name)
                .get()
                .getSpec()
                .getSelector())
        .containsEntry(KubeVirtApi.ROLE_LABEL, KubeVirtApi.ROLE_WORKER);
    await().atMost(Duration.ofSeconds(30)).until(() -> managed(name).isEmpty());
  }

  /**
   * A tenant endpoint on {@code node} with its conditions as "TFF": ready, serving, terminating.
   */
  private static Endpoint tenantEndpoint(String node, String address, String conditions) {
    return new EndpointBuilder()
        .withAddresses(address)
        .withNodeName(node)
        .withNewConditions()
        .withReady(conditions.charAt(0) == 'T')
        .withServing(conditions.charAt(1) == 'T')
        .withTerminating(conditions.charAt(2) == 'T')
        .endConditions()
        .build();
  }

  /** The managed endpoints as "address:TFF" (ready, serving, terminating), sorted. */
  private List<String> conditions(String infraService) {
    return managed(infraService).stream()
        .flatMap(s -> s.getEndpoints() == null ? Stream.of() : s.getEndpoints().stream())
        .map(
            e ->
                e.getAddresses().get(0)
                    + ":"
                    + (e.getConditions().getReady() ? "T" : "F")
                    + (e.getConditions().getServing() ? "T" : "F")
                    + (e.getConditions().getTerminating() ? "T" : "F"))
        .sorted()
        .toList();
  }

  /**
   * K121 (users' request): a VMI's endpoint is ready only while one of the tenant Service's
   * endpoints on its node is. Upstream's follows the VMI's phase alone, so traffic kept going to a
   * Running VM whose pods were not ready (a rebooting guest). A node whose pods all terminate but
   * still serve is the infrastructure kube-proxy's fallback (serving and terminating), as the
   * tenant kube-proxy falls back to them.
   */
  @Test
  void k121_aVmisEndpointIsReadyOnlyWhileATenantEndpointOnItsNodeIs() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    virt.start(VirtualMachineSpec.worker("worker-2", cluster, "infra-b-" + id, "10.60.0.12"));
    cloud = cloud(true);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    Endpoint worker2 = tenantEndpoint("worker-2", "10.244.2.1", "TTF");
    tenantEndpoints(List.of(tenantEndpoint("worker-1", "10.244.1.1", "TTF"), worker2));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(conditions(name)).containsExactly("10.60.0.11:TTF", "10.60.0.12:TTF"));

    // worker-1's guest reboots: the VMI runs on, its pod is no longer ready.
    tenantEndpoints(List.of(tenantEndpoint("worker-1", "10.244.1.1", "FFF"), worker2));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(conditions(name)).containsExactly("10.60.0.11:FFF", "10.60.0.12:TTF"));

    // Back up.
    tenantEndpoints(List.of(tenantEndpoint("worker-1", "10.244.1.1", "TTF"), worker2));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(conditions(name)).containsExactly("10.60.0.11:TTF", "10.60.0.12:TTF"));

    // A rollout on worker-1: the old pod terminates but serves, the new one is not ready yet.
    tenantEndpoints(
        List.of(
            tenantEndpoint("worker-1", "10.244.1.1", "FTT"),
            tenantEndpoint("worker-1", "10.244.1.2", "FFF"),
            worker2));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> assertThat(conditions(name)).containsExactly("10.60.0.11:FTT", "10.60.0.12:TTF"));
  }

  /**
   * K121: the tenant endpoints on a node count across all the tenant Service's slices (a dual-stack
   * Service has one per family, a large one several), and only that Service's: another Service's
   * ready pod on the node does not make the VMI's endpoint ready.
   */
  @Test
  void k121_theTenantServicesSlicesCountTogetherAndNoOtherServices() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    cloud = cloud(true);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantSlice("other-abcde", "other", "IPv4", tenantEndpoint("worker-1", "10.244.1.9", "TTF"));
    tenantEndpoints(List.of(tenantEndpoint("worker-1", "10.244.1.1", "FFF")));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(conditions(name)).containsExactly("10.60.0.11:FFF"));

    tenantSlice("web-v6xyz", "web", "IPv6", tenantEndpoint("worker-1", "fd00:244::1", "TTF"));
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(conditions(name)).containsExactly("10.60.0.11:TTF"));
  }

  private void tenantSlice(String name, String service, String addressType, Endpoint endpoint) {
    client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(tenantNamespace)
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels(KubeVirtEndpointSlices.SERVICE_NAME_LABEL, service)
                .endMetadata()
                .withAddressType(addressType)
                .withEndpoints(endpoint)
                .build())
        .create();
  }

  private static Service tenantWithUid(Service tenant, String trafficPolicy) {
    Service copy = new ServiceBuilder(tenant).build();
    copy.getSpec().setExternalTrafficPolicy(trafficPolicy);
    return copy;
  }

  @Test
  void k72_anotherClustersServiceInTheSameNamespaceIsLeftAlone() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    cloud = cloud(true);
    // Another tenant cluster's selectorless Service for a tenant Service of the same name.
    Service other =
        client
            .services()
            .inNamespace(infraNamespace)
            .resource(
                new ServiceBuilder()
                    .withNewMetadata()
                    .withName("other-cluster-web")
                    .addToLabels(KubeVirtApi.TENANT_SERVICE_NAME_LABEL, "web")
                    .addToLabels(KubeVirtApi.TENANT_SERVICE_NAMESPACE_LABEL, tenantNamespace)
                    .addToLabels(KubeVirtApi.CLUSTER_NAME_LABEL, "another-cluster")
                    .endMetadata()
                    .withNewSpec()
                    .withType("LoadBalancer")
                    .addNewPort()
                    .withPort(80)
                    .withNewTargetPort(30080)
                    .endPort()
                    .endSpec()
                    .build())
            .create();
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints("worker-1");

    await().atMost(Duration.ofSeconds(30)).until(() -> managed(name).size() == 1);
    assertThat(managed(other.getMetadata().getName())).isEmpty();
  }

  /**
   * K95: the shipped infrastructure rights, {@code infra-rbac.yaml} and {@code
   * infra-rbac-endpointslices.yaml}, are all the controller needs there; started before the second
   * is granted, it waits and then works.
   */
  @Test
  void k95_theShippedInfrastructureRightsAreEnoughAndMayComeLater() throws Exception {
    List<HasMetadata> clusterScoped = new ArrayList<>();
    try {
      clusterScoped.addAll(applyShipped("infra-rbac.yaml"));
      String token =
          client
              .serviceAccounts()
              .inNamespace(infraNamespace)
              .withName("kubevirt-cloud-controller-manager")
              .tokenRequest(
                  new TokenRequestBuilder()
                      .withNewSpec()
                      .withExpirationSeconds(3600L)
                      .endSpec()
                      .build())
              .getStatus()
              .getToken();
      Path kubeconfig = temp.resolve("account-kubeconfig");
      Files.writeString(kubeconfig, plane.kubeconfig("kubevirt-ccm", token));
      virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
      virt.start(VirtualMachineSpec.worker("worker-2", cluster, "infra-b-" + id, "10.60.0.12"));
      cloud = cloud(true, kubeconfig);
      LoadBalancer balancer = cloud.loadBalancer().orElseThrow();
      Service tenant = tenantService("Local");
      String name = ensure(balancer, tenant);
      tenantEndpoints("worker-1");
      Thread.sleep(2_000);
      assertThat(managed(name)).isEmpty(); // it cannot list or watch yet

      clusterScoped.addAll(applyShipped("infra-rbac-endpointslices.yaml"));
      await() // create
          .atMost(Duration.ofSeconds(90))
          .untilAsserted(
              () ->
                  assertThat(addresses(name))
                      .containsExactly("10.60.0.11@infra-a-" + id + ":true"));
      tenantEndpoints("worker-2"); // update
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(addresses(name))
                      .containsExactly("10.60.0.12@infra-b-" + id + ":true"));
      balancer.updateLoadBalancer(cluster, tenantWithUid(tenant, "Cluster"), List.of()); // delete
      await().atMost(Duration.ofSeconds(30)).until(() -> managed(name).isEmpty());
    } finally {
      clusterScoped.forEach(o -> client.resource(o).delete());
    }
  }

  /** A file of deploy/ for this test's namespace; returns its cluster-scoped objects. */
  private List<HasMetadata> applyShipped(String file) throws Exception {
    List<HasMetadata> clusterScoped = new ArrayList<>();
    String manifest = Files.readString(Path.of("deploy", file)).replace("tenant-a", infraNamespace);
    try (InputStream in = new ByteArrayInputStream(manifest.getBytes(StandardCharsets.UTF_8))) {
      for (HasMetadata object : client.load(in).items()) {
        client.resource(object).create();
        if (object.getMetadata().getNamespace() == null) {
          clusterScoped.add(object);
        }
      }
    }
    return clusterScoped;
  }

  /** How many keys the controller's queue has processed. */
  private long synced() {
    Timer work = meters.find("workqueue.work.duration").tag("name", "kubevirt-eps").timer();
    return work == null ? 0 : work.count();
  }

  /** Runs {@code trigger} and waits until the controller has synced at least once more. */
  private void syncAfter(Runnable trigger) {
    long before = synced();
    trigger.run();
    await().atMost(Duration.ofSeconds(30)).until(() -> synced() > before);
  }

  /** The API server's count of the requests with {@code verb} on EndpointSlices. */
  private long endpointSliceRequests(String verb) {
    long total = 0;
    for (String line : client.raw("/metrics").split("\n")) {
      if (line.startsWith("apiserver_request_total{")
          && line.contains("resource=\"endpointslices\"")
          && line.contains("verb=\"" + verb + "\"")) {
        total += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  /**
   * K75: an unchanged slice is not written again. The API server stores a port without a name with
   * the name "", so a desired port without one differed from the stored slice at every pass (every
   * VMI change), and each pass sent an update.
   */
  @Test
  void k75_anUnchangedSliceOfAPortWithoutANameIsNotWrittenAgain() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    cloud = cloud(true);
    Service tenant = tenantService("Local");
    tenant.getSpec().getPorts().get(0).setName(null); // one port: a name is optional
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenant);
    tenantEndpoints("worker-1");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(addresses(name)).containsExactly("10.60.0.11@infra-a-" + id + ":true"));
    assertThat(managed(name).get(0).getPorts())
        .singleElement()
        .satisfies(port -> assertThat(port.getPort()).isEqualTo(30080));

    long updates = endpointSliceRequests("PUT");
    for (int i = 0; i < 3; i++) { // a VMI status write that changes nothing here: a pass each
      syncAfter(() -> virt.setVmiPhase("worker-1", KubeVirtApi.PHASE_RUNNING));
    }
    assertThat(endpointSliceRequests("PUT")).isEqualTo(updates);
  }

  /**
   * K72: when the infrastructure Service loses its selector (the tenant Service switched to
   * externalTrafficPolicy Local), the infrastructure cluster's kube-controller-manager leaves its
   * EndpointSlices and Endpoints of the old selector behind (it writes none for a Service without a
   * selector, and mirrors the stale Endpoints into slices), so every worker VM kept receiving the
   * traffic. They go; a slice of anyone else stays.
   */
  @Test
  void k72_theSelectorsEndpointsGoWhenTheServiceLosesIt() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    virt.start(VirtualMachineSpec.worker("worker-2", cluster, "infra-b-" + id, "10.60.0.12"));
    cloud = cloud(true);
    LoadBalancer balancer = cloud.loadBalancer().orElseThrow();
    Service tenant = tenantService("Cluster");
    String name = ensure(balancer, tenant);
    // What the infrastructure cluster's controllers wrote for the selector: every worker's pod.
    EndpointSlice selected = foreignSlice(name, "endpointslice-controller.k8s.io");
    EndpointSlice someoneElses = foreignSlice(name, "lb-agent.example.com");
    client
        .endpoints()
        .inNamespace(infraNamespace)
        .resource(
            new EndpointsBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("endpoints.kubernetes.io/managed-by", "endpoint-controller")
                .endMetadata()
                .addNewSubset()
                .addNewAddress()
                .withIp("10.60.0.11")
                .endAddress()
                .addNewAddress()
                .withIp("10.60.0.12")
                .endAddress()
                .addNewPort()
                .withName("http")
                .withPort(30080)
                .endPort()
                .endSubset()
                .build())
        .create();
    foreignSlice(name + "-mirrored", name, "endpointslicemirroring-controller.k8s.io");
    // While the Service has its selector, they are the infrastructure cluster's endpoints.
    syncAfter(() -> tenantEndpoints("worker-1"));
    assertThat(sliceNamed(selected)).isNotNull();
    assertThat(client.endpoints().inNamespace(infraNamespace).withName(name).get()).isNotNull();

    balancer.updateLoadBalancer(cluster, tenantWithUid(tenant, "Local"), List.of());
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(addresses(name)).containsExactly("10.60.0.11@infra-a-" + id + ":true");
              assertThat(sliceNamed(selected)).isNull();
              // The mirroring controller then removes the slices it mirrored from it.
              assertThat(client.endpoints().inNamespace(infraNamespace).withName(name).get())
                  .isNull();
            });
    assertThat(sliceNamed(someoneElses)).isNotNull();
  }

  private EndpointSlice foreignSlice(String service, String managedBy) {
    return foreignSlice(null, service, managedBy);
  }

  private EndpointSlice foreignSlice(String name, String service, String managedBy) {
    EndpointSliceBuilder slice =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withGenerateName(service)
            .withName(name)
            .addToLabels(KubeVirtEndpointSlices.SERVICE_NAME_LABEL, service)
            .addToLabels(KubeVirtEndpointSlices.MANAGED_BY_LABEL, managedBy)
            .endMetadata()
            .withAddressType("IPv4")
            .withEndpoints(
                new EndpointBuilder().withAddresses("10.60.0.11").build(),
                new EndpointBuilder().withAddresses("10.60.0.12").build())
            .addNewPort()
            .withName("http")
            .withPort(30080)
            .withProtocol("TCP")
            .endPort();
    return client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(infraNamespace)
        .resource(slice.build())
        .create();
  }

  private EndpointSlice sliceNamed(EndpointSlice slice) {
    return client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(infraNamespace)
        .withName(slice.getMetadata().getName())
        .get();
  }

  /**
   * K74 2: a tenant node named otherwise than its VMI (an FQDN, or bound by the instance-id label,
   * K26) is the VMI its providerID names; upstream reads the node name as the VMI name, and such a
   * node's endpoints were lost.
   */
  @Test
  void k74_aNodeNamedOtherwiseThanItsVmiIsTheVmiItsProviderIdNames() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    virt.start(VirtualMachineSpec.worker("worker-2", cluster, "infra-b-" + id, "10.60.0.12"));
    String fqdn = "worker-1-" + id + ".tenant.example.com";
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(fqdn)
                .endMetadata()
                .withNewSpec()
                .withProviderID(ProviderIds.of("worker-1"))
                .endSpec()
                .build())
        .create();
    try {
      cloud = cloud(true);
      String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
      tenantEndpoints(fqdn, "worker-2"); // worker-2: no such node, its name is its VMI's
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(addresses(name))
                      .containsExactly(
                          "10.60.0.11@infra-a-" + id + ":true",
                          "10.60.0.12@infra-b-" + id + ":true"));
    } finally {
      client.nodes().withName(fqdn).delete();
    }
  }

  /**
   * K74: a VMI address the API server refuses in an EndpointSlice (here link-local, reported first)
   * is passed over for the next of its family; it failed the whole slice, so no VMI of the Service
   * got traffic.
   */
  @Test
  void k74_anAddressNoEndpointMayHoldIsPassedOver() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    virt.start(VirtualMachineSpec.worker("worker-2", cluster, "infra-b-" + id, "10.60.0.12"));
    virt.setVmiAddresses("worker-1", List.of("169.254.0.5", "10.60.0.11"));
    cloud = cloud(true);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints("worker-1", "worker-2");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(addresses(name))
                    .containsExactly(
                        "10.60.0.11@infra-a-" + id + ":true",
                        "10.60.0.12@infra-b-" + id + ":true"));
  }

  /**
   * K75: past 100 endpoints a Service has several slices, and an endpoint stays in the slice it is
   * in. Refilling the slices in order instead moved endpoints between slices when one was inserted
   * in the order (or when a new slice's name sorted first), and between the two writes an endpoint
   * still wanted was in no slice.
   */
  @Test
  void k75_noWantedEndpointIsEverInNoSliceWhileSeveralSlicesChange() throws Exception {
    List<String> nodes = new ArrayList<>();
    for (int i = 0; i < 101; i++) {
      String node = "w%03d".formatted(2 * i);
      virt.start(
          VirtualMachineSpec.worker(node, cluster, "infra-a-" + id, "10.61.0." + (i + 1))
              .withoutVirtualMachine());
      nodes.add(node);
    }
    virt.start(
        VirtualMachineSpec.worker("w101", cluster, "infra-b-" + id, "10.61.1.1")
            .withoutVirtualMachine());
    cloud = cloud(true);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints(nodes.toArray(String[]::new));
    await().atMost(Duration.ofSeconds(30)).until(() -> addresses(name).size() == 101);

    Map<String, List<String>> seen = new ConcurrentHashMap<>();
    List<String> missing = new CopyOnWriteArrayList<>();
    Set<String> wanted = new HashSet<>(endpointAddresses(managed(name)));
    managed(name).forEach(s -> seen.put(s.getMetadata().getName(), endpointAddresses(List.of(s))));
    try (Watch watch =
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(infraNamespace)
            .withLabel(KubeVirtEndpointSlices.SERVICE_NAME_LABEL, name)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, EndpointSlice slice) {
                    if (action == Action.DELETED) {
                      seen.remove(slice.getMetadata().getName());
                    } else {
                      seen.put(slice.getMetadata().getName(), endpointAddresses(List.of(slice)));
                    }
                    Set<String> now = new HashSet<>();
                    seen.values().forEach(now::addAll);
                    wanted.stream().filter(a -> !now.contains(a)).forEach(missing::add);
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                })) {
      // A node between w098 and w100 in the order: in the first slice, were it refilled in order.
      List<String> more = new ArrayList<>(nodes);
      more.add("w101");
      tenantEndpoints(more.toArray(String[]::new));
      await().atMost(Duration.ofSeconds(30)).until(() -> addresses(name).size() == 102);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> seen.values().stream().mapToInt(List::size).sum() == 102);
    }
    assertThat(missing).as("wanted endpoints that were in no slice").isEmpty();
  }

  private static List<String> endpointAddresses(List<EndpointSlice> slices) {
    return slices.stream()
        .flatMap(s -> s.getEndpoints() == null ? Stream.of() : s.getEndpoints().stream())
        .map(e -> e.getAddresses().get(0))
        .toList();
  }

  /**
   * K76: the controller's labels are put on a slice, and a label someone else put there (a mutating
   * admission webhook, a policy engine) stays, as upstream merges them. Replacing every label took
   * it off at each pass, and a webhook that puts it back on every write made that a loop of writes.
   */
  @Test
  void k76_aLabelSomeoneElsePutOnASliceStays() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    cloud = cloud(true);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints("worker-1");
    await().atMost(Duration.ofSeconds(30)).until(() -> managed(name).size() == 1);

    syncAfter(
        () ->
            client
                .discovery()
                .v1()
                .endpointSlices()
                .inNamespace(infraNamespace)
                .withName(managed(name).get(0).getMetadata().getName())
                .edit(
                    slice ->
                        new EndpointSliceBuilder(slice)
                            .editMetadata()
                            .addToLabels("policy.example.com/team", "web")
                            .endMetadata()
                            .build()));
    syncAfter(() -> virt.setVmiPhase("worker-1", KubeVirtApi.PHASE_RUNNING));
    assertThat(managed(name).get(0).getMetadata().getLabels())
        .containsEntry("policy.example.com/team", "web")
        .containsEntry(KubeVirtApi.TENANT_SERVICE_NAME_LABEL, "web");
  }

  /**
   * A controller whose informers run and whose passes the test makes itself, so that a second pass
   * can run right after a write, while the informer is still behind, as a VMI or tenant event
   * arriving then would make it run.
   */
  private KubeVirtEndpointSlices drivenController() throws Exception {
    KubeVirtEndpointSlices controller =
        new KubeVirtEndpointSlices(client, client, infraNamespace, cluster, meters);
    controller.startInformers().get(30, TimeUnit.SECONDS);
    return controller;
  }

  /**
   * K75: a pass right after the controller created a slice, before its informer shows it, creates
   * no second one. It did, and the pass after deleted it again. Whether the informer is still
   * behind at the second pass is a matter of milliseconds, so the test creates five times.
   */
  @Test
  void k75_aPassRightAfterItsOwnCreateMakesNoSecondSlice() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    cloud = cloud(false); // the load balancer facet only: the test makes the passes
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints("worker-1");
    try (KubeVirtEndpointSlices controller = drivenController()) {
      for (int i = 0; i < 5; i++) {
        long creates = endpointSliceRequests("POST");
        controller.sync(name);
        controller.sync(name);
        assertThat(managed(name)).hasSize(1);
        assertThat(endpointSliceRequests("POST")).isEqualTo(creates + 1);

        client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(infraNamespace)
            .resource(managed(name).get(0))
            .delete();
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> controller.slicesOf(name, KubeVirtEndpointSlices.MANAGED_BY).isEmpty());
      }
    }
  }

  /**
   * K75: a slice the controller created that was deleted before its informer's watch delivered it
   * (a relist past both) is never shown, nor its deletion. Every pass of the Service waited for it
   * the whole 30 s of patience, so a change of the tenant's endpoints reached the infrastructure 30
   * s late. The API server is asked once the write is older than the informer's usual delay; a
   * slice it no longer has is not waited for, and no second slice is made.
   */
  @Test
  void k75_aCreatedSliceTheInformerNeverShowsDoesNotHoldTheServiceBack() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    virt.start(VirtualMachineSpec.worker("worker-2", cluster, "infra-b-" + id, "10.60.0.12"));
    cloud = cloud(false);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints("worker-1");
    WrittenEndpointSlices written =
        new WrittenEndpointSlices(KubeVirtEndpointSlices.WRITE_PATIENCE, System::nanoTime);
    try (KubeVirtEndpointSlices controller =
        new KubeVirtEndpointSlices(client, client, infraNamespace, cluster, meters, written)) {
      controller.startInformers().get(30, TimeUnit.SECONDS);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                controller.sync(name);
                return controller.slicesOf(name, KubeVirtEndpointSlices.MANAGED_BY).size() == 1;
              });

      // A create of the controller's that its informer never shows: the slice is made outside
      // the informer's selector (no managed-by label), remembered as the controller's write, and
      // deleted again.
      var slices = client.discovery().v1().endpointSlices().inNamespace(infraNamespace);
      EndpointSlice lost =
          slices
              .resource(
                  new EndpointSliceBuilder()
                      .withNewMetadata()
                      .withGenerateName(name)
                      .addToLabels(KubeVirtEndpointSlices.SERVICE_NAME_LABEL, name)
                      .endMetadata()
                      .withAddressType("IPv4")
                      .build())
              .create();
      written.written(name, lost);
      slices.resource(lost).delete();

      tenantEndpoints("worker-1", "worker-2");
      await()
          .atMost(Duration.ofSeconds(10)) // the wait was 30 s
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> {
                controller.sync(name);
                assertThat(addresses(name))
                    .containsExactly(
                        "10.60.0.11@infra-a-" + id + ":true", "10.60.0.12@infra-b-" + id + ":true");
              });
      assertThat(managed(name)).hasSize(1);
    }
  }

  /**
   * K75: a pass right after the controller updated a slice, before its informer shows the update,
   * sends nothing. It updated the slice again from its old version, which the API server refused
   * with a conflict, logged as a WARN. Five updates, as above.
   */
  @Test
  void k75_aPassRightAfterItsOwnUpdateSendsNoConflictingUpdate() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    virt.start(VirtualMachineSpec.worker("worker-2", cluster, "infra-b-" + id, "10.60.0.12"));
    cloud = cloud(false);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints("worker-1");
    try (KubeVirtEndpointSlices controller = drivenController()) {
      controller.sync(name);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> controller.slicesOf(name, KubeVirtEndpointSlices.MANAGED_BY).size() == 1);

      for (int i = 0; i < 5; i++) {
        String[] nodes =
            i % 2 == 0 ? new String[] {"worker-1", "worker-2"} : new String[] {"worker-1"};
        tenantEndpoints(nodes);
        long updates = endpointSliceRequests("PUT");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  controller.sync(name); // updates once its caches show the tenant endpoints
                  controller.sync(name);
                  return addresses(name).size() == nodes.length;
                });
        assertThat(endpointSliceRequests("PUT")).isEqualTo(updates + 1);
      }
    }
  }

  /**
   * K75: a slice the controller deleted that a finalizer keeps (deletion timestamp set) is no
   * longer the Service's, as upstream drops it. The delete counted as not shown while the slice was
   * there, so every pass of the Service waited 30 s, and then put the endpoints wanted into that
   * slice, which goes with them once the finalizer does.
   */
  @Test
  void k75_aSliceAFinalizerKeepsAfterItsDeleteHoldsNothingAndStallsNothing() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    cloud = cloud(false);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints("worker-1");
    try (KubeVirtEndpointSlices controller = drivenController()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                controller.sync(name);
                return managed(name).size() == 1;
              });
      String held = managed(name).get(0).getMetadata().getName();
      var slices = client.discovery().v1().endpointSlices().inNamespace(infraNamespace);
      slices.withName(held).edit(s -> withFinalizers(s, List.of("example.com/hold")));
      try {
        tenantEndpoints(); // no endpoint: the slice is emptied, so deleted, and kept
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  controller.sync(name);
                  return slices.withName(held).get().getMetadata().getDeletionTimestamp() != null;
                });

        tenantEndpoints("worker-1");
        await()
            .atMost(Duration.ofSeconds(10)) // the stall was 30 s
            .untilAsserted(
                () -> {
                  controller.sync(name);
                  assertThat(
                          managed(name).stream()
                              .filter(s -> s.getMetadata().getDeletionTimestamp() == null)
                              .flatMap(s -> s.getEndpoints().stream())
                              .map(e -> e.getAddresses().get(0)))
                      .containsExactly("10.60.0.11");
                });
      } finally {
        slices.withName(held).edit(s -> withFinalizers(s, List.of()));
      }
    }
  }

  private static EndpointSlice withFinalizers(EndpointSlice slice, List<String> finalizers) {
    return new EndpointSliceBuilder(slice)
        .editMetadata()
        .withFinalizers(finalizers)
        .endMetadata()
        .build();
  }

  /**
   * The API server's rules that {@link WrittenEndpointSlices} rests on: a write that changes a
   * slice's labels raises its generation, as one of its endpoints does; one that changes only its
   * annotations does not; one that changes nothing keeps its resource version.
   */
  @Test
  void k75_whatRaisesAnEndpointSlicesGenerationAndWhatKeepsItsVersion() {
    var slices = client.discovery().v1().endpointSlices().inNamespace(infraNamespace);
    EndpointSlice created =
        slices
            .resource(
                new EndpointSliceBuilder()
                    .withNewMetadata()
                    .withName("probe")
                    .addToLabels("a", "1")
                    .endMetadata()
                    .withAddressType("IPv4")
                    .addNewEndpoint()
                    .withAddresses("10.60.0.11")
                    .endEndpoint()
                    .build())
            .create();
    long generation = created.getMetadata().getGeneration();
    EndpointSlice labelled =
        slices
            .resource(
                new EndpointSliceBuilder(created)
                    .editMetadata()
                    .addToLabels("a", "2")
                    .endMetadata()
                    .build())
            .update();
    assertThat(labelled.getMetadata().getGeneration()).isEqualTo(generation + 1);
    EndpointSlice annotated =
        slices
            .resource(
                new EndpointSliceBuilder(labelled)
                    .editMetadata()
                    .addToAnnotations("b", "1")
                    .endMetadata()
                    .build())
            .update();
    assertThat(annotated.getMetadata().getGeneration()).isEqualTo(generation + 1);
    assertThat(annotated.getMetadata().getResourceVersion())
        .isNotEqualTo(labelled.getMetadata().getResourceVersion());
    EndpointSlice same = slices.resource(new EndpointSliceBuilder(annotated).build()).update();
    assertThat(same.getMetadata().getResourceVersion())
        .isEqualTo(annotated.getMetadata().getResourceVersion());
  }

  /**
   * K75: a write that meets a conflict (here a second controller's update of the slice, which this
   * one's cache does not show yet) ends the pass quietly, and the Service is looked at again once
   * the cache shows the newer version; it failed the pass with a WARN. Five updates, as above.
   */
  @Test
  void k75_aConflictEndsThePassQuietly() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    virt.start(VirtualMachineSpec.worker("worker-2", cluster, "infra-b-" + id, "10.60.0.12"));
    cloud = cloud(false);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints("worker-1");
    try (KubeVirtEndpointSlices first = drivenController();
        KubeVirtEndpointSlices second = drivenController()) {
      first.sync(name);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> second.slicesOf(name, KubeVirtEndpointSlices.MANAGED_BY).size() == 1);

      for (int i = 0; i < 5; i++) {
        String[] nodes =
            i % 2 == 0 ? new String[] {"worker-1", "worker-2"} : new String[] {"worker-1"};
        tenantEndpoints(nodes);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () -> {
                  first.sync(name);
                  second.sync(name); // right after the first's write: its cache is behind
                  return addresses(name).size() == nodes.length;
                });
      }
      assertThat(managed(name)).hasSize(1);
    }
  }

  /**
   * K4: the cloud config's {@code enableEPSController} alone turns the controller on, as upstream's
   * start function asks nothing else. With the load balancers off it did not run, and nothing said
   * why: the infrastructure Services another component makes with the K42 labels got no endpoints.
   */
  @Test
  void k4_theControllerRunsWithTheLoadBalancersOff() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    cloud = cloud(true, plane.kubeconfigPath(), "{enabled: false, enableEPSController: true}");
    assertThat(cloud.loadBalancer()).isEmpty();
    Service tenant = tenantService("Local");
    client
        .services()
        .resource(
            new InfraServices(
                    infraNamespace, cluster, Map.of(), false, true, TenantFieldAllowList.NONE)
                .desired(tenant))
        .create();
    tenantEndpoints("worker-1");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(addresses(LoadBalancer.defaultName(tenant)))
                    .containsExactly("10.60.0.11@infra-a-" + id + ":true"));
  }

  @Test
  void k4_offWhenControllersLeavesItOut() throws Exception {
    virt.start(VirtualMachineSpec.worker("worker-1", cluster, "infra-a-" + id, "10.60.0.11"));
    cloud = cloud(false);
    String name = ensure(cloud.loadBalancer().orElseThrow(), tenantService("Local"));
    tenantEndpoints("worker-1");

    Thread.sleep(3_000);
    assertThat(managed(name)).isEmpty();
  }
}
