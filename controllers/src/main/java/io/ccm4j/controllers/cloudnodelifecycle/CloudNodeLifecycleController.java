package io.ccm4j.controllers.cloudnodelifecycle;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.SharedInformers;
import io.ccm4j.controllers.nodeutil.Batches;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.ccm4j.runtime.cloud.NotLeadingException;
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
import java.util.ArrayList;
import java.util.List;
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
  private final CloudNodeLifecycleMetrics metrics;
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
    this.metrics = new CloudNodeLifecycleMetrics(context.metrics());
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

  /**
   * One pass (L3–L8): Ready nodes lose the shutdown taint; the NotReady ones are asked about in
   * bulk calls of at most the provider's {@code maxNodesPerCall()} (node by node for a provider
   * without bulk calls, as upstream): first whether their instance exists, then, for those that
   * exist, whether it is shut down. An error or a missing answer skips that node until the next
   * pass; it is never taken for "gone".
   */
  void monitorNodes() {
    long started = System.nanoTime();
    try {
      monitorNodesOnce();
    } finally {
      metrics.monitorNodesDuration.record(
          System.nanoTime() - started, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  private void monitorNodesOnce() {
    List<Node> notReady = new ArrayList<>();
    for (Node node : nodes.getStore().list()) {
      try {
        if (ConditionStatus.TRUE.equals(NodeConditions.readyStatus(node))) {
          liftShutdownTaint(node);
        } else {
          notReady.add(node);
        }
      } catch (RuntimeException e) {
        log.error("node {}: {}", node.getMetadata().getName(), e.getMessage());
      }
    }
    for (List<Node> batch : Batches.of(notReady, instances.maxNodesPerCall())) {
      if (!monitorNotReady(batch)) {
        log.info("the pass stops: this instance no longer leads");
        return;
      }
    }
  }

  /** L4: a Ready node loses the shutdown taint (key and effect); no request if it has none. */
  private void liftShutdownTaint(Node node) {
    if (Taints.has(node, WellKnownTaints.SHUTDOWN, WellKnownTaints.EFFECT_NO_SCHEDULE)) {
      NodePatches.updateTaints(
          client,
          node,
          taints ->
              Taints.without(taints, WellKnownTaints.SHUTDOWN, WellKnownTaints.EFFECT_NO_SCHEDULE));
    }
  }

  /** One batch of NotReady nodes; false when the cloud may no longer be called (not leading). */
  private boolean monitorNotReady(List<Node> batch) {
    Asked asked;
    try {
      asked = ask(batch, instances::instancesExist, "exist"); // L5
    } catch (NotLeadingException e) {
      return false;
    }
    if (asked.failure() != null) {
      batch.forEach(
          node ->
              metrics.observe(CloudNodeLifecycleMetrics.OPERATION_EXISTS, asked.failure(), false));
      return true; // logged once for the batch; none of its nodes is gone
    }
    BulkAnswers<Boolean> exist = asked.answers();
    List<Node> existing = new ArrayList<>();
    for (Node node : batch) {
      String name = node.getMetadata().getName();
      Optional<CloudException> failure = exist.failure(name);
      if (failure.isPresent() && failure.get() instanceof NotLeadingException) {
        return false;
      }
      metrics.observe(
          CloudNodeLifecycleMetrics.OPERATION_EXISTS,
          failure.orElse(null),
          failure.isEmpty() && !exist.value(name).orElseThrow());
      if (failure.isPresent()) {
        log.error(
            "node {}: error checking if the instance exists, skipping: {}",
            name,
            failure.get().getMessage());
      } else if (!exist.value(name).orElseThrow()) {
        act(node, () -> deleteNode(node)); // L6
      } else {
        existing.add(node);
      }
    }
    if (existing.isEmpty()) {
      return true;
    }
    Asked askedShutdown;
    try {
      askedShutdown = ask(existing, instances::instancesShutdown, "are shut down");
    } catch (NotLeadingException e) {
      return false;
    }
    if (askedShutdown.failure() != null) {
      existing.forEach(
          node ->
              metrics.observe(
                  CloudNodeLifecycleMetrics.OPERATION_SHUTDOWN, askedShutdown.failure(), false));
      return true;
    }
    BulkAnswers<Boolean> shutdown = askedShutdown.answers();
    for (Node node : existing) {
      String name = node.getMetadata().getName();
      Optional<CloudException> failure = shutdown.failure(name);
      if (failure.isPresent() && failure.get() instanceof NotLeadingException) {
        return false;
      }
      metrics.observe(CloudNodeLifecycleMetrics.OPERATION_SHUTDOWN, failure.orElse(null), false);
      if (failure.isPresent()) {
        log.error(
            "node {}: error checking if the instance is shut down: {}",
            name,
            failure.get().getMessage());
      } else if (shutdown.value(name).orElseThrow()) {
        act( // L7
            node,
            () ->
                NodePatches.updateTaints(
                    client, node, taints -> Taints.withTaint(taints, SHUTDOWN_TAINT)));
      }
      // L8: NotReady and running: left alone.
    }
    return true;
  }

  @FunctionalInterface
  private interface BulkQuestion {
    BulkAnswers<Boolean> ask(List<Node> nodes) throws CloudException;
  }

  /**
   * What a bulk call gave: its answers, or the error it failed with as a whole, which each node of
   * the call counts in the calls metric as the per-node call would have ({@code not_implemented}
   * for {@link io.ccm4j.cloudprovider.NotImplementedException}, else {@code error}).
   */
  private record Asked(BulkAnswers<Boolean> answers, CloudException failure) {}

  /**
   * A bulk call; when it failed as a whole, every node of the batch is skipped until the next pass
   * (none is gone), with one log line for them all.
   *
   * @throws NotLeadingException when the call was not made: this instance no longer leads
   */
  private static Asked ask(List<Node> batch, BulkQuestion question, String what)
      throws NotLeadingException {
    try {
      return new Asked(question.ask(batch), null);
    } catch (NotLeadingException e) {
      throw e;
    } catch (CloudException | RuntimeException e) {
      log.error(
          "error asking the cloud whether the instances of {} nodes ({}{}) {}, skipping them: {}",
          batch.size(),
          batch.get(0).getMetadata().getName(),
          batch.size() > 1 ? ", …" : "",
          what,
          e.getMessage());
      return new Asked(
          null, e instanceof CloudException cloud ? cloud : new CloudException(e.toString(), e));
    }
  }

  private static void act(Node node, Runnable action) {
    try {
      action.run();
    } catch (RuntimeException e) {
      log.error("node {}: {}", node.getMetadata().getName(), e.getMessage());
    }
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
      String reason = KubernetesErrors.message(e);
      log.error("unable to delete node {}: {}", name, reason);
      events.warning(
          node, REASON_DELETING_NODE_FAILED, "Failed deleting node %s: %s".formatted(name, reason));
    }
  }

  @Override
  public void close() throws InterruptedException {
    loop.shutdownNow();
    loop.awaitTermination(10, TimeUnit.SECONDS);
  }
}
