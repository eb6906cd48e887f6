package io.ccm4j.controllers.nodeutil;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.runtime.client.Conflicts;
import io.ccm4j.runtime.client.protobuf.NodeWrites;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** Small idempotent writes to Nodes, each one request unless the API reports a conflict. */
public final class NodePatches {

  private static final JsonFactory JSON = new JsonFactory();
  private static final PatchContext MERGE = PatchContext.of(PatchType.JSON_MERGE);
  private static final PatchContext STRATEGIC = PatchContext.of(PatchType.STRATEGIC_MERGE);

  private NodePatches() {}

  /**
   * The node to patch, by name only. Patching through {@code resource()} rather than {@code
   * withName()}: with no item, fabric8 GETs the object before every patch (an extra request per
   * write).
   */
  public static Node named(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  /** Replaces {@code status.addresses} (a merge patch replaces the list as a whole). */
  public static void patchAddresses(
      NodeWrites writes, String nodeName, List<NodeAddress> addresses) {
    writes.patchStatus(nodeName, PatchType.JSON_MERGE, addressesPatch(addresses));
  }

  /**
   * {@code {"status":{"addresses":[{"address":…,"type":…},…]}}}, by Jackson's streaming writer:
   * through the client's object mapper this small body cost a tenth of the node controller's CPU.
   */
  static String addressesPatch(List<NodeAddress> addresses) {
    StringWriter text = new StringWriter(48 + 64 * addresses.size());
    try (JsonGenerator json = JSON.createGenerator(text)) {
      json.writeStartObject();
      json.writeObjectFieldStart("status");
      json.writeArrayFieldStart("addresses");
      for (NodeAddress address : addresses) {
        json.writeStartObject();
        json.writeStringField("address", address.address());
        json.writeStringField("type", address.type().name());
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeEndObject();
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("a StringWriter does not fail", e);
    }
    return text.toString();
  }

  /**
   * Sets one condition of {@code status.conditions} (a strategic merge by type: the kubelet's and
   * other components' conditions stay), its transition and heartbeat times now.
   */
  public static Node patchCondition(
      KubernetesClient client,
      String nodeName,
      String type,
      String status,
      String reason,
      String message) {
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    Map<String, Object> condition = new LinkedHashMap<>();
    condition.put("type", type);
    condition.put("status", status);
    condition.put("reason", reason);
    condition.put("message", message);
    condition.put("lastTransitionTime", now);
    condition.put("lastHeartbeatTime", now);
    Map<String, Object> patch = Map.of("status", Map.of("conditions", List.of(condition)));
    return client
        .nodes()
        .resource(named(nodeName))
        .subresource("status")
        .patch(STRATEGIC, client.getKubernetesSerialization().asJson(patch));
  }

  /**
   * Replaces {@code status.conditions} as a whole (a merge patch replaces the list), on the
   * condition that the node is still at {@code resourceVersion}: a kubelet's status written
   * meanwhile is a conflict, not overwritten.
   */
  public static Node replaceConditions(
      KubernetesClient client,
      String nodeName,
      String resourceVersion,
      List<NodeCondition> conditions) {
    Map<String, Object> patch =
        Map.of(
            "metadata", Map.of("resourceVersion", resourceVersion),
            "status", Map.of("conditions", conditions));
    return client
        .nodes()
        .resource(named(nodeName))
        .subresource("status")
        .patch(MERGE, client.getKubernetesSerialization().asJson(patch));
  }

  /**
   * Sets {@code spec.podCIDR} (the first) and {@code spec.podCIDRs}, on the condition that the node
   * is still the one with {@code uid} (not a new node of the same name).
   */
  public static Node patchPodCidrs(
      KubernetesClient client, String nodeName, String uid, List<String> cidrs) {
    Map<String, Object> patch =
        Map.of(
            "metadata", Map.of("uid", uid),
            "spec", Map.of("podCIDR", cidrs.get(0), "podCIDRs", cidrs));
    return client
        .nodes()
        .resource(named(nodeName))
        .patch(MERGE, client.getKubernetesSerialization().asJson(patch));
  }

  /** Sets labels, leaving the others alone. */
  public static Node patchLabels(
      KubernetesClient client, String nodeName, Map<String, String> labels) {
    Map<String, Object> patch = Map.of("metadata", Map.of("labels", labels));
    return Conflicts.retryOnConflict(
        Conflicts.PATCH_BACKOFF,
        () ->
            client
                .nodes()
                .resource(named(nodeName))
                .patch(MERGE, client.getKubernetesSerialization().asJson(patch)));
  }

  /**
   * Changes the node's taints (H1): reads the node (from {@code cached} first, then fresh),
   * computes the new taints, and patches them with the resource version read, so a concurrent
   * change is a conflict and is retried; no request at all when nothing changes. Empty when the
   * node is gone.
   */
  public static Optional<Node> updateTaints(
      KubernetesClient client, Node cached, UnaryOperator<List<Taint>> change) {
    String name = cached.getMetadata().getName();
    Node[] current = {cached};
    return Optional.ofNullable(
        Conflicts.retryOnConflict(
            Conflicts.PATCH_BACKOFF,
            () -> {
              Node node = current[0];
              if (node == null) {
                return null;
              }
              List<Taint> before = Taints.of(node);
              List<Taint> after = change.apply(before);
              if (after.equals(before)) {
                return node;
              }
              Map<String, Object> metadata = new LinkedHashMap<>();
              metadata.put("resourceVersion", node.getMetadata().getResourceVersion());
              Map<String, Object> patch =
                  Map.of("metadata", metadata, "spec", Map.of("taints", after));
              try {
                return client
                    .nodes()
                    .resource(named(name))
                    .patch(MERGE, client.getKubernetesSerialization().asJson(patch));
              } catch (RuntimeException e) {
                if (Conflicts.isConflict(e)) {
                  current[0] = client.nodes().withName(name).get();
                }
                throw e;
              }
            }));
  }
}
