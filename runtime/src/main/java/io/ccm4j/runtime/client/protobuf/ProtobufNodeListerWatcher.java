package io.ccm4j.runtime.client.protobuf;

import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.dsl.internal.AbstractWatchManager;
import io.fabric8.kubernetes.client.dsl.internal.BaseOperation;
import io.fabric8.kubernetes.client.dsl.internal.OperationSupport;
import io.fabric8.kubernetes.client.dsl.internal.ProtobufWatchManager;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.informers.impl.ListerWatcher;
import java.net.MalformedURLException;
import java.net.URL;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Lists and watches Nodes in protobuf for fabric8's informer ({@code DefaultSharedIndexInformer}),
 * which pages the list (limit and continue), relists on 410 Gone and reconnects the watch as it
 * does with JSON. Requests go through the client's own HTTP client, so its authentication, TLS,
 * rate limiter and fence apply; its Nodes operation builds the URLs.
 */
public final class ProtobufNodeListerWatcher implements ListerWatcher<Node, NodeList> {

  private final HttpClient http;
  private final BaseOperation<Node, NodeList, ?> nodes;

  @SuppressWarnings("unchecked")
  public ProtobufNodeListerWatcher(KubernetesClient client) {
    this.http = client.getHttpClient();
    this.nodes = (BaseOperation<Node, NodeList, ?>) client.nodes();
  }

  @Override
  public CompletableFuture<NodeList> submitList(ListOptions options) {
    options.setWatch(null);
    HttpRequest.Builder builder =
        http.newHttpRequestBuilder()
            .url(url(options))
            .setHeader("Accept", ProtobufEnvelope.MEDIA_TYPE);
    // As fabric8's own list: bounded by the client's request timeout.
    int timeout = nodes.getRequestConfig().getRequestTimeout();
    if (timeout > 0) {
      builder.timeout(timeout, TimeUnit.MILLISECONDS);
    }
    HttpRequest request = builder.build();
    return http.sendAsync(request, byte[].class)
        .thenApply(
            response -> {
              if (!response.isSuccessful()) {
                throw OperationSupport.requestFailure(
                    request, ProtobufObjects.failureStatus(response));
              }
              try {
                return ProtobufObjects.nodeList(response.body());
              } catch (Exception e) {
                throw new KubernetesClientException(
                    "cannot read the protobuf Node list: " + e.getMessage(), e);
              }
            });
  }

  @Override
  public CompletableFuture<AbstractWatchManager<Node>> submitWatch(
      ListOptions options, Watcher<Node> watcher) {
    options.setWatch(true);
    try {
      return CompletableFuture.completedFuture(
          new ProtobufWatchManager<>(
              http,
              nodes,
              options,
              watcher,
              nodes.getRequestConfig().getWatchReconnectInterval(),
              nodes.getRequestConfig().getWatchReconnectLimit()));
    } catch (MalformedURLException e) {
      throw KubernetesClientException.launderThrowable(e);
    }
  }

  @Override
  public Long getLimit() {
    return nodes.getLimit();
  }

  @Override
  public int getWatchReconnectInterval() {
    return nodes.getWatchReconnectInterval();
  }

  @Override
  public String getApiEndpointPath() {
    return nodes.getApiEndpointPath();
  }

  @Override
  public Config getConfig() {
    return nodes.getConfig();
  }

  private URL url(ListOptions options) {
    try {
      return nodes.appendListOptionParams(nodes.getNamespacedUrl(), options);
    } catch (MalformedURLException e) {
      throw KubernetesClientException.launderThrowable(e);
    }
  }
}
