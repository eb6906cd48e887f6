package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.ccm4j.simulator.virt.SimulatedVirt;
import io.ccm4j.simulator.virt.VirtualMachineSpec;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ccm4j as the CCM of a KubeVirt tenant cluster, against two real API servers: the tenant's (the
 * shared test control plane) and an infrastructure cluster of its own (KubeVirt CRDs, simulated
 * virt layer). The real manager runs the cloud-node, cloud-node-lifecycle and service controllers
 * with {@code --cloud-provider=kubevirt}.
 */
@WithControlPlane
class KubeVirtTenantClusterIT {

  private static LocalControlPlane infraPlane;
  private static KubernetesClient infra;

  private final LocalControlPlane tenantPlane;
  private final KubernetesClient tenant;
  private KubeVirtTestbed bed;
  private String infraA;
  private String infraB;

  @TempDir Path temp;

  KubeVirtTenantClusterIT(LocalControlPlane tenantPlane, KubernetesClient tenant) {
    this.tenantPlane = tenantPlane;
    this.tenant = tenant;
  }

  @BeforeAll
  static void startInfrastructureCluster() {
    infraPlane = KubeVirtTestbed.infrastructurePlane();
    infra = KubeVirtTestbed.infrastructureClient();
  }

  @BeforeEach
  void start() {
    bed = new KubeVirtTestbed(tenantPlane, tenant, infraPlane, infra, temp);
    infraA = "infra-a-" + bed.id;
    infraB = "infra-b-" + bed.id;
    SimulatedVirt.addNode(infra, infraA, "eu-west", "eu-west-a");
    SimulatedVirt.addNode(infra, infraB, "eu-west", "eu-west-b");
  }

  @AfterEach
  void stop() {
    bed.close();
    infra.nodes().withName(infraA).delete();
    infra.nodes().withName(infraB).delete();
  }

  private String node(int n) {
    return "vm-" + n + "-" + bed.id;
  }

  private Node tenantNode(String name) {
    return tenant.nodes().withName(name).get();
  }

  private static boolean hasTaint(Node node, String key) {
    return node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream().anyMatch(t -> key.equals(t.getKey()));
  }

