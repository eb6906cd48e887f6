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
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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

  /** What a pass does with a node's NoExecute taints (§2.5 B). */
  enum Action {
    /** Queued on its zone's tainter for the not-ready taint. */
    QUEUE_NOT_READY(NOT_READY_NO_EXECUTE, null),
    /** Queued on its zone's tainter for the unreachable taint. */
    QUEUE_UNREACHABLE(UNREACHABLE_NO_EXECUTE, null),
    /** Unreachable swapped for not-ready at once, not at the zone's rate. */
    SWAP_TO_NOT_READY(NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE),
    /** Not-ready swapped for unreachable at once, not at the zone's rate. */
    SWAP_TO_UNREACHABLE(UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE),
    /** Both lifted, the node taken off its zone's queue. */
    LIFT(null, null),
    /**
     * Nothing: a Ready status other than True, False and Unknown (the API server does not check it)
     * leaves the taints and the queue as they are, as upstream's processTaintBaseEviction does.
     */
    NONE(null, null);

    final Taint add;
    final Taint remove;

    Action(Taint add, Taint remove) {
      this.add = add;
      this.remove = remove;
    }
  }

  private final KubernetesClient client;
  private final Function<String, Node> cachedNode;
  private final EventRecorder events;
  private final InstantSource clock;
  private final NodeLifecycleControllerMetrics metrics;
  private final ZoneStates zoneStates;
  private final double initialRate;

  // Read by the tainting loop without the pass's lock: the pass holds it while it queues nodes on a
  // zone's tainter, and the tainter holds its limiter's lock while it taints (lock order); queueing
  // takes only the tainter's queue lock, which a taint write does not hold.
  private final Map<String, ZoneTainter> tainters = new ConcurrentHashMap<>();

  /**
   * @param cachedNode the node of that name in the informer's cache, or null
   * @param zoneStates each zone's state, read for the events
   * @param initialRate the rate of a new zone's tainter (nodes/s)
   */
  NoExecuteTainting(
      KubernetesClient client,
      Function<String, Node> cachedNode,
      EventRecorder events,
      InstantSource clock,
      NodeLifecycleControllerMetrics metrics,
      ZoneStates zoneStates,
      double initialRate) {
    this.client = client;
    this.cachedNode = cachedNode;
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

  /**
   * A zone new to the pass (§3.5): a new tainter at {@code rate}, its bucket full, in place of any
   * the zone had before it was forgotten, as upstream's addPodEvictorForNewZone makes a new queue:
   * the old one's nodes, the nodes it remembers as processed and its spent tokens go with it.
   */
  void startZone(String zone, double rate) {
    tainters.put(zone, new ZoneTainter(rate, clock));
  }

  /** The zone's tainting rate from now on (§3.3); 0 stops it. */
  void setRate(String zone, double rate) {
    tainters.get(zone).setRate(rate);
  }

  /**
   * §2.5 B: what the pass does for a node whose Ready is {@code ready} once the pass has judged it
   * (Unknown when the pass has just marked it so): a taint of the other kind is swapped at once, a
   * Ready node has both lifted, a status none of True, False and Unknown changes nothing, and any
   * other node not Ready is queued, even one that shows its taint already: as upstream's
   * markNodeForTainting, the queue's memory of the nodes it processed, not the taint, keeps it from
   * being tainted twice. A node that shows a taint the controller has just lifted (first seen after
   * a restart or a change of leader, its cached copy older than the lift) is so queued in the same
   * pass, not a monitor period later.
   */
  static Action decide(String ready, Node node) {
    boolean notReady =
        Taints.has(node, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE);
    boolean unreachable =
        Taints.has(node, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE);
    return switch (ready) {
      case ConditionStatus.FALSE -> unreachable ? Action.SWAP_TO_NOT_READY : Action.QUEUE_NOT_READY;
      case ConditionStatus.UNKNOWN ->
          notReady ? Action.SWAP_TO_UNREACHABLE : Action.QUEUE_UNREACHABLE;
      case ConditionStatus.TRUE -> Action.LIFT;
      default -> Action.NONE;
    };
  }

  /** §2.5 B: queues the node for its NoExecute taint, swaps the taint, or lifts both. */
  void process(Node node, String ready) {
    Action action = decide(ready, node);
    switch (action) {
      case QUEUE_NOT_READY, QUEUE_UNREACHABLE -> markNodeForTainting(node, action);
      case SWAP_TO_NOT_READY, SWAP_TO_UNREACHABLE -> swapNoExecute(node, action);
      case LIFT -> markNodeAsReachable(node);
      case NONE -> {}
    }
    log.trace("node {} Ready {}: {}", node.getMetadata().getName(), ready, action);
  }

  /**
   * Queues the node (a no-op when it is queued or was processed since it was last removed); a node
   * without the taint is first forgotten, so one the queue processed earlier is queued again.
   */
  private void markNodeForTainting(Node node, Action queue) {
    ZoneTainter tainter = tainters.get(NodeLifecycleController.zoneKey(node));
    if (tainter == null) {
      return;
    }
    String name = node.getMetadata().getName();
    if (!Taints.has(node, queue.add.getKey(), queue.add.getEffect())) {
      tainter.remove(name);
    }
    tainter.add(name);
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
   * Removes both NoExecute taints (no API call when neither is there), and only then the node from
   * its queue, as upstream's markNodeAsReachable: a lift that fails leaves the node queued.
   */
  private void markNodeAsReachable(Node node) {
    if (Taints.has(node, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE)
        || Taints.has(node, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE)) {
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
    ZoneTainter tainter = tainters.get(NodeLifecycleController.zoneKey(node));
    if (tainter != null) {
      tainter.remove(node.getMetadata().getName());
    }
  }

  /**
   * What a swap found: the node gone, or whether the swap added its taint (false: it was there).
   */
  private enum Swap {
    NODE_GONE,
    ADDED,
    ALREADY_THERE
  }

  /** The swap written, unless the node is gone. */
  private Swap swapNoExecute(Node node, Action swap) {
    Instant now = clock.instant();
    boolean[] adds = {false};
    Optional<Node> written =
        NodePatches.updateTaints(
            client,
            node,
            taints -> {
              adds[0] = !Taints.has(nodeWith(taints), swap.add.getKey(), swap.add.getEffect());
              return swapped(taints, swap, now);
            });
    if (written.isEmpty()) {
      return Swap.NODE_GONE;
    }
    return adds[0] ? Swap.ADDED : Swap.ALREADY_THERE;
  }

  /**
   * The taints with {@code swap}'s taint added (stamped {@code now}) and the other removed; the
   * same list when there is nothing to change, so no write follows.
   */
  static List<Taint> swapped(List<Taint> taints, Action swap, Instant now) {
    Taint add = swap.add;
    Taint remove = swap.remove;
    boolean hasAdd = Taints.has(nodeWith(taints), add.getKey(), add.getEffect());
    if (hasAdd && !Taints.has(nodeWith(taints), remove.getKey(), remove.getEffect())) {
      return taints;
    }
    List<Taint> result =
        new ArrayList<>(Taints.without(taints, remove.getKey(), remove.getEffect()));
    if (!hasAdd) {
      result.add(new TaintBuilder(add).withTimeAdded(now.toString()).build());
    }
    return result;
  }

  /**
   * When a queued node with no Ready condition is looked at again, as upstream's tainting pass
   * retries it (its zone's tokens spent on it meanwhile, as upstream's are): it stays queued, and
   * gets its taint as soon as a Ready that calls for one is back, not at the next health pass.
   */
  static final Duration NO_READY_RETRY = Duration.ofMillis(50);

  /**
   * When a queued node's turn comes (§2.5 B): the taint its Ready calls for now, or none when it is
   * Ready again (a node with no Ready condition is not done: {@link #NO_READY_RETRY}).
   */
  static Optional<Action> dueTaint(String ready) {
    if (ConditionStatus.FALSE.equals(ready)) {
      return Optional.of(Action.SWAP_TO_NOT_READY);
    }
    if (ConditionStatus.UNKNOWN.equals(ready)) {
      return Optional.of(Action.SWAP_TO_UNREACHABLE);
    }
    return Optional.empty();
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
    Node node = cachedNode.apply(name);
    if (node == null) {
      return ZoneTainter.Outcome.DONE;
    }
    String ready =
        NodeConditions.find(node, NodeConditions.READY).map(NodeCondition::getStatus).orElse(null);
    if (ready == null) {
      return ZoneTainter.Outcome.retry(NO_READY_RETRY);
    }
    Optional<Action> due = dueTaint(ready);
    if (due.isEmpty()) {
      return ZoneTainter.Outcome.DONE;
    }
    Swap swapped;
    try {
      swapped = swapNoExecute(node, due.get());
    } catch (KubernetesClientException e) {
      // Upstream's swap returns (false, 0): the node keeps its place and is tried again at the
      // zone's next token, not after a delay of its own.
      log.warn(
          "node {}: cannot add its {} NoExecute taint, retried at zone {}'s next token: {}",
          name,
          due.get().add.getKey(),
          ZoneState.describe(zone),
          e.getMessage());
      return ZoneTainter.Outcome.AT_NEXT_TOKEN;
    }
    if (swapped == Swap.NODE_GONE) {
      // Deleted since the cache showed it: upstream's swap fails there, and counts nothing.
      return ZoneTainter.Outcome.DONE;
    }
    // Counted as upstream counts it, whenever the swap succeeds (the taint may have been there).
    metrics.zone(zone).evictions.increment();
    if (swapped == Swap.ALREADY_THERE) {
      return ZoneTainter.Outcome.DONE;
    }
    ZoneState state = zoneStates.state(zone);
    events.warning(
        node,
        NodeLifecycleEvents.TAINT_ADDED_NO_EXECUTE,
        "Added taint %s:NoExecute: Ready is %s; zone %s is %s, tainting %s nodes/s"
            .formatted(
                due.get().add.getKey(),
                ready,
                ZoneState.describe(zone),
                state,
                tainters.get(zone).rate()));
    return ZoneTainter.Outcome.DONE;
  }
}
