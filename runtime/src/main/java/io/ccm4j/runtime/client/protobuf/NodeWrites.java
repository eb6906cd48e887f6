package io.ccm4j.runtime.client.protobuf;

import io.ccm4j.runtime.client.KubeApiContentType;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.dsl.internal.BaseOperation;
import io.fabric8.kubernetes.client.dsl.internal.OperationSupport;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.io.ByteArrayInputStream;
import java.io.InterruptedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The node controller's writes of a Node, its full update and its status patches, answered in the
 * wire format of {@code --kube-api-content-type}. The request bodies are JSON either way (an update
 * of a projected Node, a patch); with protobuf the API server answers in protobuf, read into the
 * projected Node ({@link NodeProjection}) in a fraction of what reading its JSON costs: Jackson
 * reading the answers of these writes was a fifth of the client's event loops at 1,000 nodes. The
 * requests go through the client's own HTTP client (its authentication, TLS, rate limiter and
 * fence), and a failure is the {@link KubernetesClientException} fabric8's own call throws, with
 * the API server's Status (a 409 for a conflict, as callers retrying on conflicts expect). With
 * JSON these are fabric8's calls.
 */
public final class NodeWrites {

  private static final String JSON = "application/json";

  private final KubernetesClient client;
  private final boolean protobuf;

  public NodeWrites(KubernetesClient client, KubeApiContentType contentType) {
    this.client = client;
    this.protobuf = contentType == KubeApiContentType.PROTOBUF;
  }

  /** A full update (PUT) of {@code node}, guarded by its resourceVersion; the API's answer. */
  public Node update(Node node) {
    if (!protobuf) {
      return client.nodes().resource(node).update();
    }
    String body = client.getKubernetesSerialization().asJson(node);
    return send(
        "PUT",
        url(node.getMetadata().getName(), null),
        JSON,
        body.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code value} as JSON, by the client's serialization: a patch's body. */
  public String asJson(Object value) {
    return client.getKubernetesSerialization().asJson(value);
  }

  /** A patch ({@code patch}, JSON) of the node's status subresource; the API's answer. */
  public Node patchStatus(String name, PatchType type, String patch) {
    if (!protobuf) {
      Node named = new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
      return client
          .nodes()
          .resource(named)
          .subresource("status")
          .patch(PatchContext.of(type), patch);
    }
    return send(
        "PATCH",
        url(name, "status"),
        type.getContentType(),
        patch.getBytes(StandardCharsets.UTF_8));
  }

  private Node send(String method, URL url, String contentType, byte[] body) {
    HttpClient http = client.getHttpClient();
    HttpRequest.Builder builder =
        http.newHttpRequestBuilder()
            .url(url)
            .method(method, contentType, new ByteArrayInputStream(body), (long) body.length)
            .setHeader("Accept", ProtobufEnvelope.MEDIA_TYPE + ", " + JSON);
    int timeout = operation().getRequestConfig().getRequestTimeout();
    if (timeout > 0) {
      builder.timeout(timeout, TimeUnit.MILLISECONDS);
    }
    HttpRequest request = builder.build();
    HttpResponse<byte[]> response;
    try {
      response = http.sendAsync(request, byte[].class).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw KubernetesClientException.launderThrowable(new InterruptedIOException(e.getMessage()));
    } catch (ExecutionException e) {
      throw KubernetesClientException.launderThrowable(e.getCause());
    }
    if (!response.isSuccessful()) {
      throw OperationSupport.requestFailure(request, ProtobufNodeListerWatcher.status(response));
    }
    String answered = response.header("Content-Type");
    try {
      if (answered != null && answered.startsWith(ProtobufEnvelope.MEDIA_TYPE)) {
        return ProtobufObjects.node(response.body());
      }
      // An API server (or a proxy before it) that answers JSON all the same.
      return client
          .getKubernetesSerialization()
          .unmarshal(new String(response.body(), StandardCharsets.UTF_8), Node.class);
    } catch (Exception e) {
      throw new KubernetesClientException(
          "cannot read the answer to %s %s: %s".formatted(method, url.getPath(), e.getMessage()),
          e);
    }
  }

  /** As fabric8's own write: the resource's URL and the write's query (dry run, field manager). */
  private URL url(String name, String subresource) {
    try {
      BaseOperation<Node, NodeList, ?> nodes = operation();
      URL resource =
          subresource == null
              ? nodes.getResourceUrl(null, name)
              : nodes.getResourceUrl(null, name, subresource);
      return nodes.getResourceURLForWriteOperation(resource);
    } catch (MalformedURLException e) {
      throw KubernetesClientException.launderThrowable(e);
    }
  }

  @SuppressWarnings("unchecked")
  private BaseOperation<Node, NodeList, ?> operation() {
    return (BaseOperation<Node, NodeList, ?>) client.nodes();
  }
}
