package io.ccm4j.bench;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.stream.IntStream;

/**
 * What the fault scenarios read back from the API server: the nodes of a scenario (by name prefix),
 * how many are initialised or routed, how many of its Services have an ingress.
 */
final class ClusterCounts {

  private ClusterCounts() {}

  /** The scenario's nodes: those whose name starts with {@code prefix}. */
  static List<Node> nodes(KubernetesClient client, String prefix) {
    return client.nodes().list().getItems().stream()
        .filter(node -> node.getMetadata().getName().startsWith(prefix))
        .toList();
  }

  static boolean isInitialised(Node node) {
    return node.getSpec().getProviderID() != null
        && (node.getSpec().getTaints() == null
            || node.getSpec().getTaints().stream()
                .noneMatch(t -> t.getKey().equals(WellKnownTaints.UNINITIALIZED)));
  }

  static int initialised(KubernetesClient client, String prefix) {
    return (int) nodes(client, prefix).stream().filter(ClusterCounts::isInitialised).count();
  }

  static int withIngress(KubernetesClient client, int services) {
    return (int)
        IntStream.range(0, services)
            .mapToObj(i -> client.services().inNamespace("default").withName("web-" + i).get())
            .filter(
                service ->
                    service != null
                        && service.getStatus() != null
                        && service.getStatus().getLoadBalancer() != null
                        && service.getStatus().getLoadBalancer().getIngress() != null
                        && !service.getStatus().getLoadBalancer().getIngress().isEmpty())
            .count();
  }

  /** Nodes whose NetworkUnavailable condition the route controller wrote False. */
  static int routed(KubernetesClient client, String prefix) {
    return (int)
        nodes(client, prefix).stream()
            .filter(
                node ->
                    node.getStatus() != null
                        && node.getStatus().getConditions() != null
                        && node.getStatus().getConditions().stream()
                            .anyMatch(ClusterCounts::routeCreated))
            .count();
  }

  static boolean routeCreated(NodeCondition condition) {
    return NodeConditions.NETWORK_UNAVAILABLE.equals(condition.getType())
        && ConditionStatus.FALSE.equals(condition.getStatus())
        && "RouteCreated".equals(condition.getReason());
  }
}