  @Test
  void k25_k30_aTenantNodeIsInitialisedFromItsVmi() throws Exception {
    bed.startManager(bed.cloudConfig(bed.infraAdminKubeconfig(), ""), "cloud-node");
    bed.worker(node(1), infraB, "127.61.0.1");

    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> !hasTaint(tenantNode(node(1)), WellKnownTaints.UNINITIALIZED));
    Node initialised = tenantNode(node(1));
    assertThat(initialised.getSpec().getProviderID()).isEqualTo("kubevirt://" + node(1));
    assertThat(initialised.getMetadata().getLabels())
        .containsEntry(WellKnownLabels.ZONE, "eu-west-b")
        .containsEntry(WellKnownLabels.REGION, "eu-west");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(tenantNode(node(1)).getStatus().getAddresses())
                    .extracting(NodeAddress::getType, NodeAddress::getAddress)
                    .contains(tuple("InternalIP", "127.61.0.1")));
  }

  @Test
  void l6_l7_aStoppedVmIsTaintedShutdownAndADeletedOneLosesItsNode() throws Exception {
    bed.startManager(
        bed.cloudConfig(bed.infraAdminKubeconfig(), ""), "cloud-node,cloud-node-lifecycle");
    SimulatedKubelet kubelet = bed.worker(node(2), infraA, "127.61.0.2");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> !hasTaint(tenantNode(node(2)), WellKnownTaints.UNINITIALIZED));

    // virtctl stop: the guest's kubelet is gone, the tenant node goes NotReady.
    bed.virt.stop(node(2));
    kubelet.setReady(false, "the VM is stopped");
    kubelet.stopHeartbeats();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> hasTaint(tenantNode(node(2)), WellKnownTaints.SHUTDOWN));
    assertThat(tenantNode(node(2))).as("a stopped VM keeps its node").isNotNull();

    // Started again: Ready, and the shutdown taint goes (L4).
    bed.virt.start(VirtualMachineSpec.worker(node(2), bed.clusterName, infraA, "127.61.0.2"));
    kubelet.resumeHeartbeats();
    kubelet.setReady(true, "");
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> !hasTaint(tenantNode(node(2)), WellKnownTaints.SHUTDOWN));

    // Deleted: VM and VMI gone; once NotReady, the node is deleted (L6).
    bed.virt.delete(node(2));
    kubelet.setReady(false, "the VM is deleted");
    kubelet.stopHeartbeats();
    await().atMost(Duration.ofSeconds(60)).until(() -> tenantNode(node(2)) == null);
  }

  @Test
  void k23_k24_l6_aStandaloneVmiShutDownIsTaintedAndOnceDeletedLosesItsNode() throws Exception {
    bed.startManager(
        bed.cloudConfig(bed.infraAdminKubeconfig(), ""), "cloud-node,cloud-node-lifecycle");
    String name = node(5);
    bed.virt.start(
        VirtualMachineSpec.worker(name, bed.clusterName, infraA, "127.61.0.5")
            .withoutVirtualMachine());
    SimulatedKubelet kubelet = bed.kubelets.register(NodeSpec.named(name).withNodeIp("127.61.0.5"));
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> !hasTaint(tenantNode(name), WellKnownTaints.UNINITIALIZED));

    // Shut down: the VMI stays, Succeeded (K24): the node is tainted, not deleted.
    bed.virt.stop(name);
    kubelet.setReady(false, "the guest is shut down");
    kubelet.stopHeartbeats();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> hasTaint(tenantNode(name), WellKnownTaints.SHUTDOWN));

    // The VMI is deleted: no VMI, no VirtualMachine, so the node goes (K23, L6).
    bed.virt.deleteVmi(name);
    await().atMost(Duration.ofSeconds(60)).until(() -> tenantNode(name) == null);
  }

  /**
   * A tenant node as the cloud-node controller leaves it (providerID, no uninitialized taint),
   * NotReady, whose VM was then deleted: with a working infrastructure API it would be deleted.
   */
  private void nodeOfADeletedVm(String name, String ip) {
    SimulatedKubelet kubelet = bed.worker(name, infraA, ip);
    kubelet.setReady(false, "the VM is deleted");
    kubelet.stopHeartbeats();
    tenant
        .nodes()
        .withName(name)
        .edit(
            n -> {
              n.getSpec().setProviderID("kubevirt://" + name);
              n.getSpec().setTaints(List.of());
              return n;
            });
    bed.virt.delete(name);
  }

  @Test
  void l5_l6_rbacDeniedInTheInfrastructureClusterDeletesNothing() throws Exception {
    infra
        .serviceAccounts()
        .inNamespace(bed.namespace)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("ccm").endMetadata().build())
        .create();
    String token =
        infra
            .serviceAccounts()
            .inNamespace(bed.namespace)
            .withName("ccm")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    nodeOfADeletedVm(node(3), "127.61.0.3");
    bed.startManager(
        bed.cloudConfig(
            bed.infraPlane.kubeconfig("ccm", token), "instancesV2: {zoneAndRegionEnabled: false}"),
        "cloud-node-lifecycle");

    // The account may do nothing: every lifecycle pass gets 403, and nothing is deleted.
    await()
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(10))
        .until(() -> tenantNode(node(3)) != null);

    // The control: once the account may read VMIs and VirtualMachines as the shipped role lets it
    // (a pass lists the VMIs, a missing one's VirtualMachine is read by name), the node goes. So
    // the passes above ran, and only the errors kept the node.
    infra
        .rbac()
        .roles()
        .inNamespace(bed.namespace)
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("ccm")
                .endMetadata()
                .withRules(
                    new PolicyRuleBuilder()
                        .withApiGroups("kubevirt.io")
                        .withResources("virtualmachineinstances")
                        .withVerbs("get", "list")
                        .build(),
                    new PolicyRuleBuilder()
                        .withApiGroups("kubevirt.io")
                        .withResources("virtualmachines")
                        .withVerbs("get")
                        .build())
                .build())
        .create();
    infra
        .rbac()
        .roleBindings()
        .inNamespace(bed.namespace)
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("ccm")
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("Role")
                .withName("ccm")
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("ccm")
                .withNamespace(bed.namespace)
                .endSubject()
                .build())
        .create();
    await().atMost(Duration.ofSeconds(60)).until(() -> tenantNode(node(3)) == null);
  }

  @Test
  void l5_l6_anInfrastructureApiServerThatIsDownDeletesNothing() throws Exception {
    nodeOfADeletedVm(node(4), "127.61.0.4");
    CompletableFuture<Duration> outage =
        CompletableFuture.supplyAsync(
            () -> infraPlane.crashAndRestart("kube-apiserver", Duration.ofSeconds(20)));
    await().atMost(Duration.ofSeconds(15)).until(() -> !infraAnswers());
    bed.startManager(bed.cloudConfig(bed.infraAdminKubeconfig(), ""), "cloud-node-lifecycle");

    // Every lifecycle pass fails to reach the infrastructure cluster: nothing is deleted.
    await()
        .during(Duration.ofSeconds(6))
        .atMost(Duration.ofSeconds(10))
        .until(() -> tenantNode(node(4)) != null);
    assertThat(infraAnswers()).as("still down after the window").isFalse();

    // The control: back up, the node of the deleted VM goes.
    outage.get(60, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(60)).until(() -> tenantNode(node(4)) == null);
  }

  /** One attempt, without fabric8's retries (which would wait out the outage). */
  private static boolean infraAnswers() {
    try (KubernetesClient once =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(infraPlane.adminConfig())
                    .withRequestRetryBackoffLimit(0)
                    .withRequestTimeout(2000)
                    .build())
            .build()) {
      once.namespaces().withName("default").get();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Test
  void k40_k52_aLoadBalancerServiceIsMirroredInTheInfrastructureNamespace() throws Exception {
    bed.startManager(bed.cloudConfig(bed.infraAdminKubeconfig(), ""), "service");
    String shop = bed.tenantNamespace();
    Service created = bed.createLoadBalancer(shop, "http", 80, null);
    String infraName = LoadBalancer.defaultName(created);
    int nodePort = created.getSpec().getPorts().get(0).getNodePort();

    // K41, K42, K45, K46: the infrastructure Service.
    await().atMost(Duration.ofSeconds(60)).until(() -> infraService(infraName) != null);
    Service mirrored = infraService(infraName);
    assertThat(mirrored.getMetadata().getLabels())
        .containsEntry("cluster.x-k8s.io/tenant-service-name", "web")
        .containsEntry("cluster.x-k8s.io/tenant-service-namespace", shop)
        .containsEntry("cluster.x-k8s.io/cluster-name", bed.clusterName);
    assertThat(mirrored.getSpec().getSelector())
        .containsEntry("cluster.x-k8s.io/role", "worker")
        .containsEntry("cluster.x-k8s.io/cluster-name", bed.clusterName);
    assertThat(mirrored.getSpec().getPorts().get(0).getTargetPort().getIntVal())
        .isEqualTo(nodePort);

    // The infrastructure cluster's load balancer assigns an ingress; it is copied back (K49).
    bed.assignIngressAndAwaitCopy(mirrored, shop, "192.0.2.50");

    // A port added: the infrastructure Service follows (K47, K50).
    tenant
        .services()
        .inNamespace(shop)
        .withName("web")
        .edit(
            s -> {
              s.getSpec()
                  .getPorts()
                  .add(
                      new ServicePortBuilder()
                          .withName("https")
                          .withProtocol("TCP")
                          .withPort(443)
                          .build());
              return s;
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(infraService(infraName).getSpec().getPorts())
                    .extracting(p -> p.getPort())
                    .containsExactly(80, 443));

    // Deleted: the infrastructure Service goes, and the finalizer lets the tenant Service go.
    tenant.services().inNamespace(shop).withName("web").delete();
    await().atMost(Duration.ofSeconds(60)).until(() -> infraService(infraName) == null);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> tenant.services().inNamespace(shop).withName("web").get() == null);
    tenant.namespaces().withName(shop).delete();
  }

  @Test
  void k43_k44_aTenantsAddressesAndAnnotationsStayOutOfTheInfrastructureCluster() throws Exception {
    Path kubeconfig =
        Files.writeString(temp.resolve("infra.kubeconfig"), bed.infraAdminKubeconfig());
    Path cloudConfig =
        Files.writeString(
            temp.resolve("kubevirt.yaml"),
            """
            kubeconfig: %s
            namespace: %s
            loadBalancer:
              creationPollInterval: 1
              allowedAnnotations: ["metallb.universe.tf/*"]
            """
                .formatted(kubeconfig, bed.namespace));
    bed.startManager(cloudConfig, "service");
    String shop = bed.tenantNamespace();
    Service created =
        tenant
            .services()
            .inNamespace(shop)
            .resource(
                new ServiceBuilder()
                    .withNewMetadata()
                    .withName("web")
                    .withAnnotations(
                        Map.of(
                            "metallb.universe.tf/address-pool", "tenants",
                            "example.com/infra-knob", "on"))
                    .endMetadata()
                    .withNewSpec()
                    .withType("LoadBalancer")
                    .withExternalIPs("192.0.2.200")
                    .withLoadBalancerIP("192.0.2.201")
                    .addNewPort()
                    .withProtocol("TCP")
                    .withPort(80)
                    .endPort()
                    .endSpec()
                    .build())
            .create();
    String infraName = LoadBalancer.defaultName(created);
    await().atMost(Duration.ofSeconds(60)).until(() -> infraService(infraName) != null);
    Service mirrored = infraService(infraName);
    assertThat(mirrored.getSpec().getExternalIPs()).isEmpty();
    assertThat(mirrored.getSpec().getLoadBalancerIP()).isNull();
    assertThat(mirrored.getMetadata().getAnnotations())
        .isEqualTo(Map.of("metallb.universe.tf/address-pool", "tenants"));

    // Once ensured, the tenant Service says what was left out, field by field.
    bed.assignIngressAndAwaitCopy(mirrored, shop, "192.0.2.51");
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(
                        tenant.v1().events().inNamespace(shop).list().getItems().stream()
                            .filter(e -> "web".equals(e.getInvolvedObject().getName()))
                            .filter(e -> "LoadBalancerFieldIgnored".equals(e.getReason()))
                            .toList())
                    .allSatisfy(e -> assertThat(e.getType()).isEqualTo("Warning"))
                    .extracting(Event::getMessage)
                    .anySatisfy(m -> assertThat(m).startsWith("spec.externalIPs: "))
                    .anySatisfy(m -> assertThat(m).startsWith("spec.loadBalancerIP: "))
                    .anySatisfy(
                        m ->
                            assertThat(m)
                                .startsWith("metadata.annotations: example.com/infra-knob")));
    tenant.services().inNamespace(shop).withName("web").delete();
    await().atMost(Duration.ofSeconds(60)).until(() -> infraService(infraName) == null);
    tenant.namespaces().withName(shop).delete();
  }

  /**
   * K4, K46, K74: with {@code enableEPSController} and {@code --controllers} naming it, the manager
   * gives the provider's EndpointSlice controller the tenant cluster: a Service with {@code
   * externalTrafficPolicy: Local} gets a selectorless infrastructure Service whose endpoints are
   * the VMIs of the tenant nodes that run its pods.
   */
  @Test
  void k4_k74_theManagerRunsTheEndpointSliceControllerForALocalTrafficService() throws Exception {
    CloudControllerManager manager =
        bed.startManager(
            bed.cloudConfig(bed.infraAdminKubeconfig(), "  enableEPSController: true"),
            "service,kubevirt_eps_controller");
    bed.virt.start(VirtualMachineSpec.worker(node(1), bed.clusterName, infraA, "10.61.0.1"));
    bed.virt.start(VirtualMachineSpec.worker(node(2), bed.clusterName, infraB, "10.61.0.2"));
    String shop = bed.tenantNamespace();
    Service created = bed.createLoadBalancer(shop, "http", 80, "Local");
    String infraName = LoadBalancer.defaultName(created);
    await().atMost(Duration.ofSeconds(60)).until(() -> infraService(infraName) != null);
    assertThat(infraService(infraName).getSpec().getSelector()).isNullOrEmpty();

    // The tenant's pods run on node 2 only (the tenant's own EndpointSlice controller would write
    // this slice; the test cluster runs none).
    tenant
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(shop)
        .resource(
            new EndpointSliceBuilder()
                .withNewMetadata()
                .withName("web-x1")
                .addToLabels("kubernetes.io/service-name", "web")
                .endMetadata()
                .withAddressType("IPv4")
                .addNewEndpoint()
                .withAddresses("10.244.2.7")
                .withNodeName(node(2))
                .endEndpoint()
                .build())
        .create();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(infraSlices(infraName))
                    .flatExtracting(EndpointSlice::getEndpoints)
                    .extracting(e -> e.getAddresses().get(0), e -> e.getNodeName())
                    .containsExactly(tuple("10.61.0.2", infraB)));
    // Its work queue's metrics are among the manager's, on /metrics.
    assertThat(
            manager.metrics().get("workqueue.adds").tag("name", "kubevirt-eps").counter().count())
        .isPositive();

    // The tenant Service goes: its infrastructure Service, then the slices (K72).
    tenant.services().inNamespace(shop).withName("web").delete();
    await().atMost(Duration.ofSeconds(60)).until(() -> infraSlices(infraName).isEmpty());
    tenant.namespaces().withName(shop).delete();
  }

  private List<EndpointSlice> infraSlices(String infraService) {
    return infra
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(bed.namespace)
        .withLabel("kubernetes.io/service-name", infraService)
        .list()
        .getItems();
  }

  private Service infraService(String name) {
    return infra.services().inNamespace(bed.namespace).withName(name).get();
  }
}
