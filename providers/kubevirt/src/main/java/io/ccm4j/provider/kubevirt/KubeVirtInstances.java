package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A tenant Node is the VMI of the same name in the infrastructure namespace (§2). Nothing is cached
 * (K31): every answer is the infrastructure API's current one, and an API error is an error, never
 * "gone" (L5, L6).
 *
 * <p>One deliberate difference from upstream (K23): when the VMI is missing, the VirtualMachine of
 * the same name is asked too. A VM that exists without a VMI is stopped (halted), so its node
 * <em>exists and is shut down</em>: the lifecycle controller taints it instead of deleting it, and
 * it comes back as the same Node when the VM starts again. Upstream deletes the Node of a stopped
 * VM. Only a VMI and VM that are both gone (or the VM being deleted) make a node "gone".
 *
 * <p>As upstream (K23, K24), a VMI counts in whatever state it is: one being deleted (a {@code
 * deletionTimestamp}, held by KubeVirt's finalizers while the guest shuts down) exists and is shut
 * down only once its phase says so; a {@code Failed} one (KubeVirt's answer to a lost host, or a
 * crashed guest) exists and is shut down, so its node is tainted, not deleted.
 */
final class KubeVirtInstances implements InstancesV2 {

  private static final Logger log = LoggerFactory.getLogger(KubeVirtInstances.class);

  /** K26 (a): names the VMI directly, whatever the node is called. */
  static final String INSTANCE_ID_LABEL = "node.kubernetes.io/instance-id";

  private final KubernetesClient infra;
  private final String namespace;
  private final boolean zoneAndRegionEnabled;

  KubeVirtInstances(KubernetesClient infra, String namespace, boolean zoneAndRegionEnabled) {
    this.infra = infra;
    this.namespace = namespace;
    this.zoneAndRegionEnabled = zoneAndRegionEnabled;
  }

  /** K23, but a stopped VM's node exists (see the class comment). */
  @Override
  public boolean instanceExists(Node node) throws CloudException {
    String name = ProviderIds.instanceId(providerId(node));
    if (vmi(name).isPresent()) {
      return true;
    }
    if (virtualMachineExists(name)) {
      return true;
    }
    log.info(
        "node {}: neither VMI nor VirtualMachine {}/{} exists", nodeName(node), namespace, name);
    return false;
  }

  /** K24; a VM without a VMI is stopped, so shut down. */
  @Override
  public boolean instanceShutdown(Node node) throws CloudException {
    String name = ProviderIds.instanceId(providerId(node));
    Optional<VirtualMachineInstance> vmi = vmi(name);
    if (vmi.isEmpty()) {
      return true;
    }
    return switch (InstanceDecisions.shutdown(vmi.get().phase())) {
      case SHUT_DOWN -> true;
      case RUNNING -> false;
      case UNKNOWN ->
          throw new CloudException(
              "VMI %s/%s is in phase Unknown, its host is probably down"
                  .formatted(namespace, name));
    };
  }

  /** K25. */
  @Override
  public Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException {
    VirtualMachineInstance vmi = find(node);
    String zone = "";
    String region = "";
    if (zoneAndRegionEnabled) {
      Map<String, String> labels = infraNodeLabels(vmi);
      zone = labels.getOrDefault(WellKnownLabels.ZONE, "");
      region = labels.getOrDefault(WellKnownLabels.REGION, "");
    }
    return Optional.of(
        new InstanceMetadata(
            ProviderIds.of(vmi.name()),
            vmi.instanceType(),
            InstanceDecisions.addresses(vmi, node),
            zone,
            region,
            Map.of()));
  }

  /**
   * K26, with two ccm4j steps before it: a node whose providerID is set (by the kubelet's {@code
   * --provider-id}, or an earlier initialisation) is its VMI, and nothing else is asked. Then,
   * after the instance-id label and the node name, the first label of an FQDN node name ({@code
   * worker-1.tenant.example.com}), as VMI name and as {@code spec.hostname}: KubeVirt refuses a
   * hostname with a dot, so a dotted node name never equals one. The hostname fallback of (b) lists
   * the namespace's VMIs and compares {@code spec.hostname} here: upstream asks the API server with
   * a field selector the KubeVirt CRD does not support, so its fallback always fails (K115).
   */
  private VirtualMachineInstance find(Node node) throws CloudException {
    String nodeName = nodeName(node);
    String providerId = providerId(node);
    if (providerId != null && !providerId.isEmpty()) {
      String name = ProviderIds.instanceId(providerId);
      return vmi(name)
          .orElseThrow(
              () ->
                  new InstanceNotFoundException(
                      "node %s: no VMI %s/%s (providerID %s)"
                          .formatted(nodeName, namespace, name, providerId)));
    }
    Map<String, String> labels = node.getMetadata().getLabels();
    String instanceId = labels == null ? null : labels.get(INSTANCE_ID_LABEL);
    if (instanceId != null && !instanceId.isEmpty()) {
      return vmi(instanceId)
          .orElseThrow(
              () ->
                  new InstanceNotFoundException(
                      "node %s: no VMI %s/%s (label %s)"
                          .formatted(nodeName, namespace, instanceId, INSTANCE_ID_LABEL)));
    }
    Optional<VirtualMachineInstance> byName = vmi(nodeName);
    if (byName.isPresent()) {
      return byName.get();
    }
    String host = InstanceDecisions.hostLabel(nodeName);
    if (!host.equals(nodeName)) {
      Optional<VirtualMachineInstance> byHost = vmi(host);
      if (byHost.isPresent()) {
        return byHost.get();
      }
    }
    List<VirtualMachineInstance> byHostname;
    try {
      byHostname =
          infra
              .genericKubernetesResources(KubeVirtApi.VIRTUAL_MACHINE_INSTANCES)
              .inNamespace(namespace)
              .list()
              .getItems()
              .stream()
              .map(VirtualMachineInstance::of)
              .filter(vmi -> host.equals(vmi.hostname()))
              .toList();
    } catch (KubernetesClientException e) {
      throw failed("listing VMIs in " + namespace + " for node " + nodeName, e);
    }
    if (byHostname.size() > 1) {
      throw new CloudException(
          "node %s: found %d VMIs in %s with the hostname %s"
              .formatted(nodeName, byHostname.size(), namespace, host));
    }
    if (byHostname.isEmpty()) {
      throw new CloudException(
          "node %s: no VMI in %s is named %s or has the hostname %s"
              .formatted(
                  nodeName,
                  namespace,
                  host.equals(nodeName) ? nodeName : nodeName + " or " + host,
                  host));
    }
    return byHostname.get(0);
  }

  /** K30: every failure, an unscheduled VMI included, fails the whole metadata call. */
  private Map<String, String> infraNodeLabels(VirtualMachineInstance vmi) throws CloudException {
    if (vmi.nodeName().isEmpty()) {
      throw new CloudException(
          "VMI %s/%s is not scheduled to an infrastructure node yet (no status.nodeName)"
              .formatted(namespace, vmi.name()));
    }
    Node infraNode;
    try {
      infraNode = infra.nodes().withName(vmi.nodeName()).get();
    } catch (KubernetesClientException e) {
      throw failed("reading infrastructure node " + vmi.nodeName(), e);
    }
    if (infraNode == null) {
      throw new CloudException(
          "VMI %s/%s runs on infrastructure node %s, which does not exist"
              .formatted(namespace, vmi.name(), vmi.nodeName()));
    }
    return Objects.requireNonNullElse(infraNode.getMetadata().getLabels(), Map.of());
  }

  private Optional<VirtualMachineInstance> vmi(String name) throws CloudException {
    GenericKubernetesResource vmi;
    try {
      vmi =
          infra
              .genericKubernetesResources(KubeVirtApi.VIRTUAL_MACHINE_INSTANCES)
              .inNamespace(namespace)
              .withName(name)
              .get();
    } catch (KubernetesClientException e) {
      throw failed("reading VMI " + namespace + "/" + name, e);
    }
    return Optional.ofNullable(vmi).map(VirtualMachineInstance::of);
  }

  /**
   * Whether a VirtualMachine of that name is there and not being deleted: one with a {@code
   * deletionTimestamp} (held by KubeVirt's finalizer after its VMI went) is going, not stopped.
   */
  private boolean virtualMachineExists(String name) throws CloudException {
    GenericKubernetesResource vm;
    try {
      vm =
          infra
              .genericKubernetesResources(KubeVirtApi.VIRTUAL_MACHINES)
              .inNamespace(namespace)
              .withName(name)
              .get();
    } catch (KubernetesClientException e) {
      throw failed("reading VirtualMachine " + namespace + "/" + name, e);
    }
    return vm != null && vm.getMetadata().getDeletionTimestamp() == null;
  }

  static CloudException failed(String what, KubernetesClientException e) {
    return new CloudException(
        "infrastructure cluster: %s: %s"
            .formatted(what, e.getCode() > 0 ? e.getCode() + " " + e.getMessage() : e.getMessage()),
        e);
  }

  private static String providerId(Node node) {
    return node.getSpec() == null ? null : node.getSpec().getProviderID();
  }

  private static String nodeName(Node node) {
    return node.getMetadata().getName();
  }
}
