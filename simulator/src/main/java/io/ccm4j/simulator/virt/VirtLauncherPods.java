package io.ccm4j.simulator.virt;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The virt-launcher pods of one infrastructure namespace, as KubeVirt runs them: one per VMI, named
 * {@code virt-launcher-<vm>-<suffix>}, labelled with the VM's name, owned by the VMI; no kubelet
 * runs them, so their status is written here.
 */
final class VirtLauncherPods {

  private final KubernetesClient infra;
  private final String namespace;

  VirtLauncherPods(KubernetesClient infra, String namespace) {
    this.infra = infra;
    this.namespace = namespace;
  }

  /** The VMI's virt-launcher pod, bound to its infrastructure node, labelled as KubeVirt does. */
  Pod create(VirtualMachineSpec spec, GenericKubernetesResource vmi) {
    Map<String, String> labels = new LinkedHashMap<>(spec.templateLabels());
    labels.put(SimulatedVirt.VIRT_LAUNCHER_LABEL, "virt-launcher");
    labels.put(SimulatedVirt.VM_NAME_LABEL, spec.name());
    labels.put(SimulatedVirt.CREATED_BY_LABEL, vmi.getMetadata().getUid());
    return infra
        .pods()
        .inNamespace(namespace)
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name(spec.name()))
                .withNamespace(namespace)
                .withLabels(labels)
                .withOwnerReferences(VirtShapes.owner(vmi))
                .endMetadata()
                .withNewSpec()
                .withNodeName(spec.infraNode())
                .withAutomountServiceAccountToken(false)
                .addNewReadinessGate()
                .withConditionType(SimulatedVirt.UNPAUSED_READINESS_GATE)
                .endReadinessGate()
                .addNewContainer()
                .withName("compute")
                .withImage("quay.io/kubevirt/virt-launcher:simulated")
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  /** The pod Running with {@code ip}, Ready with its readiness gate. */
  void markRunning(Pod pod, String ip) {
    Pod current = infra.pods().resource(pod).get();
    String now = Instant.now().toString();
    current.setStatus(
        new PodStatusBuilder()
            .withPhase("Running")
            .withPodIP(ip)
            .addNewPodIP()
            .withIp(ip)
            .endPodIP()
            .withStartTime(now)
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .withLastTransitionTime(now)
            .endCondition()
            .addNewCondition()
            .withType("ContainersReady")
            .withStatus("True")
            .withLastTransitionTime(now)
            .endCondition()
            .addNewCondition()
            .withType(SimulatedVirt.UNPAUSED_READINESS_GATE)
            .withStatus("True")
            .withLastTransitionTime(now)
            .endCondition()
            .build());
    infra.pods().resource(current).updateStatus();
  }

  /** Deletes the launcher pods of VM {@code name} and waits until they are gone. */
  void delete(String name) {
    infra
        .pods()
        .inNamespace(namespace)
        .withLabel(SimulatedVirt.VM_NAME_LABEL, name)
        .withGracePeriod(0)
        .delete();
    // No kubelet runs here: wait until the API server has removed it.
    SimulatedVirt.await(
        () -> of(name).isEmpty(),
        "virt-launcher pod of " + namespace + "/" + name + " was not deleted");
  }

  List<Pod> of(String name) {
    return infra
        .pods()
        .inNamespace(namespace)
        .withLabel(SimulatedVirt.VM_NAME_LABEL, name)
        .list()
        .getItems();
  }

  private static String name(String vmName) {
    String chars = "bcdfghjklmnpqrstvwxz2456789";
    StringBuilder suffix = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      suffix.append(chars.charAt(ThreadLocalRandom.current().nextInt(chars.length())));
    }
    return "virt-launcher-" + vmName + "-" + suffix;
  }
}
