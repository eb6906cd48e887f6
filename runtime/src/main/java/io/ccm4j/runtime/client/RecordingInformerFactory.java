package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.SharedInformerEventListener;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Future;

/**
 * The shared informer factory as one user sees it, noting the informers it takes: so the manager
 * knows which informers each controller depends on ({@link InformerWatchdog#health}).
 */
public final class RecordingInformerFactory implements SharedInformerFactory {

  private final SharedInformerFactory factory;
  private final Set<SharedIndexInformer<?>> taken =
      Collections.synchronizedSet(new LinkedHashSet<>());

  public RecordingInformerFactory(SharedInformerFactory factory) {
    this.factory = factory;
  }

  /** The informers taken through this view so far. */
  public Set<SharedIndexInformer<?>> taken() {
    synchronized (taken) {
      return Set.copyOf(taken);
    }
  }

  @Override
  public SharedInformerFactory inNamespace(String namespace) {
    factory.inNamespace(namespace);
    return this;
  }

  @Override
  public SharedInformerFactory withName(String name) {
    factory.withName(name);
    return this;
  }

  @Override
  public <T extends HasMetadata> SharedIndexInformer<T> sharedIndexInformerFor(
      Class<T> apiTypeClass, long resyncPeriodInMillis) {
    return note(factory.sharedIndexInformerFor(apiTypeClass, resyncPeriodInMillis));
  }

  @Override
  public <T> SharedIndexInformer<T> getExistingSharedIndexInformer(Class<T> apiTypeClass) {
    return note(factory.getExistingSharedIndexInformer(apiTypeClass));
  }

  @Override
  public Future<Void> startAllRegisteredInformers() {
    return factory.startAllRegisteredInformers();
  }

  @Override
  public void stopAllRegisteredInformers() {
    factory.stopAllRegisteredInformers();
  }

  @Override
  public void addSharedInformerEventListener(SharedInformerEventListener event) {
    factory.addSharedInformerEventListener(event);
  }

  private <T> SharedIndexInformer<T> note(SharedIndexInformer<T> informer) {
    if (informer != null) {
      taken.add(informer);
    }
    return informer;
  }
}
