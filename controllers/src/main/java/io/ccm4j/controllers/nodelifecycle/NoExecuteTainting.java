package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-lifecycle controller's NoExecute tainting (node-lifecycle spec §2.5 B): a node that is
 * not Ready waits in its zone's {@link ZoneTainter} for the {@code not-ready} or {@code
 * unreachable} NoExecute taint, added at the zone's rate; the taints swap when Ready changes
 * between False and Unknown, and both are lifted when the node is Ready again.
 */
final class NoExecuteTainting {

  private static final Logger log = LoggerFactory.getLogger(NoExecuteTainting.class);

  static final Taint NOT_READY_NO_EXECUTE =
      new TaintBuilder()
          .withKey(WellKnownTaints.NODE_NOT_READY)
          .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
          .build();
  static final Taint UNREACHABLE_NO_EXECUTE =
      new TaintBuilder()
          .withKey(WellKnownTaints.NODE_UNREACHABLE)
          .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
          .build();

  private final KubernetesClient client;
  private final SharedIndexInformer<Node> nodes;
  private final EventRecorder events;
  private final InstantSource clock;
  private final NodeLifecycleControllerMetrics metrics;
  private final Function<String, ZoneState> zoneStates;
  private final double initialRate;

  // Read by the tainting loop without the pass's lock: the pass holds it while it queues nodes on a
  // zone's tainter, and the tainter holds its own lock while it taints (lock order).
  private final Map<String, ZoneTainter> tainters = new ConcurrentHashMap<>();

  /**
   * @param zoneStates each zone's state, for the events
   * @param initialRate the rate of a new zone's tainter (nodes/s)
   */
  NoExecuteTainting(
      KubernetesClient client,
      SharedIndexInformer<Node> nodes,
      EventRecorder events,
      InstantSource clock,
      NodeLifecycleControllerMetrics metrics,
      Function<String, ZoneState> zoneStates,
      double initialRate) {
    this.client = client;
    this.nodes = nodes;
    this.events = events;
    this.clock = clock;
    this.metrics = metrics;
    this.zoneStates = zoneStates;
    this.initialRate = initialRate;
  }

  /** The zone's tainter, made on first use. */
  ZoneTainter tainter(String zone) {
    return tainters.computeIfAbsent(zone, z -> new ZoneTainter(initialRate, clock));
  }

  void setRate(String zone, double rate) {
    tainters.get(zone).setRate(rate);
  }

  /** §2.5 B: queues the node for its NoExecute taint, swaps the taint, or lifts both. */
  void process(Node node, String observed) {
    String name = node.getMetadata().getName();
    switch (observed) {
      case ConditionStatus.FALSE -> {
        if (Taints.has(node, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE)) {
          swapNoExecute(node, NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE);
        } else {
          markNodeForTainting(node, WellKnownTaints.NODE_NOT_READY);
        }
      }
      case ConditionStatus.UNKNOWN -> {
        if (Taints.has(node, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE)) {
          swapNoExecute(node, UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE);
        } else {
          markNodeForTainting(node, WellKnownTaints.NODE_UNREACHABLE);
        }
      }
      default -> markNodeAsReachable(node);
    }
    log.trace("node {} observed {}", name, observed);
  }

  private void markNodeForTainting(Node node, String key) {
    if (Taints.has(node, key, WellKnownTaints.EFFECT_NO_EXECUTE)) {
      return;
    }
    ZoneTainter tainter = tainters.get(NodeLifecycleController.zoneKey(node));
    if (tainter != null) {
      tainter.remove(node.getMetadata().getName());
      tainter.add(node.getMetadata().getName());
    }
  }

  /** {@link #markNodeAsReachable}, a failure logged: one node must not end a pass. */
  void markNodeAsReachableLogged(Node node) {
    try {
      markNodeAsReachable(node);
    } catch (KubernetesClientException e) {
      log.warn(
          "node {}: cannot lift its NoExecute taints: {}",
          node.getMetadata().getName(),
          e.getMessage());
    }
  }

  /**
   * Removes both NoExecute taints (no API call when neither is there) and the node from its queue.
   */
  private void markNodeAsReachable(Node node) {
    ZoneTainter tainter = tainters.get(NodeLifecycleController.zoneKey(node));
    if (tainter != null) {
      tainter.remove(node.getMetadata().getName());
    }
    if (!Taints.has(node, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE)
        && !Taints.has(node, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE)) {
      return;
    }
    NodePatches.updateTaints(
        client,
        node,
        taints ->
            Taints.without(
                Taints.without(
                    taints, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE),
                WellKnownTaints.NODE_UNREACHABLE,
                WellKnownTaints.EFFECT_NO_EXECUTE));
  }

  private void swapNoExecute(Node node, Taint add, Taint remove) {
    Taint stamped = new TaintBuilder(add).withTimeAdded(clock.instant().toString()).build();
    NodePatches.updateTaints(
        client,
        node,
        taints -> {
          if (Taints.has(nodeWith(taints), add.getKey(), add.getEffect())
              && !Taints.has(nodeWith(taints), remove.getKey(), remove.getEffect())) {
            return taints;
          }
          List<Taint> result =
              new ArrayList<>(Taints.without(taints, remove.getKey(), remove.getEffect()));
          if (!Taints.has(nodeWith(taints), add.getKey(), add.getEffect())) {
            result.add(stamped);
          }
          return result;
        });
  }

  private static Node nodeWith(List<Taint> taints) {
    Node node = new Node();
    node.setSpec(new NodeSpec());
    node.getSpec().setTaints(taints);
    return node;
  }

  /** Every 100 ms: each zone's queue, at the zone's rate (§2.5 B). */
  void runPass() {
    for (Map.Entry<String, ZoneTainter> entry : tainters.entrySet()) {
      String zone = entry.getKey();
      entry.getValue().tryProcess(name -> taintFromQueue(zone, name));
    }
  }

  private ZoneTainter.Outcome taintFromQueue(String zone, String name) {
    Node node = nodes.getStore().getByKey(name);
    if (node == null) {
      return ZoneTainter.Outcome.DONE;
    }
    String ready =
        NodeConditions.find(node, NodeConditions.READY).map(NodeCondition::getStatus).orElse(null);
    Taint add;
    Taint remove;
    if (ConditionStatus.FALSE.equals(ready)) {
      add = NOT_READY_NO_EXECUTE;
      remove = UNREACHABLE_NO_EXECUTE;
    } else if (ConditionStatus.UNKNOWN.equals(ready)) {
      add = UNREACHABLE_NO_EXECUTE;
      remove = NOT_READY_NO_EXECUTE;
    } else {
      return ZoneTainter.Outcome.DONE;
    }
    try {
      swapNoExecute(node, add, remove);
    } catch (KubernetesClientException e) {
      return ZoneTainter.Outcome.retry(Duration.ofMillis(50));
    }
    metrics.zone(zone).evictions.increment();
    ZoneState state = zoneStates.apply(zone);
    events.warning(
        node,
        NodeLifecycleController.REASON_TAINT_ADDED_NO_EXECUTE,
        "Added taint %s:NoExecute: Ready is %s; zone %s is %s, tainting %s nodes/s"
            .formatted(
                add.getKey(), ready, ZoneState.describe(zone), state, tainters.get(zone).rate()));
    return ZoneTainter.Outcome.DONE;
  }
}
