package io.ccm4j.lab;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import io.ccm4j.controllers.nodelifecycle.NodeLifecycleController;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;

/**
 * ccm4j's node-lifecycle controller as the lab runs it, on simulated and real kubelets alike: the
 * lab's kube-controller-manager runs only workload controllers, so the taints of the nodes'
 * conditions (not-ready, network-unavailable) come from this one, with a 1 s monitor period.
 */
public final class LabNodeLifecycle implements AutoCloseable {

  private static final NodeHealthSettings HEALTH =
      new NodeHealthSettings(
          Duration.ofSeconds(1), Duration.ofSeconds(40), Duration.ofSeconds(60), 1, 0.1, 0.55f, 50);

  private final BenchContext context;
  private final NodeLifecycleController controller;

  private LabNodeLifecycle(BenchContext context, NodeLifecycleController controller) {
    this.context = context;
    this.controller = controller;
  }

  /** Started once its informers have synced; closing stops it and them. */
  public static LabNodeLifecycle start(KubernetesClient admin, CloudProvider cloud)
      throws Exception {
    BenchContext context = new BenchContext(admin, cloud, Controllers.NODE_LIFECYCLE);
    try {
      NodeLifecycleController controller = new NodeLifecycleController(context.context, HEALTH);
      context.context.informers().startAllRegisteredInformers().get();
      controller.start();
      return new LabNodeLifecycle(context, controller);
    } catch (Exception | Error e) {
      context.close();
      throw e;
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      controller.close();
    } finally {
      context.close();
    }
  }
}
