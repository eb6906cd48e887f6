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
import java.util.function.Predicate;

/**
 * The lab's play of the pods: the simulated kubelets' container runtime (a bound pod of any
 * namespace runs once its node's network allows, with its Secret volumes as files of this machine;
 * one whose Secret is missing waits for it, as a kubelet does) and the simulated CNI (a node's
 * network is ready once its CNI pod runs and the node has an address).
 */
final class LabPodRuntime {

  /** Started pods, by namespace/name. */
  private final Set<String> startedPods = ConcurrentHashMap.newKeySet();

  /** Why a bound pod waits to start (a Secret it mounts is missing), by namespace/name. */
  private final Map<String, String> waiting = new ConcurrentHashMap<>();

  private final Set<String> cniNodes = ConcurrentHashMap.newKeySet();
  private final Set<String> networkReady = ConcurrentHashMap.newKeySet();
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /** The files of the Secret volumes the lab mounts for the pods it runs (created when needed). */
  private Path podFiles;

  /**
   * The simulated kubelets' container runtime: start what the scheduler bound, in any namespace (a
   * manifest's objects without one are in {@code default}), if its network allows; a CCM pod
   * through {@code startCcm}, which says whether it started: one that did not is tried again at the
   * next look, and is not Running until then.
   */
  void runBoundPods(KubernetesClient admin, Timeline timeline, Predicate<Pod> startCcm) {
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      String namespace = pod.getMetadata().getNamespace();
      String name = pod.getMetadata().getName();
      String key = namespace + "/" + name;
      String node = pod.getSpec().getNodeName();
      if (node == null) {
        recordUnschedulable(pod, timeline);
        continue;
      }
      if (startedPods.contains(key)) {
        continue;
      }
      boolean hostNetwork = Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
      if (!hostNetwork && !networkReady.contains(node)) {
        if (reported.add("waiting/" + key)) {
          timeline.record(name, "bound to %s, waiting for the pod network".formatted(node));
        }
        continue;
      }
      boolean cni = name.startsWith("sim-cni");
      if (!cni && CcmWorkload.runsCcm(pod.getSpec()) && !startCcm.test(pod)) {
        continue;
      }
      startedPods.add(key);
      waiting.remove(key);
      admin
          .pods()
          .inNamespace(namespace)
          .withName(name)
          .subresource("status")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":\"PodScheduled\",\"status\":\"True\"}]}}");
      if (cni) {
        cniNodes.add(node);
        timeline.record(node, "CNI pod running");
      }
    }
  }

  /**
   * The bound pods that wait to start and why, one line each: what stands in the bootstrap's way
   * that nothing in the cluster will change (the manifest does not create the Secret).
   */
  List<String> waitingPods() {
    return waiting.values().stream().sorted().toList();
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
        .filter(
            c ->
                reported.add(
                    "pending/"
                        + pod.getMetadata().getNamespace()
                        + "/"
                        + pod.getMetadata().getName()))
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
   * when a Secret is missing: the pod does not start, and waits for it ({@link #waitingPods}).
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
        String namespace = pod.getMetadata().getNamespace();
        String key = namespace + "/" + podName;
        if (reported.add("secret/" + key + "/" + secretName)) {
          timeline.record(
              podName,
              "cannot start: Secret %s of volume %s not found; waiting for it"
                  .formatted(secretName, mount.getName()));
        }
        waiting.put(
            key,
            ("pod %s is bound to %s but cannot start: its volume %s mounts the Secret %s/%s, which"
                    + " does not exist (the kubelet waits for it). Fix: create the Secret (for"
                    + " another project's CCM, the cloud's credentials or config its chart makes)")
                .formatted(
                    key, pod.getSpec().getNodeName(), mount.getName(), namespace, secretName));
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
