package io.ccm4j.lab;

import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The lab's play of the pods: the simulated kubelets' container runtime (a bound pod runs once its
 * node's network allows, with its Secret volumes as files of this machine) and the simulated CNI (a
 * node's network is ready once its CNI pod runs and the node has an address).
 */
final class LabPodRuntime {

  private final Set<String> startedPods = ConcurrentHashMap.newKeySet();
  private final Set<String> cniNodes = ConcurrentHashMap.newKeySet();
  private final Set<String> networkReady = ConcurrentHashMap.newKeySet();
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /** The files of the Secret volumes the lab mounts for the pods it runs (created when needed). */
  private Path podFiles;

  /**
   * The simulated kubelets' container runtime: start what the scheduler bound, if its network
   * allows; a CCM pod through {@code startCcm}.
   */
  void runBoundPods(KubernetesClient admin, Timeline timeline, Consumer<Pod> startCcm) {
    for (Pod pod : admin.pods().inNamespace("kube-system").list().getItems()) {
      String name = pod.getMetadata().getName();
      String node = pod.getSpec().getNodeName();
      if (node == null) {
        recordUnschedulable(pod, timeline);
        continue;
      }
      if (startedPods.contains(name)) {
        continue;
      }
      boolean hostNetwork = Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
      if (!hostNetwork && !networkReady.contains(node)) {
        if (reported.add("waiting/" + name)) {
          timeline.record(name, "bound to %s, waiting for the pod network".formatted(node));
        }
        continue;
      }
      startedPods.add(name);
      admin
          .pods()
          .inNamespace("kube-system")
          .withName(name)
          .subresource("status")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":\"PodScheduled\",\"status\":\"True\"}]}}");
      if (name.startsWith("sim-cni")) {
        cniNodes.add(node);
        timeline.record(node, "CNI pod running");
      } else if (CcmWorkload.runsCcm(pod.getSpec())) {
        startCcm.accept(pod);
      }
    }
  }

  /** A pod the scheduler could not place, once, with the scheduler's words. */
  private void recordUnschedulable(Pod pod, Timeline timeline) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return;
    }
    pod.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
        .filter(c -> "Unschedulable".equals(c.getReason()))
        .findFirst()
        .filter(c -> reported.add("pending/" + pod.getMetadata().getName()))
        .ifPresent(
            c ->
                timeline.record(
                    pod.getMetadata().getName(), "pending: the scheduler says: " + c.getMessage()));
  }

  /**
   * The simulated CNI: a node's network is ready once its CNI pod runs and the node has an address.
   */
  void bringUpNetworks(KubernetesClient admin, KubeletFleet kubelets, Timeline timeline) {
    for (String node : cniNodes) {
      if (networkReady.contains(node)) {
        continue;
      }
      Node current = admin.nodes().withName(node).get();
      boolean hasAddress =
          current != null
              && current.getStatus().getAddresses() != null
              && current.getStatus().getAddresses().stream()
                  .anyMatch(a -> "InternalIP".equals(a.getType()));
      if (hasAddress) {
        networkReady.add(node);
        SimulatedKubelet kubelet = kubelets.kubelet(node);
        kubelet.setReady(true, "kubelet is posting ready status");
        timeline.record(node, "network ready (CNI has the node address); kubelet Ready");
      }
    }
  }

  /**
   * The kubelet's part for Secret volumes: the Secret's keys become files of a directory of this
   * machine, and the container's arguments name that directory instead of the mount path. Empty
   * when a Secret is missing (the pod does not start).
   */
  Optional<List<String>> mountSecrets(
      KubernetesClient admin, Pod pod, Container container, List<String> args, Timeline timeline) {
    List<String> mounted = new ArrayList<>(args);
    String podName = pod.getMetadata().getName();
    List<Volume> volumes =
        pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
    List<VolumeMount> mounts =
        container.getVolumeMounts() == null ? List.of() : container.getVolumeMounts();
    for (VolumeMount mount : mounts) {
      Optional<Volume> volume =
          volumes.stream()
              .filter(v -> v.getName().equals(mount.getName()) && v.getSecret() != null)
              .findFirst();
      if (volume.isEmpty()) {
        continue;
      }
      String secretName = volume.get().getSecret().getSecretName();
      Secret secret =
          admin.secrets().inNamespace(pod.getMetadata().getNamespace()).withName(secretName).get();
      if (secret == null) {
        timeline.record(
            podName,
            "cannot start: Secret %s of volume %s not found"
                .formatted(secretName, mount.getName()));
        return Optional.empty();
      }
      try {
        Path dir = podFiles().resolve(podName).resolve(mount.getName());
        Files.createDirectories(dir);
        if (secret.getData() != null) {
          for (Map.Entry<String, String> entry : secret.getData().entrySet()) {
            Files.write(dir.resolve(entry.getKey()), Base64.getDecoder().decode(entry.getValue()));
          }
        }
        String mountPath = mount.getMountPath().replaceAll("/+$", "");
        mounted.replaceAll(word -> word.replace(mountPath + "/", dir + "/"));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the files of Secret " + secretName, e);
      }
      timeline.record(
          podName, "Secret %s mounted at %s".formatted(secretName, mount.getMountPath()));
    }
    return Optional.of(mounted);
  }

  private synchronized Path podFiles() throws IOException {
    if (podFiles == null) {
      podFiles = Files.createTempDirectory("ccm4j-lab-pods-");
    }
    return podFiles;
  }

  /** Deletes the files of the Secret volumes mounted so far. */
  synchronized void deletePodFiles() {
    if (podFiles == null) {
      return;
    }
    try (var paths = Files.walk(podFiles)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
    podFiles = null;
  }
}
