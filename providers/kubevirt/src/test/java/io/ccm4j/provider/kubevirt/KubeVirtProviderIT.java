package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.simulator.virt.SimulatedVirt;
import io.ccm4j.simulator.virt.VirtualMachineSpec;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The provider's facets against a real infrastructure API server with the KubeVirt CRDs and the
 * simulated virt layer; the facets are called directly, as the controllers call them (the manager
 * running them against a tenant cluster is {@code KubeVirtTenantClusterIT} in the lab module).
 */
@WithControlPlane
class KubeVirtProviderIT {

  private final LocalControlPlane infraPlane;
  private final KubernetesClient infra;
  private final String id = UUID.randomUUID().toString().substring(0, 6);
  private final String namespace = "kv-" + id;
  private SimulatedVirt virt;
  private KubeVirtCloud cloud;

  @TempDir Path temp;

  KubeVirtProviderIT(LocalControlPlane infraPlane, KubernetesClient infra) {
    this.infraPlane = infraPlane;
    this.infra = infra;
  }

  @BeforeEach
  void start() throws Exception {
    infra
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    virt = new SimulatedVirt(infra, namespace);
    SimulatedVirt.addNode(infra, "infra-a-" + id, "eu-west", "eu-west-a");
    SimulatedVirt.addNode(infra, "infra-b-" + id, "eu-west", "eu-west-b");
    cloud = cloud(infraPlane.kubeconfigPath(), "");
  }

  @AfterEach
  void stop() {
    cloud.close();
    infra.namespaces().withName(namespace).delete();
    infra.nodes().withName("infra-a-" + id).delete();
    infra.nodes().withName("infra-b-" + id).delete();
  }

  private KubeVirtCloud cloud(Path kubeconfig, String extra) throws Exception {
    Path config = temp.resolve("cloud-" + UUID.randomUUID() + ".yaml");
    Files.writeString(
        config,
        "kubeconfig: %s\nnamespace: %s\nloadBalancer: {creationPollInterval: 1, creationPollTimeout: 30}\n%s"
            .formatted(kubeconfig, namespace, extra));
    KubeVirtCloud created =
        (KubeVirtCloud) new KubeVirtCloudProviderFactory().create(Optional.of(config));
    created.initialize(new ProviderContext("tenant-" + id));
    return created;
  }

  private InstancesV2 instances() {
    return cloud.instancesV2().orElseThrow();
  }

