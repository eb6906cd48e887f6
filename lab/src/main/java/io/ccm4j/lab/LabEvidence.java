package io.ccm4j.lab;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.ccm4j.doctor.CcmWorkload;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a lab run ran on, taken from the API server before the cluster ends: which kubelets ({@code
 * real} or {@code simulated}), per node its kubelet and container runtime as the node reports them,
 * per CCM pod its node, image and {@code imageID}, and where its manager ran. Written as the JSON
 * beside the HTML report, {@code lab-<scenario>.json}.
 *
 * @param kubelets {@link #REAL} or {@link #SIMULATED}
 */
public record LabEvidence(
    String kubelets, List<NodeInfo> nodes, List<CcmPod> ccmPods, Map<String, Object> network) {

  public static final String REAL = "real";
  public static final String SIMULATED = "simulated";

  /** A node as it reports itself. */
  public record NodeInfo(
      String name,
      String kubeletVersion,
      String containerRuntimeVersion,
      String providerID,
      List<String> addresses,
      List<String> taints) {}

  /** A pod of the CCM manifest. */
  public record CcmPod(
      String name, String node, String image, String imageID, String managerRunsIn) {}

  /**
   * The cluster's nodes and CCM pods now.
   *
   * @param managerRunsIn where the manager of a CCM pod ran, in words
   */
  public static LabEvidence collect(
      KubernetesClient admin, String kubelets, Function<Pod, String> managerRunsIn) {
    List<NodeInfo> nodes = new ArrayList<>();
    for (Node node : admin.nodes().list().getItems()) {
      var info = node.getStatus() == null ? null : node.getStatus().getNodeInfo();
      nodes.add(
          new NodeInfo(
              node.getMetadata().getName(),
              info == null ? null : info.getKubeletVersion(),
              info == null ? null : info.getContainerRuntimeVersion(),
              node.getSpec().getProviderID(),
              addresses(node),
              taintKeys(node)));
    }
    List<CcmPod> ccmPods = new ArrayList<>();
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      Optional<Container> container = CcmWorkload.ccmContainer(pod.getSpec());
      if (container.isEmpty()) {
        continue;
      }
      String imageID =
          Optional.ofNullable(pod.getStatus().getContainerStatuses()).stream()
              .flatMap(List::stream)
              .filter(s -> s.getName().equals(container.get().getName()))
              .map(ContainerStatus::getImageID)
              .findFirst()
              .orElse(null);
      ccmPods.add(
          new CcmPod(
              pod.getMetadata().getName(),
              pod.getSpec().getNodeName(),
              container.get().getImage(),
              imageID,
              managerRunsIn.apply(pod)));
    }
    return new LabEvidence(kubelets, nodes, ccmPods, Map.of());
  }

  /**
   * This evidence with what the pod network showed (on real nodes: when each node's CNI
   * configuration was written, the pods' addresses, the load balancer's), written as {@code
   * network}.
   */
  public LabEvidence withNetwork(Map<String, Object> shown) {
    return new LabEvidence(
        kubelets, nodes, ccmPods, Collections.unmodifiableMap(new LinkedHashMap<>(shown)));
  }

  /** Writes {@code lab-<scenario>.json} into the directory. */
  public Path write(LabResult result, Path directory) throws IOException {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("scenario", result.scenario());
    json.put("kubelets", kubelets);
    json.put("verdict", result.verdict());
    json.put("seconds", result.seconds());
    json.put("explanation", result.explanation());
    json.put(
        "traffic",
        result
            .traffic()
            .map(t -> Map.of("answered", t.answered(), "summary", t.summary()))
            .orElse(null));
    json.put("nodes", nodes);
    json.put("ccmPods", ccmPods);
    if (!network.isEmpty()) {
      json.put("network", network);
    }
    Files.createDirectories(directory);
    Path file = directory.resolve("lab-" + result.scenario() + ".json");
    Files.writeString(
        file,
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(json));
    return file;
  }

  /** The keys of a node's taints. */
  public static List<String> taintKeys(Node node) {
    return node.getSpec().getTaints() == null
        ? List.of()
        : node.getSpec().getTaints().stream().map(Taint::getKey).toList();
  }

  /** A node's addresses, {@code <type>=<address>}. */
  public static List<String> addresses(Node node) {
    return node.getStatus() == null || node.getStatus().getAddresses() == null
        ? List.of()
        : node.getStatus().getAddresses().stream()
            .map(a -> a.getType() + "=" + a.getAddress())
            .toList();
  }
}
