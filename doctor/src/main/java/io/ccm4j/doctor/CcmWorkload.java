package io.ccm4j.doctor;

import com.fasterxml.jackson.databind.JsonMappingException;
import io.ccm4j.controllers.ControllerDescriptor;
import io.ccm4j.controllers.Controllers;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * A cloud-controller-manager workload found in a manifest, typed, with its pod template.
 *
 * @param recognition why it was taken for a CCM, and its CCM container
 * @param declaredStatic the user said the Pod is a static pod ({@code doctor --static-pod})
 */
public record CcmWorkload(
    ManifestDocument source,
    HasMetadata object,
    PodSpec pod,
    Map<String, String> podLabels,
    CcmRecognition.Verdict recognition,
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
  static Optional<CcmWorkload> detect(ManifestDocument document, CcmRbac rbac)
      throws ManifestException {
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
    Optional<CcmRecognition.Verdict> verdict =
        judge(object, spec, rbac).filter(CcmRecognition.Verdict::isCcm);
    if (verdict.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> labels =
        template.getMetadata() == null || template.getMetadata().getLabels() == null
            ? Map.of()
            : template.getMetadata().getLabels();
    return Optional.of(new CcmWorkload(document, object, spec, labels, verdict.get(), false));
  }

  /** The pod's likeliest CCM container with its signs, the RBAC of its ServiceAccount counted. */
  private static Optional<CcmRecognition.Verdict> judge(
      HasMetadata object, PodSpec spec, CcmRbac rbac) {
    String namespace = object.getMetadata() == null ? null : object.getMetadata().getNamespace();
    String account =
        spec.getServiceAccountName() != null
            ? spec.getServiceAccountName()
            : spec.getServiceAccount();
    return CcmRecognition.judge(spec, rbac.signFor(namespace, account));
  }

  /**
   * For a workload with signs of a CCM that is not taken for one (kube-controller-manager,
   * cluster-autoscaler, a node agent or CSI driver, or too few signs): what to tell the user when
   * no CCM was found, naming the workload, where it is, its signs and why it is not taken for one.
   */
  static Optional<String> notTakenForCcm(ManifestDocument document, CcmRbac rbac) {
    Optional<HasMetadata> workload;
    try {
      workload = workloadObject(document);
    } catch (ManifestException e) {
      return Optional.empty(); // detect() reports it
    }
    if (workload.isEmpty() || ownedByWorkloadController(workload.get().getMetadata())) {
      return Optional.empty();
    }
    HasMetadata object = workload.get();
    PodTemplateSpec template = podTemplate(object);
    if (template == null || template.getSpec() == null) {
      return Optional.empty();
    }
    return judge(object, template.getSpec(), rbac)
        .filter(verdict -> !verdict.isCcm())
        .map(
            verdict ->
                "%s/%s (%s) has signs of a cloud-controller-manager (%s) but is not taken for one: %s"
                    .formatted(
                        document.kind(),
                        object.getMetadata() == null ? "" : object.getMetadata().getName(),
                        document.location(),
                        verdict.reasons(),
                        verdict
                            .notACcm()
                            .orElse(
                                "too few signs (weighing %d, %d needed)"
                                    .formatted(verdict.weight(), CcmRecognition.ENOUGH))));
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
        document.file(),
        document.line(),
        "not a valid %s%s: %s"
            .formatted(
                document.kind(), field.isEmpty() ? "" : " (field " + field + ")", firstLine));
  }

  /** A list of the pod spec must not hold empty items ({@code containers: [null]}). */
  private static void requireItems(ManifestDocument document, String field, List<?> items)
      throws ManifestException {
    if (items != null && items.contains(null)) {
      throw new ManifestException(
          document.file(),
          document.line(),
          "not a valid %s: %s has an empty item".formatted(document.kind(), field));
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
   * Whether a pod runs a cloud-controller-manager (ccm4j or another), judged by its containers
   * alone ({@link CcmRecognition}).
   */
  public static boolean runsCcm(PodSpec pod) {
    return ccmContainer(pod).isPresent();
  }

  /** The pod's first cloud-controller-manager container, if it has one. */
  public static Optional<Container> ccmContainer(PodSpec pod) {
    return CcmRecognition.ccmContainer(pod);
  }

  /** Why it was taken for a CCM: {@code image name …, flag --cloud-config}. */
  public String recognisedBy() {
    return recognition.reasons();
  }

  /** The container's command and arguments, in order ({@link CcmCommandLine}). */
  public static List<String> words(Container container) {
    return new CcmCommandLine(container).words();
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
   * kubeconfigs such a pod reads), unless it references a ServiceAccount, ConfigMap or Secret,
   * which the kubelet refuses for a static pod: such a Pod is meant for {@code kubectl apply}.
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
    if (controllerOwner(metadata).isPresent() || apiObjectReference().isPresent()) {
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
   * The first API object the pod references that a static pod cannot ({@code ServiceAccount x},
   * {@code ConfigMap y}, {@code Secret z}); empty when it references none.
   */
  public Optional<String> apiObjectReference() {
    String account =
        pod.getServiceAccountName() != null ? pod.getServiceAccountName() : pod.getServiceAccount();
    if (account != null && !account.isEmpty()) {
      return Optional.of("ServiceAccount " + account);
    }
    List<String> references = new ArrayList<>();
    if (pod.getVolumes() != null) {
      for (var volume : pod.getVolumes()) {
        if (volume == null) {
          continue;
        }
        if (volume.getConfigMap() != null) {
          references.add("ConfigMap " + volume.getConfigMap().getName());
        }
        if (volume.getSecret() != null) {
          references.add("Secret " + volume.getSecret().getSecretName());
        }
        if (volume.getProjected() != null && volume.getProjected().getSources() != null) {
          for (var source : volume.getProjected().getSources()) {
            if (source != null && source.getConfigMap() != null) {
              references.add("ConfigMap " + source.getConfigMap().getName());
            }
            if (source != null && source.getSecret() != null) {
              references.add("Secret " + source.getSecret().getName());
            }
          }
        }
      }
    }
    for (Container container : allContainers()) {
      if (container.getEnvFrom() != null) {
        for (var from : container.getEnvFrom()) {
          if (from != null && from.getConfigMapRef() != null) {
            references.add("ConfigMap " + from.getConfigMapRef().getName());
          }
          if (from != null && from.getSecretRef() != null) {
            references.add("Secret " + from.getSecretRef().getName());
          }
        }
      }
      if (container.getEnv() != null) {
        for (var env : container.getEnv()) {
          var source = env == null ? null : env.getValueFrom();
          if (source != null && source.getConfigMapKeyRef() != null) {
            references.add("ConfigMap " + source.getConfigMapKeyRef().getName());
          }
          if (source != null && source.getSecretKeyRef() != null) {
            references.add("Secret " + source.getSecretKeyRef().getName());
          }
        }
      }
    }
    return references.stream().findFirst();
  }

  private List<Container> allContainers() {
    List<Container> all = new ArrayList<>();
    if (pod.getInitContainers() != null) {
      all.addAll(pod.getInitContainers());
    }
    if (pod.getContainers() != null) {
      all.addAll(pod.getContainers());
    }
    all.removeIf(java.util.Objects::isNull);
    return all;
  }

  /**
   * Where this CCM reaches a cluster other than the one it runs in: its {@code --kubeconfig} (or
   * {@code KUBECONFIG}) is a file mounted from a Secret, ConfigMap, projected or emptyDir volume —
   * a hosted control plane's layout, or KubeVirt's, where the CCM runs in the infrastructure
   * cluster. A kubeconfig from the host (kubeadm's {@code /etc/kubernetes/*.conf}, for a static
   * pod) is the cluster's own; a CCM without one uses its ServiceAccount, in its own cluster. Empty
   * when it manages the cluster it runs in.
   */
  public Optional<String> managedClusterKubeconfig() {
    Container container = recognition.container();
    List<String> words = words(container);
    Optional<String> flag =
        CcmFlags.value(words, "--kubeconfig").map(path -> "--kubeconfig=" + path);
    Optional<String> env =
        container.getEnv() == null
            ? Optional.empty()
            : container.getEnv().stream()
                .filter(e -> e != null && "KUBECONFIG".equals(e.getName()) && e.getValue() != null)
                .map(e -> "KUBECONFIG=" + e.getValue())
                .findFirst();
    Optional<String> given = flag.or(() -> env);
    if (given.isEmpty() || container.getVolumeMounts() == null || pod.getVolumes() == null) {
      return Optional.empty();
    }
    String path = given.get().substring(given.get().indexOf('=') + 1);
    return container.getVolumeMounts().stream()
        .filter(m -> m != null && m.getMountPath() != null && m.getName() != null)
        .filter(
            m ->
                path.equals(m.getMountPath())
                    || path.startsWith(stripSlash(m.getMountPath()) + "/"))
        .max(java.util.Comparator.comparingInt(m -> m.getMountPath().length()))
        .flatMap(
            mount ->
                pod.getVolumes().stream()
                    .filter(v -> v != null && mount.getName().equals(v.getName()))
                    .findFirst())
        .flatMap(
            volume -> {
              if (volume.getSecret() != null) {
                return Optional.of("Secret " + volume.getSecret().getSecretName());
              }
              if (volume.getConfigMap() != null) {
                return Optional.of("ConfigMap " + volume.getConfigMap().getName());
              }
              if (volume.getProjected() != null) {
                return Optional.of("projected volume " + volume.getName());
              }
              if (volume.getEmptyDir() != null) {
                return Optional.of("emptyDir " + volume.getName() + ", written at start");
              }
              return Optional.empty();
            })
        .map(from -> given.get() + ", mounted from " + from);
  }

  private static String stripSlash(String path) {
    return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }

  /**
   * This workload, judged as a static pod when it is a bare Pod (the user knows it is a file in the
   * kubelet's {@code --pod-manifest-path}); any other kind as it is.
   */
  public CcmWorkload asStaticPod() {
    return object instanceof Pod
        ? new CcmWorkload(source, object, pod, podLabels, recognition, true)
        : this;
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

  /** Whether it hands out pod CIDRs ({@code --allocate-node-cidrs}): the CNI then waits for it. */
  public boolean allocatesNodeCidrs() {
    return ccmWords().stream()
        .anyMatch(
            words ->
                CcmFlags.bool(words, CcmFlags.ALLOCATE_NODE_CIDRS, false)
                    && runs(words, Controllers.NODE_IPAM));
  }

  /**
   * Whether it creates routes for pod CIDRs: until it does, new nodes carry {@code
   * node.kubernetes.io/network-unavailable}. See {@link #whyNoRoutes}.
   */
  public boolean createsRoutes() {
    return whyNoRoutes().isEmpty();
  }

  /**
   * Why its route controller creates no routes, when it does not: {@code --configure-cloud-routes}
   * (on by default) is false, {@code --controllers} leaves it out, or it has no pod CIDRs to route
   * (neither {@code --allocate-node-cidrs} nor {@code --cluster-cidr}). Otherwise it routes the pod
   * CIDRs of {@code --cluster-cidr} whenever its cloud has routes, as upstream's has since
   * Kubernetes 1.21 ({@code --allocate-node-cidrs} gated it before); the doctor cannot tell a cloud
   * without routes from the manifest, so a CCM given a cluster CIDR is taken at its word.
   */
  public Optional<String> whyNoRoutes() {
    List<String> words = words(recognition.container());
    if (!CcmFlags.bool(words, CcmFlags.CONFIGURE_CLOUD_ROUTES, true)) {
      return Optional.of("--configure-cloud-routes is false");
    }
    if (!runs(words, Controllers.NODE_ROUTE)) {
      return Optional.of(
          leftOut(Controllers.NODE_ROUTE, "--controllers leaves out its route controller"));
    }
    if (CcmFlags.bool(words, CcmFlags.ALLOCATE_NODE_CIDRS, false)
        || CcmFlags.value(words, "--cluster-cidr").filter(cidr -> !cidr.isBlank()).isPresent()) {
      return Optional.empty();
    }
    return Optional.of(
        "its route controller does not start without --cluster-cidr or --allocate-node-cidrs");
  }

  /**
   * CCMs whose binary registers only some of upstream's controllers, by the last part of their
   * image's repository: {@code *} is then only these. kube-vip's cloud provider is built on
   * upstream's framework with its service load-balancer controller alone (its {@code main.go}).
   */
  private static final Map<String, Set<ControllerDescriptor>> BUILT_WITH_ONLY =
      Map.of("kube-vip-cloud-provider", Set.of(Controllers.SERVICE_LB));

  /**
   * Whether the CCM runs the controller: its binary has it and {@code --controllers} selects it.
   */
  private boolean runs(List<String> words, ControllerDescriptor controller) {
    return builtWithOnly().map(only -> only.contains(controller)).orElse(true)
        && CcmFlags.runsController(words, Set.of(controller.name(), controller.alias()));
  }

  /** The controllers its binary has, when it has fewer than upstream's. */
  private Optional<Set<ControllerDescriptor>> builtWithOnly() {
    return Optional.ofNullable(BUILT_WITH_ONLY.get(imageName()));
  }

  /**
   * {@code kube-vip-cloud-provider} of {@code ghcr.io/kube-vip/kube-vip-cloud-provider:v0.0.12}.
   */
  private String imageName() {
    String image = Optional.ofNullable(recognition.container().getImage()).orElse("");
    int digest = image.indexOf('@');
    if (digest >= 0) {
      image = image.substring(0, digest);
    }
    String name = image.substring(image.lastIndexOf('/') + 1);
    int tag = name.indexOf(':');
    return tag >= 0 ? name.substring(0, tag) : name;
  }

  /** Why it does not run a controller it could: its binary lacks it, or {@code --controllers}. */
  String leftOut(ControllerDescriptor controller, String by) {
    return builtWithOnly()
        .filter(only -> !only.contains(controller))
        .map(
            only ->
                "%s runs only its %s controller"
                    .formatted(
                        imageName(),
                        only.stream()
                            .map(ControllerDescriptor::alias)
                            .sorted()
                            .collect(Collectors.joining(", "))))
        .orElse(by);
  }

  private List<List<String>> ccmWords() {
    return List.of(words(recognition.container()));
  }

  /**
   * Whether the CCM runs with leader election switched off. Only the CCM container's flags count: a
   * sidecar's {@code --leader-elect} is its own business.
   */
  public boolean leaderElectionOff() {
    return CcmFlags.leaderElectionOff(words(recognition.container()));
  }

  /**
   * The placeholders left to fill in the CCM container's image, command line and environment
   * ({@link Placeholders}).
   */
  List<String> placeholders() {
    CcmCommandLine line = commandLine();
    return Placeholders.of(recognition.container(), line.words(), line.fromScript());
  }

  /**
   * The object's API version when Kubernetes no longer serves it for its kind ({@code
   * extensions/v1beta1}, {@code apps/v1beta1}, {@code apps/v1beta2}: removed in 1.16); empty for
   * {@code apps/v1} and a Pod.
   */
  Optional<String> removedApiVersion() {
    String version = object.getApiVersion();
    return REMOVED_WORKLOAD_VERSIONS.contains(version) && !(object instanceof Pod)
        ? Optional.of(version)
        : Optional.empty();
  }

  /** The workload's spec.selector, which apps/v1 requires; empty when it has none (or is a Pod). */
  Optional<LabelSelector> selector() {
    return Optional.ofNullable(
        switch (object) {
          case Deployment d -> d.getSpec() == null ? null : d.getSpec().getSelector();
          case DaemonSet d -> d.getSpec() == null ? null : d.getSpec().getSelector();
          case StatefulSet s -> s.getSpec() == null ? null : s.getSpec().getSelector();
          case ReplicaSet r -> r.getSpec() == null ? null : r.getSpec().getSelector();
          default -> null;
        });
  }

  /**
   * Makes the workload apps/v1, selecting its pod template's labels when it has no selector (what
   * the old versions defaulted to, and apps/v1 requires).
   */
  void serveAsAppsV1() {
    object.setApiVersion("apps/v1");
    if (selector().isPresent() || podLabels.isEmpty()) {
      return;
    }
    LabelSelector selector = new LabelSelector(null, new LinkedHashMap<>(podLabels));
    switch (object) {
      case Deployment d -> d.getSpec().setSelector(selector);
      case DaemonSet d -> d.getSpec().setSelector(selector);
      case StatefulSet s -> s.getSpec().setSelector(selector);
      case ReplicaSet r -> r.getSpec().setSelector(selector);
      default -> {}
    }
  }

  /** The API versions the workload kinds had before apps/v1, no longer served since 1.16. */
  private static final Set<String> REMOVED_WORKLOAD_VERSIONS =
      Set.of("extensions/v1beta1", "apps/v1beta1", "apps/v1beta2");

  /** The CCM container's command line. */
  CcmCommandLine commandLine() {
    return new CcmCommandLine(recognition.container());
  }

  /**
   * The words the CCM takes for arguments after a bool flag written without {@code =} ({@code
   * --leader-elect false}): the upstream manager refuses them and exits.
   */
  List<CcmFlags.StrayArgument> strayArguments() {
    return CcmFlags.strayArguments(words(recognition.container()));
  }

  /** The object as YAML. */
  public String toYaml() {
    return SERIALIZATION.asYaml(object);
  }

  /** The object as the plain values it is written with. */
  @SuppressWarnings("unchecked")
  Map<String, Object> asMap() {
    return SERIALIZATION.convertValue(object, Map.class);
  }

  /**
   * The document's object as {@link #asMap} writes it once read as its kind: what a fixed
   * workload's values are compared with, so that only what the fix changed differs.
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> normalised(ManifestDocument document) {
    Class<? extends HasMetadata> type = WORKLOAD_KINDS.get(document.kind());
    Object typed =
        type == null ? document.object() : SERIALIZATION.convertValue(document.object(), type);
    return SERIALIZATION.convertValue(typed, Map.class);
  }

  /** Any object of a manifest as YAML, the way {@link #toYaml} writes a workload. */
  static String yaml(Object object) {
    return SERIALIZATION.asYaml(object);
  }
}
