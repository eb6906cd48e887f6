package io.ccm4j.simulator.kubelet;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The objects a kubelet writes: its Node at registration, its conditions, its Lease. */
final class KubeletObjects {

  static final int LEASE_DURATION_SECONDS = 40;
  static final String READY_MESSAGE = "kubelet is posting ready status";

  private KubeletObjects() {}

  /**
   * @param kubeletVersion what {@code status.nodeInfo.kubeletVersion} says (the API server's own;
   *     {@code kubeProxyVersion} is left out, as today's kubelets leave it)
   */
  static Node registration(NodeSpec spec, String kubeletVersion) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("beta.kubernetes.io/arch", "amd64");
    labels.put("beta.kubernetes.io/os", "linux");
    labels.put("kubernetes.io/arch", "amd64");
    labels.put("kubernetes.io/os", "linux");
    labels.put(WellKnownLabels.HOSTNAME, spec.name());
    labels.putAll(spec.labels());
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put("node.alpha.kubernetes.io/ttl", "0");
    annotations.put("volumes.kubernetes.io/controller-managed-attach-detach", "true");
    if (spec.nodeIp() != null) {
      annotations.put(WellKnownAnnotations.PROVIDED_NODE_IP, spec.nodeIp());
    }
    List<Taint> taints = new ArrayList<>();
    taints.add(
        new TaintBuilder()
            .withKey(WellKnownTaints.UNINITIALIZED)
            .withValue("true")
            .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
            .build());
    taints.addAll(spec.taints());
    Map<String, Quantity> capacity =
        Map.of(
            "cpu", new Quantity("4"),
            "memory", new Quantity("16Gi"),
            "pods", new Quantity("110"),
            "ephemeral-storage", new Quantity("100Gi"));
    return new NodeBuilder()
        .withNewMetadata()
        .withName(spec.name())
        .withLabels(labels)
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withTaints(taints)
        .endSpec()
        .withNewStatus()
        .withCapacity(capacity)
        .withAllocatable(capacity)
        .withConditions(
            spec.notReadyMessage() == null
                ? conditions(true, READY_MESSAGE)
                : conditions(false, spec.notReadyMessage()))
        .addNewAddress()
        .withType("Hostname")
        .withAddress(spec.name())
        .endAddress()
        .withNewDaemonEndpoints()
        .withNewKubeletEndpoint()
        .withPort(10250)
        .endKubeletEndpoint()
        .endDaemonEndpoints()
        .withNewNodeInfo()
        .withArchitecture("amd64")
        .withOperatingSystem("linux")
        .withOsImage("ccm4j simulated kubelet")
        .withKernelVersion("6.1.0-sim")
        .withContainerRuntimeVersion("sim://1.0")
        .withKubeletVersion(kubeletVersion)
        .withMachineID(UUID.randomUUID().toString().replace("-", ""))
        .withSystemUUID(UUID.randomUUID().toString())
        .withBootID(UUID.randomUUID().toString())
        .endNodeInfo()
        .endStatus()
        .build();
  }

  /** The four conditions a healthy kubelet posts, with Ready as given. */
  static List<NodeCondition> conditions(boolean ready, String readyMessage) {
    String now = now();
    return List.of(
        condition(
            "MemoryPressure",
            ConditionStatus.FALSE,
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
            now),
        condition(
            "DiskPressure",
            ConditionStatus.FALSE,
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
            now),
        condition(
            "PIDPressure",
            ConditionStatus.FALSE,
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
            now),
        ready
            ? condition("Ready", ConditionStatus.TRUE, "KubeletReady", readyMessage, now)
            : condition("Ready", ConditionStatus.FALSE, "KubeletNotReady", readyMessage, now));
  }

  private static NodeCondition condition(
      String type, String status, String reason, String message, String now) {
    return new NodeConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withLastHeartbeatTime(now)
        .withLastTransitionTime(now)
        .build();
  }

  static Lease lease(Node node) {
    return new LeaseBuilder()
        .withNewMetadata()
        .withName(node.getMetadata().getName())
        .withNamespace(WellKnownNamespaces.KUBE_NODE_LEASE)
        .addNewOwnerReference()
        .withApiVersion("v1")
        .withKind("Node")
        .withName(node.getMetadata().getName())
        .withUid(node.getMetadata().getUid())
        .endOwnerReference()
        .endMetadata()
        .withNewSpec()
        .withHolderIdentity(node.getMetadata().getName())
        .withLeaseDurationSeconds(LEASE_DURATION_SECONDS)
        .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
        .endSpec()
        .build();
  }

  static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
