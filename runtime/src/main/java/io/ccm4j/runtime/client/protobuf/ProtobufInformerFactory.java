package io.ccm4j.runtime.client.protobuf;

import io.ccm4j.runtime.client.KubeApiContentType;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.impl.BaseClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.SharedInformerEventListener;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import io.fabric8.kubernetes.client.informers.impl.DefaultSharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * A client's shared informer factory whose Node informer lists and watches in protobuf ({@link
 * ProtobufNodeListerWatcher}); every other kind comes from the client's own factory. The Node
 * informer is fabric8's own ({@code DefaultSharedIndexInformer}): handlers, indexers, resyncs, the
 * exception handler and {@code isWatching} behave as with JSON.
 */
public final class ProtobufInformerFactory implements SharedInformerFactory {

  private final KubernetesClient client;
  private final SharedInformerFactory others;
  private final List<SharedIndexInformer<?>> own = new ArrayList<>();

  private ProtobufInformerFactory(KubernetesClient client) {
    this.client = client;
    this.others = client.informers();
  }

  /** A new shared informer factory of {@code client} for the given wire format. */
  public static SharedInformerFactory of(KubernetesClient client, KubeApiContentType contentType) {
    return contentType == KubeApiContentType.PROTOBUF
        ? new ProtobufInformerFactory(client)
        : client.informers();
  }

  @Override
  public SharedInformerFactory inNamespace(String namespace) {
    throw new UnsupportedOperationException("the manager's informers are cluster-wide");
  }

  @Override
  public SharedInformerFactory withName(String name) {
    throw new UnsupportedOperationException("the manager's informers are not by name");
  }

  @Override
  @SuppressWarnings("unchecked")
  public synchronized <T extends HasMetadata> SharedIndexInformer<T> sharedIndexInformerFor(
      Class<T> apiTypeClass, long resyncPeriodInMillis) {
    if (apiTypeClass != Node.class) {
      return others.sharedIndexInformerFor(apiTypeClass, resyncPeriodInMillis);
    }
    SharedIndexInformer<Node> informer =
        new DefaultSharedIndexInformer<>(
            Node.class,
            new ProtobufNodeListerWatcher(client),
            resyncPeriodInMillis,
            client.adapt(BaseClient.class).getExecutor());
    own.add(informer);
    return (SharedIndexInformer<T>) informer;
  }

  @Override
  @SuppressWarnings("unchecked")
  public synchronized <T> SharedIndexInformer<T> getExistingSharedIndexInformer(
      Class<T> apiTypeClass) {
    for (SharedIndexInformer<?> informer : own) {
      if (informer.getApiTypeClass().equals(apiTypeClass)) {
        return (SharedIndexInformer<T>) informer;
      }
    }
    return others.getExistingSharedIndexInformer(apiTypeClass);
  }

  @Override
  public synchronized Future<Void> startAllRegisteredInformers() {
    List<CompletableFuture<?>> started = new ArrayList<>();
    // fabric8's factory answers with a CompletableFuture (allOf its informers' starts).
    started.add((CompletableFuture<Void>) others.startAllRegisteredInformers());
    for (SharedIndexInformer<?> informer : own) {
      started.add(informer.start().toCompletableFuture());
    }
    return CompletableFuture.allOf(started.toArray(CompletableFuture[]::new));
  }

  @Override
  public synchronized void stopAllRegisteredInformers() {
    own.forEach(SharedIndexInformer::stop);
    others.stopAllRegisteredInformers();
  }

  @Override
  public void addSharedInformerEventListener(SharedInformerEventListener event) {
    others.addSharedInformerEventListener(event);
  }
}
