package io.ccm4j.app.bench;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.runtime.events.KubernetesEventRecorder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A controller context for in-process benchmarks; closes its event recorders. */
public final class BenchContext implements AutoCloseable {

  private final Map<String, KubernetesEventRecorder> recorders = new ConcurrentHashMap<>();
  public final ControllerContext context;

  public BenchContext(KubernetesClient client, CloudProvider cloud, ControllerSettings settings) {
    this.context =
        new ControllerContext(
            client,
            client.informers(),
            cloud,
            "kubernetes",
            new SimpleMeterRegistry(),
            component ->
                recorders.computeIfAbsent(
                    component, c -> new KubernetesEventRecorder(client, c, "bench")),
            settings);
  }

  @Override
  public void close() throws InterruptedException {
    context.informers().stopAllRegisteredInformers();
    for (KubernetesEventRecorder recorder : recorders.values()) {
      recorder.close();
    }
  }
}
