package io.ccm4j.runtime.client.protobuf;

import io.ccm4j.runtime.client.KubeApiContentType;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * The node controller's writes of a Node, its full update and its status patches, in the wire
 * format of {@code --kube-api-content-type}. With protobuf the update's body is protobuf ({@link
 * ProtobufBodies#nodeUpdate}: metadata and spec; JSON for a Node with fields that encoding does not
 * carry), a patch's body is JSON (patches are), and the API server answers in protobuf: the
 * update's answer read into the projected Node ({@link NodeProjection}) in a fraction of what
 * reading its JSON costs, the patch's not read at all. Jackson writing the update's body and
 * decoding the answers were a fifth and a sixth of the node controller's workers' CPU at 1,500
 * nodes. The requests go through the client's own HTTP client ({@link ApiWrites}), and a failure is
 * the {@link KubernetesClientException} fabric8's own call throws, with the API server's Status (a
 * 409 for a conflict, as callers retrying on conflicts expect). With JSON these are fabric8's
 * calls.
 */
public final class NodeWrites {

  private final KubernetesClient client;
  private final ApiWrites writes;

  public NodeWrites(KubernetesClient client, KubeApiContentType contentType) {
    this.client = client;
    this.writes = contentType == KubeApiContentType.PROTOBUF ? new ApiWrites(client) : null;
  }

  /** A full update (PUT) of {@code node}, guarded by its resourceVersion; the API's answer. */
  public Node update(Node node) {
    if (writes == null) {
      return client.nodes().resource(node).update();
    }
    String url = writes.core("nodes/" + node.getMetadata().getName());
    return read("PUT", url, writes.send("PUT", url, ProtobufBodies.nodeUpdate(node), node));
  }

  /**
   * A patch ({@code patch}, JSON) of the node's status subresource. Its answer, the whole Node, is
   * not read: no caller needs it.
   */
  public void patchStatus(String name, PatchType type, String patch) {
    if (writes == null) {
      Node named = new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
      client.nodes().resource(named).subresource("status").patch(PatchContext.of(type), patch);
      return;
    }
    String url = writes.core("nodes/" + name + "/status");
    writes.send("PATCH", url, type.getContentType(), patch.getBytes(StandardCharsets.UTF_8));
  }

  private Node read(String method, String url, HttpResponse<byte[]> response) {
    try {
      if (ApiWrites.isProtobuf(response)) {
        return ProtobufObjects.node(response.body());
      }
      // An API server (or a proxy before it) that answers JSON all the same.
      return client
          .getKubernetesSerialization()
          .unmarshal(new String(response.body(), StandardCharsets.UTF_8), Node.class);
    } catch (Exception e) {
      throw new KubernetesClientException(
          "cannot read the answer to %s %s: %s"
              .formatted(method, URI.create(url).getPath(), e.getMessage()),
          e);
    }
  }
}
