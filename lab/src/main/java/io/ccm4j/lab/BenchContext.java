package io.ccm4j.lab;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerDescriptor;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.events.KubernetesEventRecorder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A controller context for in-process benchmarks; closes its event recorders. */
public final class BenchContext implements AutoCloseable {

  private final Map<String, KubernetesEventRecorder> recorders = new ConcurrentHashMap<>();
  public final ControllerContext context;

  /** The context the manager would hand the controller {@code descriptor} describes. */
  public BenchContext(
      KubernetesClient client, CloudProvider cloud, ControllerDescriptor descriptor) {
    this.context =
        new ControllerContext(
            descriptor.name(),
            client,
            client.informers(),
            cloud,
            "kubernetes",
            new SimpleMeterRegistry(),
            recorders.computeIfAbsent(
                descriptor.eventSource(),
                c -> new KubernetesEventRecorder(client, c, KubeApiContentType.JSON)),
            KubeApiContentType.JSON); // as its informers (the client's own, JSON)
  }

  @Override
  public void close() throws InterruptedException {
    context.informers().stopAllRegisteredInformers();
    for (KubernetesEventRecorder recorder : recorders.values()) {
      recorder.close();
    }
  }
}
