package io.ccm4j.simulator.virt;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A small simulated KubeVirt on a real API server: it writes what virt-controller and virt-handler
 * write for the objects a tenant cluster's CCM reads (kubevirt-provider spec K100–K103). A VM
 * started here gets, in order: the VirtualMachine (runStrategy Always), its VMI (labels from the
 * template, owned by the VM), the VMI's virt-launcher pod bound to the infrastructure node (labels
 * from the VMI, owned by it, Running with the VMI's IP as pod IP), the VMI's status (phase Running,
 * nodeName, the {@code default} interface with its IP) and the VM's status (printableStatus
 * Running, ready). Stopping a VM halts it, as {@code virtctl stop} does: the VMI and its pod go,
 * the VM stays with printableStatus Stopped. As in KubeVirt, the VirtualMachine's status is written
 * through its {@code /status} subresource and the VMI's with the whole object (the VMI CRD has no
 * subresources); VMs and VMIs carry KubeVirt's finalizers, so a deletion goes through a phase where
 * the object is still there with a {@code deletionTimestamp} ({@link #beginDeletion}); a host that
 * stops answering makes its VMIs {@code Failed} ({@link #loseHost}), as virt-controller does;
 * launcher pods carry KubeVirt's labels and readiness gate.
 *
 * <p>No controller loop runs: each method makes its changes before it returns, so a test decides
 * exactly when the infrastructure cluster changes. The launcher pods are {@link VirtLauncherPods}',
 * the objects' shapes {@link VirtShapes}'.
 */
public final class SimulatedVirt {

  public static final String CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name";
  public static final String ROLE_LABEL = "cluster.x-k8s.io/role";
  public static final String INSTANCETYPE_ANNOTATION = "kubevirt.io/instancetype-name";
  public static final String CLUSTER_INSTANCETYPE_ANNOTATION =
      "kubevirt.io/cluster-instancetype-name";
  static final String VM_NAME_LABEL = "vm.kubevirt.io/name";
  static final String VIRT_LAUNCHER_LABEL = "kubevirt.io";
  static final String NODE_NAME_LABEL = "kubevirt.io/nodeName";
  static final String CREATED_BY_LABEL = "kubevirt.io/created-by";

  /** virt-launcher pods are Ready only while the VM is not paused. */
  public static final String UNPAUSED_READINESS_GATE = "kubevirt.io/virtual-machine-unpaused";

  /** Set by the VM controller on VMs and on the VMIs it owns. */
  public static final String VM_CONTROLLER_FINALIZER =
      "kubevirt.io/virtualMachineControllerFinalize";

  /** Set by the VMI controller on every VMI until its pod is gone. */
  public static final String VMI_FINALIZER = "foregroundDeleteVirtualMachine";

  public static final ResourceDefinitionContext VMIS =
      new ResourceDefinitionContext.Builder()
          .withGroup("kubevirt.io")
          .withVersion("v1")
          .withKind("VirtualMachineInstance")
          .withPlural("virtualmachineinstances")
          .withNamespaced(true)
          .build();
  public static final ResourceDefinitionContext VMS =
      new ResourceDefinitionContext.Builder()
          .withGroup("kubevirt.io")
          .withVersion("v1")
          .withKind("VirtualMachine")
          .withPlural("virtualmachines")
          .withNamespaced(true)
          .build();

  private static final String CRDS = "kubevirt-crds.yaml";

  private final KubernetesClient infra;
  private final String namespace;
  private final Map<String, VirtualMachineSpec> specs = new LinkedHashMap<>();
  private final VirtLauncherPods launcherPods;

  /** A simulated KubeVirt for the VMs of one infrastructure namespace (which must exist). */
  public SimulatedVirt(KubernetesClient infra, String namespace) {
    this.infra = infra;
    this.namespace = namespace;
    this.launcherPods = new VirtLauncherPods(infra, namespace);
    installCrds(infra);
    // virt-launcher pods need the namespace's ServiceAccount, which no controller-manager makes.
    infra
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName("default")
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .createOr(existing -> existing.update());
  }

  /** The CRDs of {@code kubevirt-crds.yaml}, as a text (for manifests and the lab). */
  public static String crdManifests() {
    try (InputStream in = SimulatedVirt.class.getResourceAsStream(CRDS)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates (or keeps) the KubeVirt CRDs and waits until they are served. */
  public static void installCrds(KubernetesClient infra) {
    for (HasMetadata item :
        infra
            .load(new ByteArrayInputStream(crdManifests().getBytes(StandardCharsets.UTF_8)))
            .items()) {
      CustomResourceDefinition crd = (CustomResourceDefinition) item;
      infra
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .resource(crd)
          .createOr(c -> c.update());
      infra
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crd.getMetadata().getName())
          .waitUntilCondition(
              c ->
                  c.getStatus() != null
                      && c.getStatus().getConditions() != null
                      && c.getStatus().getConditions().stream()
                          .anyMatch(
                              cond ->
                                  "Established".equals(cond.getType())
                                      && "True".equals(cond.getStatus())),
              60,
              TimeUnit.SECONDS);
    }
  }

  /**
   * An infrastructure node without a kubelet, Ready, with the topology labels of its zone and
   * region (K103). Tests that need traffic register infrastructure nodes with simulated kubelets
   * instead.
   */
  public static Node addNode(KubernetesClient infra, String name, String region, String zone) {
    Node node =
        infra
            .nodes()
            .resource(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withLabels(
                        Map.of(
                            "topology.kubernetes.io/region", region,
                            "topology.kubernetes.io/zone", zone,
                            "kubernetes.io/hostname", name))
                    .endMetadata()
                    .build())
            .create();
    node.setStatus(
        new NodeStatusBuilder()
            .addNewCondition()
            .withType("Ready")
            .withStatus("True")
            .withReason("KubeletReady")
            .withLastHeartbeatTime(Instant.now().toString())
            .withLastTransitionTime(Instant.now().toString())
            .endCondition()
            .build());
    return infra.nodes().resource(node).updateStatus();
  }

  /** Creates and starts a VM: VM, VMI, virt-launcher pod, their status (see the class comment). */
  public synchronized void start(VirtualMachineSpec spec) {
    specs.put(spec.name(), spec);
    if (spec.standalone()) {
      GenericKubernetesResource vmi = createVmi(spec, null);
      Pod pod = launcherPods.create(spec, vmi);
      writeVmiStatus(spec.name(), "Running", spec.infraNode(), spec.ip());
      launcherPods.markRunning(pod, spec.ip());
      return;
    }
    GenericKubernetesResource vm =
        infra.genericKubernetesResources(VMS).inNamespace(namespace).withName(spec.name()).get();
    if (vm == null) {
      vm = new GenericKubernetesResource();
      vm.setApiVersion("kubevirt.io/v1");
      vm.setKind("VirtualMachine");
      vm.setMetadata(
          new ObjectMetaBuilder()
              .withName(spec.name())
              .withNamespace(namespace)
              .withLabels(spec.templateLabels())
              .withFinalizers(VM_CONTROLLER_FINALIZER)
              .build());
      vm.setAdditionalProperty("spec", VirtShapes.vmSpec(spec, "Always"));
      vm = infra.genericKubernetesResources(VMS).inNamespace(namespace).resource(vm).create();
    } else {
      vm.setAdditionalProperty("spec", VirtShapes.vmSpec(spec, "Always"));
      vm = infra.genericKubernetesResources(VMS).inNamespace(namespace).resource(vm).update();
    }
    GenericKubernetesResource vmi = createVmi(spec, vm);
    Pod pod = launcherPods.create(spec, vmi);
    // virt-handler reports the VMI running on the node with the launcher pod's address.
    writeVmiStatus(spec.name(), "Running", spec.infraNode(), spec.ip());
    writeVmStatus(spec.name(), "Running", true, true);
    launcherPods.markRunning(pod, spec.ip());
  }

  /**
   * {@code virtctl stop}: runStrategy Halted; the VMI shuts down and goes, with its pod. A
   * standalone VMI shuts down and stays, Succeeded, without its pod.
   */
  public synchronized void stop(String name) {
    if (specs.get(name).standalone()) {
      writeVmiStatus(name, "Succeeded", specs.get(name).infraNode(), specs.get(name).ip());
      launcherPods.delete(name);
      return;
    }
    GenericKubernetesResource vm = vm(name);
    vm.setAdditionalProperty("spec", VirtShapes.vmSpec(specs.get(name), "Halted"));
    infra.genericKubernetesResources(VMS).inNamespace(namespace).resource(vm).update();
    deleteVmi(name);
    writeVmStatus(name, "Stopped", false, false);
  }

  /**
   * {@code kubectl delete vm}: the VM and its VMI get a {@code deletionTimestamp} and stay, held by
   * their finalizers, while the guest shuts down (see {@link #beginDeletion}); then they go.
   */
  public synchronized void delete(String name) {
    beginDeletion(name);
    finishDeletion(name);
  }

  /**
   * The first half of a deletion, where KubeVirt is slow (a guest's graceful shutdown takes up to
   * its {@code terminationGracePeriodSeconds}): the VirtualMachine (unless the VMI is standalone)
   * and the VMI are deleted, and both stay with a {@code deletionTimestamp}, the VMI still in its
   * phase.
   */
  public synchronized void beginDeletion(String name) {
    if (!specs.get(name).standalone()) {
      infra.genericKubernetesResources(VMS).inNamespace(namespace).withName(name).delete();
    }
    infra.genericKubernetesResources(VMIS).inNamespace(namespace).withName(name).delete();
  }

  /** The rest of a deletion {@link #beginDeletion} began: the guest is down, everything goes. */
  public synchronized void finishDeletion(String name) {
    finishVmiDeletion(name);
    if (!specs.get(name).standalone()) {
      removeFinalizers(VMS, name);
      awaitGone(VMS, name);
    }
    specs.remove(name);
  }

  /** Only the VMI (and its pod) goes, as when a VMI without a VM is deleted. */
  public synchronized void deleteVmi(String name) {
    infra.genericKubernetesResources(VMIS).inNamespace(namespace).withName(name).delete();
    finishVmiDeletion(name);
  }

  /**
   * The infrastructure node stops answering (its virt-handler's heartbeat stops): virt-controller
   * marks every VMI on it {@code Failed} (KubeVirt never reports such a VMI {@code Unknown}), and
   * its launcher pods are no longer Ready.
   */
  public synchronized void loseHost(String infraNode) {
    for (VirtualMachineSpec spec : specs.values()) {
      if (spec.infraNode().equals(infraNode)
          && infra
                  .genericKubernetesResources(VMIS)
                  .inNamespace(namespace)
                  .withName(spec.name())
                  .get()
              != null) {
        writeVmiStatus(spec.name(), "Failed", spec.infraNode(), spec.ip());
        for (Pod pod : launcherPods.of(spec.name())) {
          pod.getStatus().getConditions().stream()
              .filter(c -> "Ready".equals(c.getType()) || "ContainersReady".equals(c.getType()))
              .forEach(c -> c.setStatus("False"));
          infra.pods().resource(pod).updateStatus();
        }
      }
    }
  }

  /** Sets the VMI's phase, for example {@code Unknown} when its node stops reporting (K24). */
  public synchronized void setVmiPhase(String name, String phase) {
    VirtualMachineSpec spec = specs.get(name);
    writeVmiStatus(name, phase, spec.infraNode(), spec.ip());
  }

  /** The VMI now reports {@code ips} on its default interface (a new address, or none). */
  public synchronized void setVmiAddresses(String name, List<String> ips) {
    GenericKubernetesResource vmi = vmi(name);
    Map<String, Object> status = VirtShapes.status(vmi);
    status.put("interfaces", List.of(VirtShapes.defaultInterface(ips)));
    vmi.setAdditionalProperty("status", status);
    infra.genericKubernetesResources(VMIS).inNamespace(namespace).resource(vmi).update();
  }

  public String namespace() {
    return namespace;
  }

  private GenericKubernetesResource createVmi(
      VirtualMachineSpec spec, GenericKubernetesResource vm) {
    GenericKubernetesResource vmi = new GenericKubernetesResource();
    vmi.setApiVersion("kubevirt.io/v1");
    vmi.setKind("VirtualMachineInstance");
    Map<String, String> annotations = new LinkedHashMap<>();
    if (spec.instanceType() != null) {
      // As virt-controller: the annotation names the kind of the VM's spec.instancetype.
      annotations.put(
          spec.namespacedInstanceType() ? INSTANCETYPE_ANNOTATION : CLUSTER_INSTANCETYPE_ANNOTATION,
          spec.instanceType());
    }
    Map<String, String> labels = new LinkedHashMap<>(spec.templateLabels());
    labels.put(NODE_NAME_LABEL, spec.infraNode());
    vmi.setMetadata(
        new ObjectMetaBuilder()
            .withName(spec.name())
            .withNamespace(namespace)
            .withLabels(labels)
            .withAnnotations(annotations)
            .withOwnerReferences(vm == null ? List.of() : List.of(VirtShapes.owner(vm)))
            .withFinalizers(
                vm == null
                    ? List.of(VMI_FINALIZER)
                    : List.of(VM_CONTROLLER_FINALIZER, VMI_FINALIZER))
            .build());
    vmi.setAdditionalProperty("spec", VirtShapes.vmiSpec(spec));
    vmi = infra.genericKubernetesResources(VMIS).inNamespace(namespace).resource(vmi).create();
    writeVmiStatus(spec.name(), "Scheduling", "", null);
    return vmi;
  }

  private void writeVmiStatus(String name, String phase, String nodeName, String ip) {
    GenericKubernetesResource vmi = vmi(name);
    Map<String, Object> status = VirtShapes.status(vmi);
    status.put("phase", phase);
    if (nodeName != null && !nodeName.isEmpty()) {
      status.put("nodeName", nodeName);
    }
    if (ip != null) {
      status.put("interfaces", List.of(VirtShapes.defaultInterface(List.of(ip))));
    }
    status.put(
        "conditions",
        List.of(
            Map.of(
                "type",
                "Ready",
                "status",
                "Running".equals(phase) ? "True" : "False",
                "lastTransitionTime",
                Instant.now().toString())));
    vmi.setAdditionalProperty("status", status);
    // The VMI CRD has no status subresource: KubeVirt updates the whole object.
    infra.genericKubernetesResources(VMIS).inNamespace(namespace).resource(vmi).update();
  }

  private void writeVmStatus(String name, String printableStatus, boolean ready, boolean created) {
    GenericKubernetesResource vm = vm(name);
    Map<String, Object> status = VirtShapes.status(vm);
    status.put("printableStatus", printableStatus);
    status.put("ready", ready);
    status.put("created", created);
    vm.setAdditionalProperty("status", status);
    infra.genericKubernetesResources(VMS).inNamespace(namespace).resource(vm).updateStatus();
  }

  /**
   * virt-handler and virt-controller finish a VMI's deletion: the guest is down (Succeeded, unless
   * it had already ended), the launcher pod goes, the finalizers are removed. A VirtualMachine
   * being deleted stays until {@link #finishDeletion}.
   */
  public synchronized void finishVmiDeletion(String name) {
    GenericKubernetesResource vmi =
        infra.genericKubernetesResources(VMIS).inNamespace(namespace).withName(name).get();
    if (vmi != null) {
      String phase = String.valueOf(VirtShapes.status(vmi).get("phase"));
      if (!"Succeeded".equals(phase) && !"Failed".equals(phase)) {
        VirtualMachineSpec spec = specs.get(name);
        writeVmiStatus(name, "Succeeded", spec.infraNode(), spec.ip());
      }
    }
    launcherPods.delete(name);
    removeFinalizers(VMIS, name);
    awaitGone(VMIS, name);
  }

  private void removeFinalizers(ResourceDefinitionContext kind, String name) {
    GenericKubernetesResource object =
        infra.genericKubernetesResources(kind).inNamespace(namespace).withName(name).get();
    if (object != null && object.getMetadata().getFinalizers() != null) {
      object.getMetadata().setFinalizers(List.of());
      infra.genericKubernetesResources(kind).inNamespace(namespace).resource(object).update();
    }
  }

  private void awaitGone(ResourceDefinitionContext kind, String name) {
    await(
        () ->
            infra.genericKubernetesResources(kind).inNamespace(namespace).withName(name).get()
                == null,
        kind.getKind() + " " + namespace + "/" + name + " was not deleted");
  }

  /** No garbage collector runs here: a deletion is waited for, at most 30 s. */
  static void await(BooleanSupplier done, String failure) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(failure);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  private GenericKubernetesResource vmi(String name) {
    GenericKubernetesResource vmi =
        infra.genericKubernetesResources(VMIS).inNamespace(namespace).withName(name).get();
    if (vmi == null) {
      throw new IllegalArgumentException("no VMI " + namespace + "/" + name);
    }
    return vmi;
  }

  private GenericKubernetesResource vm(String name) {
    GenericKubernetesResource vm =
        infra.genericKubernetesResources(VMS).inNamespace(namespace).withName(name).get();
    if (vm == null) {
      throw new IllegalArgumentException("no VirtualMachine " + namespace + "/" + name);
    }
    return vm;
  }
}