  private static Node tenantNode(String name, String providerId, Map<String, String> labels) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withProviderID(providerId)
        .endSpec()
        .build();
  }

  @Test
  void k25_k27_k29_k30_metadataComesFromTheVmiAndItsInfrastructureNode() throws CloudException {
    virt.start(
        VirtualMachineSpec.worker("worker-1", "tenant-" + id, "infra-b-" + id, "127.60.0.11")
            .withInstanceType("u1.medium"));

    InstanceMetadata metadata =
        instances().instanceMetadata(tenantNode("worker-1", null, Map.of())).orElseThrow();
    assertThat(metadata.providerId()).isEqualTo("kubevirt://worker-1");
    assertThat(metadata.addresses()).containsExactly(NodeAddress.internalIp("127.60.0.11"));
    assertThat(metadata.instanceType()).isEqualTo("u1.medium");
    assertThat(metadata.zone()).isEqualTo("eu-west-b");
    assertThat(metadata.region()).isEqualTo("eu-west");
    assertThat(metadata.additionalLabels()).isEmpty();
  }

  @Test
  void k29_theInstanceTypeIsReadForBothKinds() throws CloudException {
    // The default kind: KubeVirt writes kubevirt.io/cluster-instancetype-name (upstream reads
    // only the namespaced annotation, K29 Quirk).
    virt.start(
        VirtualMachineSpec.worker("worker-10", "tenant-" + id, "infra-a-" + id, "127.60.0.20")
            .withInstanceType("u1.large"));
    virt.start(
        VirtualMachineSpec.worker("worker-11", "tenant-" + id, "infra-a-" + id, "127.60.0.21")
            .withNamespacedInstanceType("tenant-small"));
    assertThat(
            infra
                .genericKubernetesResources(KubeVirtApi.VIRTUAL_MACHINE_INSTANCES)
                .inNamespace(namespace)
                .withName("worker-10")
                .get()
                .getMetadata()
                .getAnnotations())
        .containsEntry(KubeVirtApi.CLUSTER_INSTANCETYPE_ANNOTATION, "u1.large")
        .doesNotContainKey(KubeVirtApi.INSTANCETYPE_ANNOTATION);
    assertThat(
            instances()
                .instanceMetadata(tenantNode("worker-10", null, Map.of()))
                .orElseThrow()
                .instanceType())
        .isEqualTo("u1.large");
    assertThat(
            instances()
                .instanceMetadata(tenantNode("worker-11", null, Map.of()))
                .orElseThrow()
                .instanceType())
        .isEqualTo("tenant-small");
  }

  @Test
  void k26_theProviderIdTheInstanceIdLabelAndTheHostnameFindTheVmi() throws CloudException {
    // KubeVirt refuses a hostname with a dot: the guest's FQDN is hostname + subdomain.
    virt.start(
        VirtualMachineSpec.worker("vm-2", "tenant-" + id, "infra-a-" + id, "127.60.0.12")
            .withHostname("worker-2"));
    virt.start(
        VirtualMachineSpec.worker("worker-9", "tenant-" + id, "infra-a-" + id, "127.60.0.19"));

    // A providerID names the VMI, whatever the node is called; a missing one is InstanceNotFound.
    assertThat(
            instances()
                .instanceMetadata(tenantNode("worker-2.example.com", "kubevirt://vm-2", Map.of()))
                .orElseThrow()
                .providerId())
        .isEqualTo("kubevirt://vm-2");
    assertThatThrownBy(
            () ->
                instances()
                    .instanceMetadata(tenantNode("worker-9", "kubevirt://gone-" + id, Map.of())))
        .isInstanceOf(InstanceNotFoundException.class);

    // (a) the label names the VMI; a missing one is InstanceNotFound.
    assertThat(
            instances()
                .instanceMetadata(
                    tenantNode(
                        "whatever", null, Map.of(KubeVirtInstances.INSTANCE_ID_LABEL, "vm-2")))
                .orElseThrow()
                .providerId())
        .isEqualTo("kubevirt://vm-2");
    assertThatThrownBy(
            () ->
                instances()
                    .instanceMetadata(
                        tenantNode(
                            "vm-2", null, Map.of(KubeVirtInstances.INSTANCE_ID_LABEL, "gone"))))
        .isInstanceOf(InstanceNotFoundException.class);

    // (b) An FQDN node name (K115): its first label is the VMI's name, or its spec.hostname.
    // Upstream's field selector is not supported by the CRD, as this API server confirms.
    assertThatThrownBy(
            () ->
                infra
                    .genericKubernetesResources(KubeVirtApi.VIRTUAL_MACHINE_INSTANCES)
                    .inNamespace(namespace)
                    .withField("spec.hostname", "worker-2")
                    .list())
        .isInstanceOf(KubernetesClientException.class);
    assertThat(
            instances()
                .instanceMetadata(tenantNode("worker-9.tenant.example.com", null, Map.of()))
                .orElseThrow()
                .providerId())
        .isEqualTo("kubevirt://worker-9");
    assertThat(
            instances()
                .instanceMetadata(tenantNode("worker-2.tenant.example.com", null, Map.of()))
                .orElseThrow()
                .providerId())
        .isEqualTo("kubevirt://vm-2");
    assertThat(
            instances()
                .instanceMetadata(tenantNode("worker-2", null, Map.of()))
                .orElseThrow()
                .providerId())
        .isEqualTo("kubevirt://vm-2");
    assertThatThrownBy(() -> instances().instanceMetadata(tenantNode("nobody", null, Map.of())))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("no VMI");

    // In a namespace two clusters share, an FQDN's first label may name one VMI and be another's
    // hostname: neither is taken, the node is not bound to a stranger's VMI.
    virt.start(
        VirtualMachineSpec.worker("w-multi", "tenant-" + id, "infra-a-" + id, "127.60.0.15"));
    virt.start(
        VirtualMachineSpec.worker("b-w-multi", "tenant-" + id, "infra-a-" + id, "127.60.0.16")
            .withHostname("w-multi"));
    assertThatThrownBy(
            () -> instances().instanceMetadata(tenantNode("w-multi.b.example.com", null, Map.of())))
        .isInstanceOf(CloudException.class)
        .isNotInstanceOf(InstanceNotFoundException.class)
        .hasMessageContaining(
            "the first label of its name, w-multi, names VMI %s/w-multi and is the hostname of"
                    .formatted(namespace)
                + " b-w-multi too");
    // The node's own name, or its providerID, still says which.
    assertThat(
            instances()
                .instanceMetadata(tenantNode("w-multi", null, Map.of()))
                .orElseThrow()
                .providerId())
        .isEqualTo("kubevirt://w-multi");
  }

  @Test
  void k27_k28_addressesFollowTheVmiAndFallBackToTheNodes() throws CloudException {
    virt.start(
        VirtualMachineSpec.worker("worker-3", "tenant-" + id, "infra-a-" + id, "127.60.0.13"));
    virt.setVmiAddresses("worker-3", List.of("127.60.0.13", "fd00::13"));
    Node node = tenantNode("worker-3", "kubevirt://worker-3", Map.of());
    assertThat(instances().instanceMetadata(node).orElseThrow().addresses())
        .containsExactly(NodeAddress.internalIp("127.60.0.13"), NodeAddress.internalIp("fd00::13"));

    // The guest agent is silent: the node keeps its InternalIPs (K28), but not a link-local one
    // it carries from before (K113 holds for the fallback too).
    virt.setVmiAddresses("worker-3", List.of());
    node.setStatus(
        new NodeStatusBuilder()
            .addNewAddress()
            .withType("InternalIP")
            .withAddress("127.60.0.13")
            .endAddress()
            .addNewAddress()
            .withType("InternalIP")
            .withAddress("fe80::a8bb:ccff:fe91:9e27")
            .endAddress()
            .addNewAddress()
            .withType("Hostname")
            .withAddress("worker-3")
            .endAddress()
            .build());
    assertThat(instances().instanceMetadata(node).orElseThrow().addresses())
        .containsExactly(NodeAddress.internalIp("127.60.0.13"));
  }

  /**
   * K113: the guest agent's link-local addresses, and an EUI-64 (SLAAC) IPv6 address beside an
   * assigned one, are not the node's InternalIPs (Calico flapped between them, users said); an
   * EUI-64 address that is the family's only one stays, and a VMI with nothing else falls back to
   * the node's InternalIPs (K28).
   */
  @Test
  void k113_linkLocalAndASecondEui64AddressAreNotTheNodesInternalIps() throws CloudException {
    virt.start(
        VirtualMachineSpec.worker("worker-4", "tenant-" + id, "infra-a-" + id, "127.60.0.14"));
    virt.setVmiAddresses(
        "worker-4",
        List.of(
            "fe80::a8bb:ccff:fe91:9e27",
            "127.60.0.14",
            "169.254.10.4",
            "2001:db8:482:0:a8bb:ccff:fe91:9e27",
            "2001:db8:482::c"));
    Node node = tenantNode("worker-4", "kubevirt://worker-4", Map.of());
    assertThat(instances().instanceMetadata(node).orElseThrow().addresses())
        .containsExactly(
            NodeAddress.internalIp("127.60.0.14"), NodeAddress.internalIp("2001:db8:482::c"));

    virt.setVmiAddresses(
        "worker-4",
        List.of("fe80::a8bb:ccff:fe91:9e27", "127.60.0.14", "2001:db8:482:0:a8bb:ccff:fe91:9e27"));
    assertThat(instances().instanceMetadata(node).orElseThrow().addresses())
        .containsExactly(
            NodeAddress.internalIp("127.60.0.14"),
            NodeAddress.internalIp("2001:db8:482:0:a8bb:ccff:fe91:9e27"));

    virt.setVmiAddresses("worker-4", List.of("fe80::a8bb:ccff:fe91:9e27"));
    node.setStatus(
        new NodeStatusBuilder()
            .addNewAddress()
            .withType("InternalIP")
            .withAddress("127.60.0.14")
            .endAddress()
            .build());
    assertThat(instances().instanceMetadata(node).orElseThrow().addresses())
        .containsExactly(NodeAddress.internalIp("127.60.0.14"));
  }

  @Test
  void k23_k24_existsAndShutdownFollowTheVmiAndTheVirtualMachine() throws CloudException {
    virt.start(
        VirtualMachineSpec.worker("worker-4", "tenant-" + id, "infra-a-" + id, "127.60.0.14"));
    Node node = tenantNode("worker-4", "kubevirt://worker-4", Map.of());
    assertThat(instances().instanceExists(node)).isTrue();
    assertThat(instances().instanceShutdown(node)).isFalse();

    // K24: Unknown (a phase KubeVirt defines, though it marks a lost host's VMIs Failed) is an
    // error, so the lifecycle controller never taints on it.
    virt.setVmiPhase("worker-4", "Unknown");
    assertThatThrownBy(() -> instances().instanceShutdown(node))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("Unknown");
    virt.setVmiPhase("worker-4", "Failed");
    assertThat(instances().instanceExists(node)).isTrue();
    assertThat(instances().instanceShutdown(node)).isTrue();
    virt.setVmiPhase("worker-4", "Running");

    // Stopped: the VM stays without a VMI; the node exists and is shut down (ccm4j, not K23).
    virt.stop("worker-4");
    assertThat(instances().instanceExists(node)).isTrue();
    assertThat(instances().instanceShutdown(node)).isTrue();

    // Started again: running.
    virt.start(
        VirtualMachineSpec.worker("worker-4", "tenant-" + id, "infra-a-" + id, "127.60.0.14"));
    assertThat(instances().instanceShutdown(node)).isFalse();

    // Deleted: gone.
    virt.delete("worker-4");
    assertThat(instances().instanceExists(node)).isFalse();
    assertThat(instances().instanceShutdown(node)).isTrue();
  }

  @Test
  void k23_k24_aVmiBeingDeletedExistsAsUpstreamAndAVmBeingDeletedIsNotStopped()
      throws CloudException {
    virt.start(
        VirtualMachineSpec.worker("worker-12", "tenant-" + id, "infra-a-" + id, "127.60.0.22"));
    Node node = tenantNode("worker-12", "kubevirt://worker-12", Map.of());

    // The guest shuts down: the VMI is there with a deletionTimestamp, still Running (K23, K24).
    virt.beginDeletion("worker-12");
    assertThat(instances().instanceExists(node)).isTrue();
    assertThat(instances().instanceShutdown(node)).isFalse();

    // The VMI is gone, the VirtualMachine still held by KubeVirt's finalizer: being deleted is
    // not stopped, so the node is gone.
    virt.finishVmiDeletion("worker-12");
    assertThat(instances().instanceExists(node)).isFalse();
    assertThat(instances().instanceShutdown(node)).isTrue();
    virt.finishDeletion("worker-12");
  }

  @Test
  void k23_k24_aLostHostsVmiIsFailedSoItsNodeExistsAndIsShutDown() throws CloudException {
    virt.start(
        VirtualMachineSpec.worker("worker-13", "tenant-" + id, "infra-b-" + id, "127.60.0.23"));
    Node node = tenantNode("worker-13", "kubevirt://worker-13", Map.of());

    // KubeVirt marks the VMIs of an unresponsive host Failed (not Unknown): no error, a taint.
    virt.loseHost("infra-b-" + id);
    assertThat(instances().instanceExists(node)).isTrue();
    assertThat(instances().instanceShutdown(node)).isTrue();
  }

  @Test
  void k21_k23_aBadProviderIdIsAnErrorNotGone() {
    assertThatThrownBy(() -> instances().instanceExists(tenantNode("x", "", Map.of())))
        .isInstanceOf(CloudException.class);
    assertThatThrownBy(() -> instances().instanceExists(tenantNode("x", "aws:///x", Map.of())))
        .isInstanceOf(CloudException.class);
  }

  @Test
  void k23_l6_rbacDeniedIsAnErrorNeverGone() throws Exception {
    virt.start(
        VirtualMachineSpec.worker("worker-5", "tenant-" + id, "infra-a-" + id, "127.60.0.15"));
    infra
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("no-rights")
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .create();
    String token =
        infra
            .serviceAccounts()
            .inNamespace(namespace)
            .withName("no-rights")
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Path kubeconfig = temp.resolve("no-rights-kubeconfig");
    Files.writeString(kubeconfig, infraPlane.kubeconfig("no-rights", token));
    try (KubeVirtCloud denied = cloud(kubeconfig, "")) {
      Node node = tenantNode("worker-5", "kubevirt://worker-5", Map.of());
      InstancesV2 instances = denied.instancesV2().orElseThrow();
      assertThatThrownBy(() -> instances.instanceExists(node))
          .isInstanceOf(CloudException.class)
          .hasMessageContaining("403");
      assertThatThrownBy(() -> instances.instanceShutdown(node)).isInstanceOf(CloudException.class);
      assertThatThrownBy(() -> instances.instanceMetadata(node)).isInstanceOf(CloudException.class);
    }
  }

  @Test
  void k23_k24_k25_bulkCallsAnswerAWholePassFromOneListOfVmis() throws Exception {
    virt.start(
        VirtualMachineSpec.worker("worker-b1", "tenant-" + id, "infra-a-" + id, "127.60.0.21"));
    virt.start(
        VirtualMachineSpec.worker("worker-b2", "tenant-" + id, "infra-b-" + id, "127.60.0.22"));
    virt.stop("worker-b2");
    // An identity that may list VMIs but not get one: only a list can answer for them.
    String token = serviceAccountToken("list-only");
    infra
        .rbac()
        .roles()
        .inNamespace(namespace)
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.RoleBuilder()
                .withNewMetadata()
                .withName("list-only")
                .withNamespace(namespace)
                .endMetadata()
                .addNewRule()
                .withApiGroups("kubevirt.io")
                .withResources("virtualmachineinstances")
                .withVerbs("list")
                .endRule()
                .addNewRule()
                .withApiGroups("kubevirt.io")
                .withResources("virtualmachines")
                .withVerbs("get") // as the shipped role: a stopped VM is read by name
                .endRule()
                .build())
        .create();
    infra
        .rbac()
        .roleBindings()
        .inNamespace(namespace)
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder()
                .withNewMetadata()
                .withName("list-only")
                .withNamespace(namespace)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", "list-only")
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName("list-only")
                .withNamespace(namespace)
                .endSubject()
                .build())
        .create();
    Path kubeconfig = temp.resolve("list-only-kubeconfig");
    Files.writeString(kubeconfig, infraPlane.kubeconfig("list-only", token));
    Node running = tenantNode("worker-b1", "kubevirt://worker-b1", Map.of());
    Node stopped = tenantNode("worker-b2", "kubevirt://worker-b2", Map.of());
    Node gone = tenantNode("worker-b3", "kubevirt://worker-b3", Map.of());
    Node byName = tenantNode("worker-b1", null, Map.of());
    try (KubeVirtCloud listOnly =
        cloud(kubeconfig, "instancesV2: {zoneAndRegionEnabled: false}\n")) {
      InstancesV2 instances = listOnly.instancesV2().orElseThrow();
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .until(() -> instances.instancesExist(List.of(running)).value("worker-b1").isPresent());
      assertThatThrownBy(() -> instances.instanceExists(running))
          .as("a GET is forbidden")
          .hasMessageContaining("403");

      BulkAnswers<Boolean> exist = instances.instancesExist(List.of(running, stopped, gone));
      BulkAnswers<Boolean> shutdown = instances.instancesShutdown(List.of(running, stopped));
      BulkAnswers<Optional<InstanceMetadata>> metadata =
          instances.instancesMetadata(List.of(byName, gone));

      assertThat(instances.maxNodesPerCall()).isEqualTo(Integer.MAX_VALUE);
      assertThat(exist.values())
          .isEqualTo(Map.of("worker-b1", true, "worker-b2", true, "worker-b3", false));
      assertThat(shutdown.values()).isEqualTo(Map.of("worker-b1", false, "worker-b2", true));
      assertThat(metadata.value("worker-b1").orElseThrow().orElseThrow().providerId())
          .isEqualTo("kubevirt://worker-b1");
      assertThat(metadata.failure("worker-b3").orElseThrow())
          .isInstanceOf(InstanceNotFoundException.class);
    }
  }

  @Test
  void k23_l6_aBulkCallWhoseListIsDeniedFailsEveryNodeNeverGone() throws Exception {
    String token = serviceAccountToken("no-list");
    Path kubeconfig = temp.resolve("no-list-kubeconfig");
    Files.writeString(kubeconfig, infraPlane.kubeconfig("no-list", token));
    try (KubeVirtCloud denied = cloud(kubeconfig, "")) {
      InstancesV2 instances = denied.instancesV2().orElseThrow();
      assertThatThrownBy(
              () ->
                  instances.instancesExist(
                      List.of(tenantNode("worker-b9", "kubevirt://worker-b9", Map.of()))))
          .isInstanceOf(CloudException.class)
          .hasMessageContaining("listing VMIs in " + namespace)
          .hasMessageContaining("403");
    }
  }

  private String serviceAccountToken(String name) {
    infra
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .create();
    return infra
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(name)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }

  @Test
  void k30_zoneAndRegionOffReadsNoInfrastructureNode() throws Exception {
    virt.start(
        VirtualMachineSpec.worker("worker-6", "tenant-" + id, "infra-a-" + id, "127.60.0.16"));
    try (KubeVirtCloud noZones =
        cloud(infraPlane.kubeconfigPath(), "instancesV2: {zoneAndRegionEnabled: false}\n")) {
      InstanceMetadata metadata =
          noZones
              .instancesV2()
              .orElseThrow()
              .instanceMetadata(tenantNode("worker-6", null, Map.of()))
              .orElseThrow();
      assertThat(metadata.zone()).isEmpty();
      assertThat(metadata.region()).isEmpty();
    }
  }

  @Test
  void k30_anInfrastructureNodeThatCannotBeReadFailsTheWholeMetadata() {
    virt.start(
        VirtualMachineSpec.worker("worker-7", "tenant-" + id, "no-such-node-" + id, "127.60.0.17"));
    assertThatThrownBy(() -> instances().instanceMetadata(tenantNode("worker-7", null, Map.of())))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("no-such-node-" + id)
        .hasMessageContaining("does not exist");
  }

  private Service tenantService(String uid) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName("web")
        .withNamespace("shop")
        .withUid(uid)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNodePort(30080)
        .endPort()
        .endSpec()
        .build();
  }

  @Test
  void k47_k48_k49_k50_k51_k52_theInfrastructureServiceFollowsTheTenantService() throws Exception {
    LoadBalancer balancer = cloud.loadBalancer().orElseThrow();
    Service tenant = tenantService(UUID.randomUUID().toString());
    String name = LoadBalancer.defaultName(tenant);
    String cluster = "tenant-" + id;

    assertThat(balancer.getLoadBalancer(cluster, tenant)).isEmpty();
    // Created; no ingress yet: called again after the poll interval (ccm4j's K48), in progress,
    // so without a Warning event, as upstream's silent wait.
    assertThatThrownBy(() -> balancer.ensureLoadBalancer(cluster, tenant, List.of()))
        .isInstanceOf(RetryAfterException.class)
        .satisfies(
            e -> {
              assertThat(((RetryAfterException) e).retryAfter()).isEqualTo(Duration.ofSeconds(1));
              assertThat(((RetryAfterException) e).inProgress()).isTrue();
            });
    Service infraService = infra.services().inNamespace(namespace).withName(name).get();
    assertThat(infraService.getSpec().getType()).isEqualTo("LoadBalancer");
    assertThat(infraService.getSpec().getSelector())
        .containsEntry(KubeVirtApi.ROLE_LABEL, "worker")
        .containsEntry(KubeVirtApi.CLUSTER_NAME_LABEL, cluster);
    assertThat(infraService.getMetadata().getLabels())
        .containsEntry(KubeVirtApi.TENANT_SERVICE_NAME_LABEL, "web")
        .containsEntry(KubeVirtApi.TENANT_SERVICE_NAMESPACE_LABEL, "shop");
    assertThat(infraService.getSpec().getPorts().get(0).getTargetPort())
        .isEqualTo(new IntOrString(30080));
    int infraNodePort = infraService.getSpec().getPorts().get(0).getNodePort();

    // The infrastructure load balancer assigns an ingress: copied back as it is (K49, K51).
    infraService.setStatus(
        new ServiceStatusBuilder()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp("203.0.113.10")
            .withIpMode("VIP")
            .endIngress()
            .endLoadBalancer()
            .build());
    infra.services().resource(infraService).updateStatus();
    LoadBalancerStatus status = balancer.ensureLoadBalancer(cluster, tenant, List.of());
    assertThat(status.ingress())
        .containsExactly(new LoadBalancerStatus.Ingress("203.0.113.10", "", "VIP"));
    assertThat(balancer.getLoadBalancer(cluster, tenant)).contains(status);

    // A new node port and a second port: the infrastructure Service follows, keeping the node
    // port it allocated for the unchanged port (K47, K50).
    tenant.getSpec().getPorts().get(0).setNodePort(30081);
    tenant
        .getSpec()
        .getPorts()
        .add(
            new ServicePortBuilder()
                .withName("https")
                .withProtocol("TCP")
                .withPort(443)
                .withNodePort(30443)
                .build());
    balancer.updateLoadBalancer(cluster, tenant, List.of());
    Service updated = infra.services().inNamespace(namespace).withName(name).get();
    assertThat(updated.getSpec().getPorts())
        .extracting(p -> p.getPort(), p -> p.getTargetPort().getIntVal())
        .containsExactly(tuple(80, 30081), tuple(443, 30443));
    assertThat(updated.getSpec().getPorts().get(0).getNodePort()).isEqualTo(infraNodePort);
    String version = updated.getMetadata().getResourceVersion();
    // Nothing changed: no write (ccm4j's K47).
    balancer.ensureLoadBalancer(cluster, tenant, List.of());
    assertThat(
            infra
                .services()
                .inNamespace(namespace)
                .withName(name)
                .get()
                .getMetadata()
                .getResourceVersion())
        .isEqualTo(version);

    // Deleted, and deleting again succeeds (K52).
    balancer.ensureLoadBalancerDeleted(cluster, tenant);
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> infra.services().inNamespace(namespace).withName(name).get() == null);
    balancer.ensureLoadBalancerDeleted(cluster, tenant);
    assertThat(balancer.getLoadBalancer(cluster, tenant)).isEmpty();
    // K50: an update of a missing infrastructure Service is an error; it is not recreated.
    assertThatThrownBy(() -> balancer.updateLoadBalancer(cluster, tenant, List.of()))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("not found");
  }

  @Test
  void k48_aWaitPastItsTimeoutIsReportedOnceAndThenTheEmptyStatusReturned() throws Exception {
    String cluster = "tenant-" + id;
    AtomicReference<Instant> now = new AtomicReference<>(Instant.now());
    Clock clock =
        new Clock() {
          @Override
          public ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return now.get();
          }
        };
    KubeVirtLoadBalancers balancer =
        new KubeVirtLoadBalancers(
            infra,
            new InfraServices(
                namespace, cluster, Map.of(), false, false, TenantFieldAllowList.NONE),
            Duration.ofSeconds(5),
            Duration.ofSeconds(300),
            clock);
    Service tenant = tenantService(UUID.randomUUID().toString());

    assertThatThrownBy(() -> balancer.ensureLoadBalancer(cluster, tenant, List.of()))
        .isInstanceOfSatisfying(
            RetryAfterException.class, e -> assertThat(e.inProgress()).isTrue());

    // creationPollTimeout has passed without an ingress: one failure, as upstream's timeout, which
    // the service controller records as a Warning event; then the empty status (K48).
    now.set(now.get().plusSeconds(301));
    assertThatThrownBy(() -> balancer.ensureLoadBalancer(cluster, tenant, List.of()))
        .isInstanceOf(CloudException.class)
        .isNotInstanceOf(RetryAfterException.class)
        .hasMessage(
            "timed out waiting for the condition: infrastructure Service %s/%s has no ingress 5m0s after its creation (loadBalancer.creationPollTimeout)",
            namespace, LoadBalancer.defaultName(tenant));
    assertThat(balancer.ensureLoadBalancer(cluster, tenant, List.of()).ingress()).isEmpty();
    assertThat(balancer.ensureLoadBalancer(cluster, tenant, List.of()).ingress()).isEmpty();
  }
}
