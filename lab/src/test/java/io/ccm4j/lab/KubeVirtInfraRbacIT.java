package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.ServiceAccounts;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.ccm4j.simulator.virt.SimulatedVirt;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kubevirt provider does its work in the infrastructure cluster with exactly the rights of
 * {@code providers/kubevirt/deploy/infra-rbac.yaml} (K95, K96), and has no others.
 */
@WithControlPlane
class KubeVirtInfraRbacIT {

  private static final Path INFRA_RBAC =
      Path.of("..", "providers", "kubevirt", "deploy", "infra-rbac.yaml");
  private static final String ACCOUNT = "kubevirt-cloud-controller-manager";

  private static LocalControlPlane infraPlane;
  private static KubernetesClient infra;

  private final LocalControlPlane tenantPlane;
  private final KubernetesClient tenant;
  private KubeVirtTestbed bed;
  private final List<HasMetadata> clusterScoped = new ArrayList<>();

  @TempDir Path temp;

  KubeVirtInfraRbacIT(LocalControlPlane tenantPlane, KubernetesClient tenant) {
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
  }

  @AfterEach
  void stop() {
    bed.close();
    clusterScoped.forEach(o -> infra.resource(o).delete());
    infra.nodes().withName("infra-" + bed.id).delete();
  }

  /** The shipped manifest, for this test's namespace instead of {@code tenant-a}. */
  private void applyInfraRbac() throws Exception {
    String manifest = Files.readString(INFRA_RBAC).replace("tenant-a", bed.namespace);
    try (InputStream in = new java.io.ByteArrayInputStream(manifest.getBytes())) {
      for (HasMetadata object : infra.load(in).items()) {
        infra.resource(object).create();
        if (object.getMetadata().getNamespace() == null) {
          clusterScoped.add(object);
        }
      }
    }
    assertThat(clusterScoped).hasSize(2);
  }

  private static boolean hasTaint(Node node, String key) {
    return node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream().anyMatch(t -> key.equals(t.getKey()));
  }

  @Test
  void k95_k96_theManagerWorksAsTheShippedInfrastructureAccountAndNoMore() throws Exception {
    applyInfraRbac();
    String token = ServiceAccounts.token(infra, bed.namespace, ACCOUNT);
    String kubeconfig =
        infraPlane.kubeconfig("system:serviceaccount:" + bed.namespace + ":" + ACCOUNT, token);

    // No more than the manifest: no pods, no other namespace's VMIs, no node writes.
    try (KubernetesClient asAccount =
        new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build()) {
      assertThatThrownBy(() -> asAccount.pods().inNamespace(bed.namespace).list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
      assertThatThrownBy(
              () ->
                  asAccount
                      .genericKubernetesResources(SimulatedVirt.VMIS)
                      .inNamespace("default")
                      .list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
      assertThatThrownBy(() -> asAccount.nodes().list())
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
    }

    SimulatedVirt.addNode(infra, "infra-" + bed.id, "eu-north", "eu-north-1");
    bed.startManager(bed.cloudConfig(kubeconfig, ""), "cloud-node,cloud-node-lifecycle,service");
    String vm = "vm-rbac-" + bed.id;
    SimulatedKubelet kubelet = bed.worker(vm, "infra-" + bed.id, "127.64.0.1");

    // Instances (VMI get, infrastructure node get): initialised with its zone.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> !hasTaint(tenant.nodes().withName(vm).get(), WellKnownTaints.UNINITIALIZED));
    assertThat(tenant.nodes().withName(vm).get().getMetadata().getLabels())
        .containsEntry(WellKnownLabels.ZONE, "eu-north-1");

    // Lifecycle (VMI get, VirtualMachine get): stopped → shutdown taint.
    bed.virt.stop(vm);
    kubelet.setReady(false, "the VM is stopped");
    kubelet.stopHeartbeats();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> hasTaint(tenant.nodes().withName(vm).get(), WellKnownTaints.SHUTDOWN));

    // Load balancers (services get, create, update, delete).
    String shop = bed.tenantNamespace();
    Service web = bed.createLoadBalancer(shop, null, 80, null);
    String infraName = LoadBalancer.defaultName(web);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> infra.services().inNamespace(bed.namespace).withName(infraName).get() != null);
    Service mirrored = infra.services().inNamespace(bed.namespace).withName(infraName).get();
    bed.assignIngressAndAwaitCopy(mirrored, shop, "192.0.2.77");
    tenant
        .services()
        .inNamespace(shop)
        .withName("web")
        .edit(
            s -> {
              s.getSpec().getPorts().get(0).setPort(8080);
              return s;
            });
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                infra
                        .services()
                        .inNamespace(bed.namespace)
                        .withName(infraName)
                        .get()
                        .getSpec()
                        .getPorts()
                        .get(0)
                        .getPort()
                    == 8080);
    tenant.services().inNamespace(shop).withName("web").delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> infra.services().inNamespace(bed.namespace).withName(infraName).get() == null);
    tenant.namespaces().withName(shop).delete();
  }
}
