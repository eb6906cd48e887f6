package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Collection;
import java.util.HashMap;
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
 *
 * <p>The bulk calls ({@link #instancesExist}, {@link #instancesShutdown}, {@link
 * #instancesMetadata}) answer a whole pass from one list of the namespace's VMIs (a VirtualMachine
 * read only for a node whose VMI is missing; an infrastructure node read once per call) instead of
 * a GET per node: the same decisions over the API's answer at the call, not a cache (K31). A list
 * that fails fails every node of the call; never "gone".
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

  /** Where a call reads the infrastructure: a GET each time, or one list for a bulk call. */
  private interface Lookup {
    Optional<VirtualMachineInstance> vmi(String name) throws CloudException;

    /** The namespace's VMIs. */
    List<VirtualMachineInstance> vmis() throws CloudException;

    boolean virtualMachineExists(String name) throws CloudException;

    Optional<Node> infraNode(String name) throws CloudException;
  }

  /** Every question a GET (or a list) of its own, as upstream asks. */
  private final Lookup live =
      new Lookup() {
        @Override
        public Optional<VirtualMachineInstance> vmi(String name) throws CloudException {
          return getVmi(name);
        }

        @Override
        public List<VirtualMachineInstance> vmis() throws CloudException {
          return listVmis();
        }

        @Override
        public boolean virtualMachineExists(String name) throws CloudException {
          return getVirtualMachineExists(name);
        }

        @Override
        public Optional<Node> infraNode(String name) throws CloudException {
          return getInfraNode(name);
        }
      };

  /**
   * One bulk call's view: the VMIs listed once when it starts, an infrastructure node read at most
   * once, when first needed.
   */
  private final class Listed implements Lookup {
    private final List<VirtualMachineInstance> vmis;
    private final Map<String, VirtualMachineInstance> byName = new HashMap<>();
    private final Map<String, Optional<Node>> infraNodes = new HashMap<>();

    Listed() throws CloudException {
      vmis = listVmis();
      vmis.forEach(vmi -> byName.put(vmi.name(), vmi));
    }

    @Override
    public Optional<VirtualMachineInstance> vmi(String name) {
      return Optional.ofNullable(byName.get(name));
    }

    @Override
    public List<VirtualMachineInstance> vmis() {
      return vmis;
    }

    /** A GET: only a node whose VMI is missing asks, and the role may get VMs, not list them. */
    @Override
    public boolean virtualMachineExists(String name) throws CloudException {
      return getVirtualMachineExists(name);
    }

    @Override
    public Optional<Node> infraNode(String name) throws CloudException {
      Optional<Node> known = infraNodes.get(name);
      if (known == null) {
        known = getInfraNode(name);
        infraNodes.put(name, known);
      }
      return known;
    }
  }

  /** Answers a pass in one call: see the class comment. */
  @Override
  public int maxNodesPerCall() {
    return Integer.MAX_VALUE;
  }

  @Override
  public BulkAnswers<Boolean> instancesExist(Collection<Node> nodes) throws CloudException {
    Listed listed = new Listed();
    return BulkAnswers.oneByOne(nodes, InstancesV2::nodeName, node -> exists(node, listed));
  }

  @Override
  public BulkAnswers<Boolean> instancesShutdown(Collection<Node> nodes) throws CloudException {
    Listed listed = new Listed();
    return BulkAnswers.oneByOne(nodes, InstancesV2::nodeName, node -> shutdown(node, listed));
  }

  @Override
  public BulkAnswers<Optional<InstanceMetadata>> instancesMetadata(Collection<Node> nodes)
      throws CloudException {
    Listed listed = new Listed();
    return BulkAnswers.oneByOne(nodes, InstancesV2::nodeName, node -> metadata(node, listed));
  }

  /** K23, but a stopped VM's node exists (see the class comment). */
  @Override
  public boolean instanceExists(Node node) throws CloudException {
    return exists(node, live);
  }

  private boolean exists(Node node, Lookup lookup) throws CloudException {
    String name = ProviderIds.instanceId(providerId(node));
    if (lookup.vmi(name).isPresent()) {
      return true;
    }
    if (lookup.virtualMachineExists(name)) {
      return true;
    }
    log.info(
        "node {}: neither VMI nor VirtualMachine {}/{} exists", nodeName(node), namespace, name);
    return false;
  }

  /** K24; a VM without a VMI is stopped, so shut down. */
  @Override
  public boolean instanceShutdown(Node node) throws CloudException {
    return shutdown(node, live);
  }

  private boolean shutdown(Node node, Lookup lookup) throws CloudException {
    String name = ProviderIds.instanceId(providerId(node));
    Optional<VirtualMachineInstance> vmi = lookup.vmi(name);
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
    return metadata(node, live);
  }

  private Optional<InstanceMetadata> metadata(Node node, Lookup lookup) throws CloudException {
    VirtualMachineInstance vmi = find(node, lookup);
    String zone = "";
    String region = "";
    if (zoneAndRegionEnabled) {
      Map<String, String> labels = infraNodeLabels(vmi, lookup);
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
  private VirtualMachineInstance find(Node node, Lookup lookup) throws CloudException {
    String nodeName = nodeName(node);
    String providerId = providerId(node);
    if (providerId != null && !providerId.isEmpty()) {
      String name = ProviderIds.instanceId(providerId);
      return lookup
          .vmi(name)
          .orElseThrow(
              () ->
                  new InstanceNotFoundException(
                      "node %s: no VMI %s/%s (providerID %s)"
                          .formatted(nodeName, namespace, name, providerId)));
    }
    Map<String, String> labels = node.getMetadata().getLabels();
    String instanceId = labels == null ? null : labels.get(INSTANCE_ID_LABEL);
    if (instanceId != null && !instanceId.isEmpty()) {
      return lookup
          .vmi(instanceId)
          .orElseThrow(
              () ->
                  new InstanceNotFoundException(
                      "node %s: no VMI %s/%s (label %s)"
                          .formatted(nodeName, namespace, instanceId, INSTANCE_ID_LABEL)));
    }
    Optional<VirtualMachineInstance> byName = lookup.vmi(nodeName);
    if (byName.isPresent()) {
      return byName.get();
    }
    String host = InstanceDecisions.hostLabel(nodeName);
    List<VirtualMachineInstance> byHostname =
        lookup.vmis().stream().filter(vmi -> host.equals(vmi.hostname())).toList();
    if (!host.equals(nodeName)) {
      Optional<VirtualMachineInstance> byHost = lookup.vmi(host);
      if (byHost.isPresent()) {
        // The first label is a guess (ccm4j's, upstream has none): in a namespace several
        // clusters share, it may name one VMI and be another's hostname. Bound to the wrong VMI,
        // the node would follow a stranger's lifecycle; so only an unambiguous guess counts.
        List<String> others =
            byHostname.stream()
                .map(VirtualMachineInstance::name)
                .filter(name -> !name.equals(byHost.get().name()))
                .toList();
        if (!others.isEmpty()) {
          throw new CloudException(
              ("node %s: the first label of its name, %s, names VMI %s/%s and is the hostname of"
                      + " %s too: set the node's providerID (the kubelet's --provider-id=kubevirt://"
                      + "<VMI>) or its label %s to say which")
                  .formatted(
                      nodeName,
                      host,
                      namespace,
                      host,
                      String.join(", ", others),
                      INSTANCE_ID_LABEL));
        }
        return byHost.get();
      }
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
  private Map<String, String> infraNodeLabels(VirtualMachineInstance vmi, Lookup lookup)
      throws CloudException {
    if (vmi.nodeName().isEmpty()) {
      throw new CloudException(
          "VMI %s/%s is not scheduled to an infrastructure node yet (no status.nodeName)"
              .formatted(namespace, vmi.name()));
    }
    Node infraNode = lookup.infraNode(vmi.nodeName()).orElse(null);
    if (infraNode == null) {
      throw new CloudException(
          "VMI %s/%s runs on infrastructure node %s, which does not exist"
              .formatted(namespace, vmi.name(), vmi.nodeName()));
    }
    return Objects.requireNonNullElse(infraNode.getMetadata().getLabels(), Map.of());
  }

  private Optional<Node> getInfraNode(String name) throws CloudException {
    try {
      return Optional.ofNullable(infra.nodes().withName(name).get());
    } catch (KubernetesClientException e) {
      throw failed("reading infrastructure node " + name, e);
    }
  }

  private List<VirtualMachineInstance> listVmis() throws CloudException {
    try {
      return infra
          .genericKubernetesResources(KubeVirtApi.VIRTUAL_MACHINE_INSTANCES)
          .inNamespace(namespace)
          .list()
          .getItems()
          .stream()
          .map(VirtualMachineInstance::of)
          .toList();
    } catch (KubernetesClientException e) {
      throw failed("listing VMIs in " + namespace, e);
    }
  }

  private Optional<VirtualMachineInstance> getVmi(String name) throws CloudException {
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
  private boolean getVirtualMachineExists(String name) throws CloudException {
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
