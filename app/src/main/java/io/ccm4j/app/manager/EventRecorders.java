package io.ccm4j.app.manager;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.events.KubernetesEventRecorder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The manager's event recorders, one per event source, and their bounded close at shutdown. */
final class EventRecorders {

  private static final Logger log = LoggerFactory.getLogger(CloudControllerManager.class);

  private final KubernetesClient client;
  private final KubeApiContentType contentType;
  private final Map<String, KubernetesEventRecorder> recorders = new ConcurrentHashMap<>();

  EventRecorders(KubernetesClient client, KubeApiContentType contentType) {
    this.client = client;
    this.contentType = contentType;
  }

  /** The recorder of one event source ({@code source.component}), made on first use. */
  KubernetesEventRecorder forSource(String component) {
    return recorders.computeIfAbsent(component, this::newRecorder);
  }

  private KubernetesEventRecorder newRecorder(String component) {
    return new KubernetesEventRecorder(client, component, contentType);
  }

  /**
   * Writes the pending events of every recorder and closes {@code cloud} (unless null), all at
   * once, each on a thread of its own, within one {@code bound} ({@code CLOSE_TIMEOUT}, or what is
   * left before a lost Lease may pass): a provider whose close hangs, or an API server that does
   * not answer, cannot hold the process.
   */
  synchronized void closeWith(CloudProvider cloud, Duration bound) {
    long deadline = System.nanoTime() + bound.toNanos();
    Map<String, Thread> closing = new LinkedHashMap<>();
    recorders.forEach(
        (component, recorder) ->
            closing.put(
                "events of " + component,
                Thread.ofPlatform()
                    .daemon()
                    .name("ccm4j-flush-events-" + component)
                    .start(
                        () -> {
                          try {
                            recorder.close(bound);
                          } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                          }
                        })));
    recorders.clear();
    if (cloud != null) {
      closing.put(
          "cloud provider " + cloud.providerName(),
          Thread.ofPlatform().daemon().name("ccm4j-close-cloud").start(cloud::close));
    }
    List<String> unfinished = new ArrayList<>();
    try {
      for (Map.Entry<String, Thread> entry : closing.entrySet()) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !entry.getValue().join(Duration.ofNanos(left))) {
          unfinished.add(entry.getKey());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!unfinished.isEmpty()) {
      log.warn(
          "not closed within {} ms, going on without: {}",
          bound.toMillis(),
          String.join(", ", unfinished));
    }
  }
}
