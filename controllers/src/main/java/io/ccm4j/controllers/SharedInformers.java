package io.ccm4j.controllers;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import java.time.Duration;

/**
 * One shared informer per kind, so controllers watching the same kind share one watch and cache.
 */
public final class SharedInformers {

  /** Upstream's informer resync lies in [12 h, 24 h); resyncs only re-deliver cached objects. */
  private static final Duration RESYNC = Duration.ofHours(12);

  private SharedInformers() {}

  public static synchronized <T extends HasMetadata> SharedIndexInformer<T> of(
      SharedInformerFactory factory, Class<T> kind) {
    SharedIndexInformer<T> existing = factory.getExistingSharedIndexInformer(kind);
    return existing != null ? existing : factory.sharedIndexInformerFor(kind, RESYNC.toMillis());
  }
}
