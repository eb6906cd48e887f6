package io.ccm4j.doctor;

import com.fasterxml.jackson.databind.JsonMappingException;
import io.ccm4j.controllers.ControllerDescriptor;
import io.ccm4j.controllers.Controllers;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A cloud-controller-manager workload found in a manifest, typed, with its pod template.
 *
 * @param declaredStatic the user said the Pod is a static pod ({@code doctor --static-pod})
 */
public record CcmWorkload(
    ManifestDocument source,
    HasMetadata object,
    PodSpec pod,
    Map<String, String> podLabels,
    boolean declaredStatic) {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static final Map<String, Class<? extends HasMetadata>> WORKLOAD_KINDS =
      Map.of(
          "Deployment", Deployment.class,
          "DaemonSet", DaemonSet.class,
          "StatefulSet", StatefulSet.class,
          "ReplicaSet", ReplicaSet.class,
          "Pod", Pod.class);

  /** The kubelet marks the API copy of a static pod (its mirror pod) with this annotation. */
  private static final String MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";

  /**
   * The workload, if the document is a workload that runs a cloud-controller-manager and no
   * controller owns it (a Deployment's ReplicaSets and Pods in {@code kubectl get -o yaml} output
   * are judged through the Deployment).
   *
   * @throws ManifestException naming the document when it is no valid object of its kind
   */
  static Optional<CcmWorkload> detect(ManifestDocument document) throws ManifestException {
    Optional<HasMetadata> workload = workloadObject(document);
    if (workload.isEmpty() || ownedByWorkloadController(workload.get().getMetadata())) {
      return Optional.empty();
    }
    HasMetadata object = workload.get();
    PodTemplateSpec template = podTemplate(object);
    if (template == null || template.getSpec() == null) {
      return Optional.empty();
    }
    PodSpec spec = template.getSpec();
    requireItems(document, "containers", spec.getContainers());
    requireItems(document, "initContainers", spec.getInitContainers());
    requireItems(document, "tolerations", spec.getTolerations());
    if (!runsCcm(spec)) {
      return Optional.empty();
    }
    Map<String, String> labels =
        template.getMetadata() == null || template.getMetadata().getLabels() == null
            ? Map.of()
            : template.getMetadata().getLabels();
    return Optional.of(new CcmWorkload(document, object, spec, labels, false));
  }

  /**
   * For a workload that is no CCM but passes {@code --cloud-provider} (kube-controller-manager,
   * cluster-autoscaler, a node agent, or a CCM the doctor does not know): what to tell the user
   * when no CCM was found, naming the workload, where it is and the flag's value.
   */
  static Optional<String> notACcmButPassesCloudProvider(ManifestDocument document) {
    Optional<HasMetadata> workload;
    try {
      workload = workloadObject(document);
    } catch (ManifestException e) {
      return Optional.empty(); // detect() reports it
    }
    if (workload.isEmpty()) {
      return Optional.empty();
    }
    HasMetadata object = workload.get();
    PodTemplateSpec template = podTemplate(object);
    if (template == null || template.getSpec() == null || runsCcm(template.getSpec())) {
      return Optional.empty();
    }
    return cloudProviderOfNonCcm(template.getSpec())
        .map(
            provider ->
                ("%s/%s (%s) passes --cloud-provider=%s but is taken for kube-controller-manager,"
                        + " cluster-autoscaler or a node agent (or passes external), not a"
                        + " cloud-controller-manager")
                    .formatted(
                        document.kind(),
                        object.getMetadata() == null ? "" : object.getMetadata().getName(),
                        document.location(),
                        provider));
  }

  /** The document as its workload type; empty when it is no workload kind. */
  private static Optional<HasMetadata> workloadObject(ManifestDocument document)
      throws ManifestException {
    Class<? extends HasMetadata> type = WORKLOAD_KINDS.get(document.kind());
    if (type == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(SERIALIZATION.convertValue(document.object(), type));
    } catch (IllegalArgumentException e) {
      throw malformed(document, e);
    }
  }

  /**
   * The workload's pod template; a bare Pod's is made of its own metadata and spec. The template
   * shares its pod spec with the object, so fixing one fixes the other.
   */
  private static PodTemplateSpec podTemplate(HasMetadata object) {
    return object instanceof Pod pod
        ? new PodTemplateSpec(pod.getMetadata(), pod.getSpec())
        : templateOf(object);
  }

  private static ManifestException malformed(
      ManifestDocument document, IllegalArgumentException e) {
    String field = "";
    String message = e.getMessage();
    if (e.getCause() instanceof JsonMappingException mapping) {
      field =
          mapping.getPath().stream()
              .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
              .collect(Collectors.joining("."))
              .replace(".[", "[");
      message = mapping.getOriginalMessage();
    }
    String firstLine = String.valueOf(message).lines().findFirst().orElse("").trim();
    return new ManifestException(
        "%s: not a valid %s%s: %s"
            .formatted(
                document.location(),
                document.kind(),
                field.isEmpty() ? "" : " (field " + field + ")",
                firstLine));
  }

  /** A list of the pod spec must not hold empty items ({@code containers: [null]}). */
  private static void requireItems(ManifestDocument document, String field, List<?> items)
      throws ManifestException {
    if (items != null && items.contains(null)) {
      throw new ManifestException(
          "%s: not a valid %s: %s has an empty item"
              .formatted(document.location(), document.kind(), field));
    }
  }

  private static boolean ownedByWorkloadController(ObjectMeta metadata) {
    return controllerOwner(metadata).filter(owner -> !"Node".equals(owner.getKind())).isPresent();
  }

  private static Optional<OwnerReference> controllerOwner(ObjectMeta metadata) {
    if (metadata == null || metadata.getOwnerReferences() == null) {
      return Optional.empty();
    }
    return metadata.getOwnerReferences().stream()
        .filter(owner -> owner != null && Boolean.TRUE.equals(owner.getController()))
        .findFirst();
  }

  private static PodTemplateSpec templateOf(HasMetadata object) {
    return switch (object) {
      case Deployment d -> d.getSpec() == null ? null : d.getSpec().getTemplate();
      case DaemonSet d -> d.getSpec() == null ? null : d.getSpec().getTemplate();
      case StatefulSet s -> s.getSpec() == null ? null : s.getSpec().getTemplate();
      case ReplicaSet r -> r.getSpec() == null ? null : r.getSpec().getTemplate();
      default -> null;
    };
  }

  /**
   * Whether a pod runs a cloud-controller-manager (ccm4j or another): a container whose name, image
   * name or command line says {@code cloud-controller-manager}, {@code ccm}, {@code ccm4j} or
   * {@code cloud-provider-<x>} (an Equinix Metal style {@code cloud-provider-equinix-metal}), or
   * that passes {@code --cloud-provider=<name>} with a name other than {@code external} (any
   * vendor's CCM) — unless it is kube-controller-manager, cluster-autoscaler or a node agent (a
   * kubelet, a cloud-node-manager), which take that flag too.
   */
  public static boolean runsCcm(PodSpec pod) {
    if (pod == null || pod.getContainers() == null) {
      return false;
    }
    return pod.getContainers().stream().anyMatch(CcmWorkload::isCcm);
  }

  /**
   * The {@code --cloud-provider} value of a container that passes one but is not taken for a CCM,
   * for the doctor to say why it found none.
   */
  static Optional<String> cloudProviderOfNonCcm(PodSpec pod) {
    if (pod == null || pod.getContainers() == null) {
      return Optional.empty();
    }
    return pod.getContainers().stream()
        .filter(container -> container != null && !isCcm(container))
        .map(container -> CcmFlags.value(words(container), "--cloud-provider"))
        .flatMap(Optional::stream)
        .findFirst();
  }

  private static boolean isCcm(Container container) {
    if (container == null) {
      return false;
    }
    List<String> words = words(container);
    String identity =
        (container.getName()
                + " "
                + imageName(container.getImage())
                + " "
                + String.join(" ", words))
            .toLowerCase(Locale.ROOT);
    if (identity.contains("cluster-autoscaler")
        || identity.contains("kube-controller-manager")
        || identity.contains("cloud-node-manager")
        || identity.contains("kubelet")) {
      return false;
    }
    String names =
        (container.getName() + " " + imageName(container.getImage())).toLowerCase(Locale.ROOT);
    if (identity.contains("cloud-controller-manager")
        || names.contains("cloud-provider-")
        || Arrays.stream(identity.split("[^a-z0-9]+"))
            .anyMatch(w -> w.equals("ccm") || w.equals("ccm4j"))) {
      return true;
    }
    return CcmFlags.value(words, "--cloud-provider")
        .filter(provider -> !provider.isBlank() && !provider.equals("external"))
        .isPresent();
  }

  /**
   * The image's own name, without registry, path or tag: {@code cloud-controller-manager} for
   * {@code registry.k8s.io/provider-aws/cloud-controller-manager:v1.30.0}, but {@code sim-cni} for
   * {@code ccm4j/sim-cni:1}.
   */
  private static String imageName(String image) {
    if (image == null) {
      return "";
    }
    String name = image.substring(image.lastIndexOf('/') + 1);
    int end = name.indexOf('@') >= 0 ? name.indexOf('@') : name.indexOf(':');
    return end >= 0 ? name.substring(0, end) : name;
  }

  /** The pod's first cloud-controller-manager container, if it has one. */
  public static Optional<Container> ccmContainer(PodSpec pod) {
    if (pod == null || pod.getContainers() == null) {
      return Optional.empty();
    }
    return pod.getContainers().stream().filter(CcmWorkload::isCcm).findFirst();
  }

  /** The container's command and arguments, in order. */
  public static List<String> words(Container container) {
    List<String> words = new ArrayList<>();
    if (container.getCommand() != null) {
      words.addAll(container.getCommand());
    }
    if (container.getArgs() != null) {
      words.addAll(container.getArgs());
    }
    return words;
  }

  public String kind() {
    return object.getKind();
  }

  /** The object's name, or its {@code generateName} prefix when it has none. */
  public String name() {
    ObjectMeta metadata = object.getMetadata();
    if (metadata == null) {
      return "";
    }
    if (metadata.getName() != null) {
      return metadata.getName();
    }
    return metadata.getGenerateName() == null ? "" : metadata.getGenerateName();
  }

  /** How many pods may run at once: replicas (default 1); a DaemonSet runs one per node. */
  public int maxPods() {
    return switch (object) {
      case Deployment d -> d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
      case StatefulSet s -> s.getSpec().getReplicas() == null ? 1 : s.getSpec().getReplicas();
      case ReplicaSet r -> r.getSpec().getReplicas() == null ? 1 : r.getSpec().getReplicas();
      case DaemonSet ignored -> Integer.MAX_VALUE;
      default -> 1;
    };
  }

  /**
   * A static pod: the kubelet runs it from a file, and re-creates it; its API copy is a mirror. In
   * a manifest, a bare Pod shaped like a kubeadm static pod counts: no owner, and the label {@code
   * tier: control-plane} or a hostPath mount of {@code /etc/kubernetes} (where kubeadm keeps the
   * kubeconfigs such a pod reads).
   */
  public boolean isStaticPod() {
    if (!(object instanceof Pod)) {
      return false;
    }
    if (declaredStatic) {
      return true;
    }
    ObjectMeta metadata = object.getMetadata();
    if ((metadata != null
            && metadata.getAnnotations() != null
            && metadata.getAnnotations().containsKey(MIRROR_POD_ANNOTATION))
        || controllerOwner(metadata).filter(owner -> "Node".equals(owner.getKind())).isPresent()) {
      return true;
    }
    if (controllerOwner(metadata).isPresent()) {
      return false;
    }
    boolean controlPlaneTier =
        metadata != null
            && metadata.getLabels() != null
            && "control-plane".equals(metadata.getLabels().get("tier"));
    boolean kubeadmFiles =
        pod.getVolumes() != null
            && pod.getVolumes().stream()
                .anyMatch(
                    volume ->
                        volume != null
                            && volume.getHostPath() != null
                            && volume.getHostPath().getPath() != null
                            && volume.getHostPath().getPath().startsWith("/etc/kubernetes"));
    return controlPlaneTier || kubeadmFiles;
  }

  /**
   * This workload, judged as a static pod when it is a bare Pod (the user knows it is a file in the
   * kubelet's {@code --pod-manifest-path}); any other kind as it is.
   */
  public CcmWorkload asStaticPod() {
    return object instanceof Pod ? new CcmWorkload(source, object, pod, podLabels, true) : this;
  }

  /**
   * Whether the scheduler never sees the pod: a static pod, or a Pod with {@code spec.nodeName}.
   * NoSchedule taints and node selection do not apply to it.
   */
  public boolean bypassesScheduler() {
    return isStaticPod() || (object instanceof Pod && pod.getNodeName() != null);
  }

  /**
   * Whether this CCM initialises nodes (its cloud-node controller runs): with {@code
   * --controllers=*,-cloud-node} another component (a cloud-node-manager DaemonSet) removes the
   * uninitialized taint.
   */
  public boolean initialisesNodes() {
    return ccmWords().stream().anyMatch(words -> runs(words, Controllers.CLOUD_NODE));
  }

  /** Whether its {@code --controllers} runs the route controller (whatever its other flags). */
  public boolean runsRouteController() {
    return ccmWords().stream().anyMatch(words -> runs(words, Controllers.NODE_ROUTE));
  }

  /** Whether it hands out pod CIDRs ({@code --allocate-node-cidrs}): the CNI then waits for it. */
  public boolean allocatesNodeCidrs() {
    return ccmWords().stream()
        .anyMatch(
            words ->
                CcmFlags.bool(words, "--allocate-node-cidrs", false)
                    && runs(words, Controllers.NODE_IPAM));
  }

  /**
   * Whether it creates routes for pod CIDRs (upstream runs the route controller with {@code
   * --allocate-node-cidrs} and {@code --configure-cloud-routes}, on by default): until it does, new
   * nodes carry {@code node.kubernetes.io/network-unavailable}.
   */
  public boolean createsRoutes() {
    return ccmWords().stream()
        .anyMatch(
            words ->
                CcmFlags.bool(words, "--allocate-node-cidrs", false)
                    && CcmFlags.bool(words, "--configure-cloud-routes", true)
                    && runs(words, Controllers.NODE_ROUTE));
  }

  /** Whether the words' {@code --controllers} runs the controller, by its name or alias. */
  private static boolean runs(List<String> words, ControllerDescriptor controller) {
    return CcmFlags.runsController(words, Set.of(controller.name(), controller.alias()));
  }

  private List<List<String>> ccmWords() {
    return pod.getContainers().stream().filter(CcmWorkload::isCcm).map(CcmWorkload::words).toList();
  }

  /** Whether any container runs with leader election switched off. */
  public boolean leaderElectionOff() {
    return pod.getContainers().stream()
        .anyMatch(container -> CcmFlags.leaderElectionOff(words(container)));
  }

  /** The object as YAML. */
  public String toYaml() {
    return SERIALIZATION.asYaml(object);
  }

  /** Any object of a manifest as YAML, the way {@link #toYaml} writes a workload. */
  static String yaml(Object object) {
    return SERIALIZATION.asYaml(object);
  }
}
