package io.ccm4j.controllers.cloudnodelifecycle;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.SharedInformers;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.runtime.controller.Controller;
import io.ccm4j.runtime.controller.PeriodicPass;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cloud-node-lifecycle controller (spec §3.2, L1–L8): every {@code --node-monitor-period} it
 * deletes NotReady nodes whose instance is gone, and taints NotReady nodes whose instance is shut
 * down with {@code node.cloudprovider.kubernetes.io/shutdown:NoSchedule}, removing the taint once
 * they are Ready. A cloud error never deletes a node: the node is skipped until the next pass.
 */
public final class CloudNodeLifecycleController implements Controller {

  private static final Logger log = LoggerFactory.getLogger(CloudNodeLifecycleController.class);

  static final String REASON_DELETING_NODE = "DeletingNode";
  static final String REASON_DELETING_NODE_FAILED = "DeletingNodeFailed";

  static final Taint SHUTDOWN_TAINT =
      new TaintBuilder()
          .withKey(WellKnownTaints.SHUTDOWN)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();

  private final KubernetesClient client;
  private final InstancesV2 instances;
  private final String name;
  private final EventRecorder events;
  private final SharedIndexInformer<Node> nodes;
  private final Duration period;
  private final ScheduledExecutorService loop;
  private volatile PeriodicPass pass;

  public CloudNodeLifecycleController(
      ControllerContext context, CloudNodeLifecycleSettings settings)
      throws ControllerUnavailableException {
    this.instances =
        context
            .cloud()
            .instancesV2()
            .orElseThrow(
                () ->
                    new ControllerUnavailableException(
                        "cloud provider does not support instances"));
    this.client = context.client();
    this.name = context.name();
    this.events = context.events();
    this.nodes = SharedInformers.of(context.informers(), Node.class);
    this.period = settings.monitorPeriod();
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> Thread.ofPlatform().name("cloud-node-lifecycle").unstarted(runnable));
  }

  @Override
  public String name() {
    return name;
  }

  /** L2: a pass now, then one a period after each pass ends. */
  @Override
  public void start() {
    pass =
        PeriodicPass.withFixedDelay(
            loop, "cloud node lifecycle pass", this::monitorNodes, Duration.ZERO, period);
  }

  @Override
  public Optional<String> health() {
    PeriodicPass started = pass;
    return started == null ? Optional.empty() : started.health();
  }

  void monitorNodes() {
    for (Node node : nodes.getStore().list()) {
      try {
        monitor(node);
      } catch (RuntimeException e) {
        log.error("node {}: {}", node.getMetadata().getName(), e.getMessage());
      }
    }
  }

  private void monitor(Node node) {
    String name = node.getMetadata().getName();
    if (ConditionStatus.TRUE.equals(NodeConditions.readyStatus(node))) {
      // L4: a Ready node loses the shutdown taint (key and effect); no request if it has none.
      if (Taints.has(node, WellKnownTaints.SHUTDOWN, WellKnownTaints.EFFECT_NO_SCHEDULE)) {
        NodePatches.updateTaints(
            client,
            node,
            taints ->
                Taints.without(
                    taints, WellKnownTaints.SHUTDOWN, WellKnownTaints.EFFECT_NO_SCHEDULE));
      }
      return;
    }
    boolean exists;
    try {
      exists = instances.instanceExists(node); // L5
    } catch (CloudException | RuntimeException e) {
      log.error(
          "node {}: error checking if the instance exists, skipping: {}", name, e.getMessage());
      return;
    }
    if (!exists) {
      deleteNode(node); // L6
      return;
    }
    boolean shutdown;
    try {
      shutdown = instances.instanceShutdown(node); // L7
    } catch (CloudException | RuntimeException e) {
      log.error("node {}: error checking if the instance is shut down: {}", name, e.getMessage());
      return;
    }
    if (shutdown) {
      NodePatches.updateTaints(client, node, taints -> Taints.withTaint(taints, SHUTDOWN_TAINT));
    }
    // L8: NotReady and running: left alone.
  }

  private void deleteNode(Node node) {
    String name = node.getMetadata().getName();
    log.info("Deleting node {} because it does not exist in the cloud provider", name);
    events.normal(
        node,
        REASON_DELETING_NODE,
        "Deleting node %s because it does not exist in the cloud provider".formatted(name));
    try {
      client.nodes().withName(name).delete();
    } catch (KubernetesClientException e) {
      events.warning(
          node,
          REASON_DELETING_NODE_FAILED,
          "Failed deleting node %s: %s".formatted(name, e.getMessage()));
    }
  }

  @Override
  public void close() throws InterruptedException {
    loop.shutdownNow();
    loop.awaitTermination(10, TimeUnit.SECONDS);
  }
}
