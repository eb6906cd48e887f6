package io.ccm4j.simulator.virt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.controlplane.junit.WithControlPlane;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The simulated virt layer writes what KubeVirt writes (kubevirt-provider spec K100–K103). */
@WithControlPlane
class SimulatedVirtIT {

  private final KubernetesClient infra;
  private final String id = UUID.randomUUID().toString().substring(0, 6);
  private final String namespace = "virt-" + id;
  private final String host = "infra-" + id;
  private SimulatedVirt virt;

  SimulatedVirtIT(KubernetesClient infra) {
    this.infra = infra;
  }

  @BeforeEach
  void start() {
    infra
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    virt = new SimulatedVirt(infra, namespace);
    SimulatedVirt.addNode(infra, host, "r", "z");
  }

  @AfterEach
  void stop() {
    infra.namespaces().withName(namespace).delete();
    infra.nodes().withName(host).delete();
  }

  private GenericKubernetesResource vmi(String name) {
    return infra
        .genericKubernetesResources(SimulatedVirt.VMIS)
        .inNamespace(namespace)
        .withName(name)
        .get();
  }

  private GenericKubernetesResource vm(String name) {
    return infra
        .genericKubernetesResources(SimulatedVirt.VMS)
        .inNamespace(namespace)
        .withName(name)
        .get();
  }

  @SuppressWarnings("unchecked")
  private static String phase(GenericKubernetesResource vmi) {
    return String.valueOf(
        ((Map<String, Object>) vmi.getAdditionalProperties().get("status")).get("phase"));
  }

  @Test
  void theVmiHasNoStatusSubresourceAndTheVmHasOne() {
    virt.start(VirtualMachineSpec.worker("vm-1", "tenant", host, "127.62.0.1"));
    assertThatThrownBy(
            () ->
                infra
                    .genericKubernetesResources(SimulatedVirt.VMIS)
                    .inNamespace(namespace)
                    .resource(vmi("vm-1"))
                    .updateStatus())
        .isInstanceOf(KubernetesClientException.class)
        .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(404));
    infra
        .genericKubernetesResources(SimulatedVirt.VMS)
        .inNamespace(namespace)
        .resource(vm("vm-1"))
        .updateStatus();
    assertThat(phase(vmi("vm-1"))).isEqualTo("Running");
  }

  @Test
  void theLauncherPodHasKubeVirtsLabelsAndReadinessGate() {
    virt.start(VirtualMachineSpec.worker("vm-2", "tenant", host, "127.62.0.2"));
    Pod pod =
        infra
            .pods()
            .inNamespace(namespace)
            .withLabel("vm.kubevirt.io/name", "vm-2")
            .list()
            .getItems()
            .getFirst();
    assertThat(pod.getMetadata().getLabels())
        .containsEntry("kubevirt.io", "virt-launcher")
        .containsEntry("kubevirt.io/created-by", vmi("vm-2").getMetadata().getUid())
        .containsEntry("cluster.x-k8s.io/role", "worker");
    assertThat(pod.getSpec().getReadinessGates())
        .extracting(g -> g.getConditionType())
        .containsExactly(SimulatedVirt.UNPAUSED_READINESS_GATE);
    assertThat(pod.getStatus().getConditions())
        .filteredOn(c -> SimulatedVirt.UNPAUSED_READINESS_GATE.equals(c.getType()))
        .extracting(PodCondition::getStatus)
        .containsExactly("True");
  }

  @Test
  void aDeletionHoldsTheVmAndVmiWithKubeVirtsFinalizersUntilTheGuestIsDown() {
    virt.start(VirtualMachineSpec.worker("vm-3", "tenant", host, "127.62.0.3"));
    assertThat(vm("vm-3").getMetadata().getFinalizers())
        .containsExactly(SimulatedVirt.VM_CONTROLLER_FINALIZER);
    assertThat(vmi("vm-3").getMetadata().getFinalizers())
        .containsExactly(SimulatedVirt.VM_CONTROLLER_FINALIZER, SimulatedVirt.VMI_FINALIZER);

    virt.beginDeletion("vm-3");
    assertThat(vm("vm-3").getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(vmi("vm-3").getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(phase(vmi("vm-3"))).isEqualTo("Running");

    virt.finishVmiDeletion("vm-3");
    assertThat(vmi("vm-3")).isNull();
    assertThat(vm("vm-3").getMetadata().getDeletionTimestamp()).isNotNull();

    virt.finishDeletion("vm-3");
    assertThat(vm("vm-3")).isNull();
  }

  @Test
  void aLostHostsVmisAreFailedNotUnknown() {
    virt.start(VirtualMachineSpec.worker("vm-4", "tenant", host, "127.62.0.4"));
    virt.loseHost(host);
    assertThat(phase(vmi("vm-4"))).isEqualTo("Failed");
    Pod pod =
        infra
            .pods()
            .inNamespace(namespace)
            .withLabel("vm.kubevirt.io/name", "vm-4")
            .list()
            .getItems()
            .getFirst();
    assertThat(pod.getStatus().getConditions())
        .filteredOn(c -> "Ready".equals(c.getType()))
        .extracting(PodCondition::getStatus)
        .containsExactly("False");
  }
}
