package io.ccm4j.doctor;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A cloud-controller-manager workload found in a manifest, typed, with its pod template. */
public record CcmWorkload(
    ManifestDocument source, HasMetadata object, PodSpec pod, Map<String, String> podLabels) {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static final Map<String, Class<? extends HasMetadata>> WORKLOAD_KINDS =
      Map.of(
          "Deployment", Deployment.class,
          "DaemonSet", DaemonSet.class,
          "StatefulSet", StatefulSet.class,
          "ReplicaSet", ReplicaSet.class,
          "Pod", Pod.class);

  /** The workload, if the document is a workload that runs a cloud-controller-manager. */
  static Optional<CcmWorkload> detect(ManifestDocument document) {
    Class<? extends HasMetadata> type = WORKLOAD_KINDS.get(document.kind());
    if (type == null) {
      return Optional.empty();
    }
    HasMetadata object = SERIALIZATION.convertValue(document.object(), type);
    // The template shares its pod spec with the object, so fixing one fixes the other.
    PodTemplateSpec template =
        object instanceof Pod pod
            ? new PodTemplateSpec(pod.getMetadata(), pod.getSpec())
            : templateOf(object);
    if (template == null || !runsCcm(template.getSpec())) {
      return Optional.empty();
    }
    Map<String, String> labels =
        template.getMetadata() == null || template.getMetadata().getLabels() == null
            ? Map.of()
            : template.getMetadata().getLabels();
    return Optional.of(new CcmWorkload(document, object, template.getSpec(), labels));
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
   * Whether a pod runs a cloud-controller-manager (ccm4j or another), judged by its command line.
   */
  public static boolean runsCcm(PodSpec pod) {
    if (pod == null || pod.getContainers() == null) {
      return false;
    }
    return pod.getContainers().stream()
        .map(CcmWorkload::commandLine)
        .anyMatch(
            line ->
                line.contains("cloud-controller-manager")
                    || line.contains("--cloud-provider")
                    || (line.contains("ccm4j") && line.contains(" run")));
  }

  static String commandLine(Container container) {
    List<String> words = new ArrayList<>();
    if (container.getCommand() != null) {
      words.addAll(container.getCommand());
    }
    if (container.getArgs() != null) {
      words.addAll(container.getArgs());
    }
    return " " + String.join(" ", words) + " ";
  }

  public String kind() {
    return object.getKind();
  }

  public String name() {
    return object.getMetadata() == null ? "" : object.getMetadata().getName();
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

  /** Whether any container runs with leader election switched off. */
  public boolean leaderElectionOff() {
    return pod.getContainers().stream()
        .map(CcmWorkload::commandLine)
        .anyMatch(
            line ->
                line.contains(" --leader-elect=false ") || line.contains(" --leader-elect false "));
  }

  /** The object as YAML. */
  public String toYaml() {
    return SERIALIZATION.asYaml(object);
  }
}
