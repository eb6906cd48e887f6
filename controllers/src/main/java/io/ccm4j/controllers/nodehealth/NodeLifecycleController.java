package io.ccm4j.controllers.nodehealth;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.SharedInformers;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controllers.nodeutil.PodStatusPatches;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.runtime.controller.Controller;
import io.ccm4j.runtime.controller.PeriodicPass;
import io.ccm4j.runtime.controller.QueueWorkers;
import io.ccm4j.runtime.events.EventRecorder;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.workqueue.RateLimiters;
import io.ccm4j.runtime.workqueue.WorkQueue;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-lifecycle controller (spec {@code node-lifecycle.md}): watches heartbeats from each
 * node's Ready condition and Lease, marks silent nodes Unknown, mirrors conditions as NoSchedule
 * taints, adds the NoExecute not-ready/unreachable taints at a per-zone rate that slows or stops
 * when a zone is disrupted, and evicts pods that do not tolerate them.
 */
public final class NodeLifecycleController implements Controller {

  private static final Logger log = LoggerFactory.getLogger(NodeLifecycleController.class);

  // Event reasons (node-lifecycle spec §6); ZoneStateChanged is ccm4j's own.
  static final String REASON_REGISTERED_NODE = "RegisteredNode";
  static final String REASON_REMOVING_NODE = "RemovingNode";
  static final String REASON_NODE_NOT_READY = "NodeNotReady";
  static final String REASON_TAINT_ADDED_NO_EXECUTE = "TaintAddedNoExecute";
  static final String REASON_ZONE_STATE_CHANGED = "ZoneStateChanged";

  static final String PODS_BY_NODE = "byNode";
  private static final Duration TAINTING_PERIOD = Duration.ofMillis(100);

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
  private final NodeHealthSettings settings;
  private final InstantSource clock;
  private final EventRecorder events;
  private final MeterRegistry metrics;
  private final NodeLifecycleControllerMetrics lifecycleMetrics;
  private final SharedIndexInformer<Node> nodes;
  private final SharedIndexInformer<Lease> leases;
  private final SharedIndexInformer<Pod> pods;
  private final Map<String, NodeHealth> health = new ConcurrentHashMap<>();

  /** Name → the Node as last seen, for the RemovingNode event once it is gone. */
  private final Map<String, Node> knownNodes = new ConcurrentHashMap<>();

  /** Nodes with pods whose NotReady mark failed: retried on the next passes. */
  private final Set<String> podsToRetry = ConcurrentHashMap.newKeySet();

  // Read by the tainting loop without the pass's lock: the pass holds it while it queues nodes on a
  // zone's tainter, and the tainter holds its own lock while it taints (lock order).
  private final Map<String, ZoneState> zoneStates = new ConcurrentHashMap<>();
  private final Map<String, ZoneTainter> tainters = new ConcurrentHashMap<>();
  private final WorkQueue<String> noScheduleQueue;
  private final QueueWorkers<String> noScheduleWorkers;
  private final WorkQueue<String> taintManagerQueue;
  private final QueueWorkers<String> taintManagerWorkers;
  private final NoExecuteTaintManager taintManager;
  private final ScheduledExecutorService loops;
  private final List<PeriodicPass> passes = new CopyOnWriteArrayList<>();

  public NodeLifecycleController(ControllerContext context) {
    this(context, context.settings().nodeHealth(), InstantSource.system());
  }

  NodeLifecycleController(
      ControllerContext context, NodeHealthSettings settings, InstantSource clock) {
    this.client = context.client();
    this.settings = settings;
    this.clock = clock;
    this.events = context.eventRecorders().apply(Controllers.NODE_LIFECYCLE.eventSource());
    this.metrics = context.metrics();
    this.lifecycleMetrics = new NodeLifecycleControllerMetrics(metrics);
    this.nodes = SharedInformers.of(context.informers(), Node.class);
    this.leases = SharedInformers.of(context.informers(), Lease.class);
    this.pods = SharedInformers.of(context.informers(), Pod.class);
    pods.addIndexers(
        Map.of(
            PODS_BY_NODE,
            pod ->
                pod.getSpec() == null || pod.getSpec().getNodeName() == null
                    ? List.of()
                    : List.of(pod.getSpec().getNodeName())));
    this.loops =
        Executors.newScheduledThreadPool(
            3, runnable -> Thread.ofPlatform().name("node-lifecycle").unstarted(runnable));
    this.taintManager =
        new NoExecuteTaintManager(
            client, nodes, pods, events, clock, loops, lifecycleMetrics.podDeletions);
    this.noScheduleQueue =
        new WorkQueue<>("node-lifecycle-noschedule", RateLimiters.controllerDefault(), metrics);
    this.noScheduleWorkers =
        new QueueWorkers<>(
            "node-lifecycle-noschedule", noScheduleQueue, this::doNoScheduleTaintingPass, 8);
    this.taintManagerQueue =
        new WorkQueue<>("node-lifecycle-taint-manager", RateLimiters.controllerDefault(), metrics);
    this.taintManagerWorkers =
        new QueueWorkers<>(
            "node-lifecycle-taint-manager", taintManagerQueue, this::taintManagerSync, 1);
    nodes.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Node node) {
            noScheduleQueue.add(node.getMetadata().getName());
            taintManagerQueue.add("node/" + node.getMetadata().getName());
          }

          @Override
          public void onUpdate(Node previous, Node node) {
            noScheduleQueue.add(node.getMetadata().getName());
            if (NoExecuteTaintManager.noExecuteTaintsChanged(previous, node)) {
              taintManagerQueue.add("node/" + node.getMetadata().getName());
            }
          }

          @Override
          public void onDelete(Node node, boolean unknown) {
            taintManagerQueue.add("node/" + node.getMetadata().getName());
          }
        });
    pods.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod) {
            taintManagerQueue.add("pod/" + Cache.metaNamespaceKeyFunc(pod));
            if (nodeName(pod) != null) {
              taintManagerQueue.add("bound/" + Cache.metaNamespaceKeyFunc(pod));
            }
          }

          @Override
          public void onUpdate(Pod previous, Pod pod) {
            if (NoExecuteTaintManager.podChanged(previous, pod)) {
              taintManagerQueue.add("pod/" + Cache.metaNamespaceKeyFunc(pod));
            }
            if (nodeName(pod) != null && !nodeName(pod).equals(nodeName(previous))) {
              taintManagerQueue.add("bound/" + Cache.metaNamespaceKeyFunc(pod));
            }
          }

          @Override
          public void onDelete(Pod pod, boolean unknown) {
            taintManagerQueue.add("pod/" + Cache.metaNamespaceKeyFunc(pod));
          }
        });
  }

  @Override
  public String name() {
    return Controllers.NODE_LIFECYCLE.name();
  }

  @Override
  public void start() {
    noScheduleWorkers.start();
    taintManagerWorkers.start();
    passes.add(
        PeriodicPass.withFixedDelay(
            loops,
            "node health pass",
            this::monitorNodeHealth,
            Duration.ZERO,
            settings.monitorPeriod()));
    passes.add(
        PeriodicPass.withFixedDelay(
            loops,
            "NoExecute tainting pass",
            this::doNoExecuteTaintingPass,
            Duration.ZERO,
            TAINTING_PERIOD));
  }

  @Override
  public Optional<String> health() {
    return HealthChecks.problems(
        noScheduleWorkers.health(),
        taintManagerWorkers.health(),
        HealthChecks.problems(passes.stream().map(PeriodicPass::health).toArray(Optional[]::new)));
  }

  private void taintManagerSync(String key) {
    if (key.startsWith("node/")) {
      taintManager.handleNodeUpdate(key.substring(5));
    } else if (key.startsWith("bound/")) {
      podBound(key.substring(6));
    } else {
      taintManager.handlePodUpdate(key.substring(4));
    }
  }

  /** §2.6: a pod bound to a node the controller knows is not Ready is marked NotReady at once. */
  private void podBound(String podKey) {
    Pod pod = pods.getStore().getByKey(podKey);
    if (pod == null || nodeName(pod) == null) {
      return;
    }
    NodeHealth known = health.get(nodeName(pod));
    if (known == null || known.savedReady() == null) {
      return;
    }
    if (!ConditionStatus.TRUE.equals(known.savedReady().getStatus()) && !markPodNotReady(pod)) {
      // Thrown for the queue's retry with backoff.
      throw new IllegalStateException("pod " + podKey + ": cannot mark it not ready");
    }
  }

  private static String nodeName(Pod pod) {
    String name = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return name == null || name.isEmpty() ? null : name;
  }

  /** One pass (§2.2); public so a benchmark can time it without the periodic loop. */
  public synchronized void monitorNodeHealth() {
    List<Node> all = nodes.getStore().list();
    Set<String> listed = new HashSet<>();
    for (Node node : all) {
      String name = node.getMetadata().getName();
      listed.add(name);
      if (knownNodes.put(name, node) == null) {
        events.normal(
            node,
            REASON_REGISTERED_NODE,
            "Node %s event: Registered Node %s in Controller".formatted(name, name));
        addTainterForNewZone(node);
        markNodeAsReachableLogged(node);
      } else if (!zoneStates.containsKey(zoneKey(node))) {
        addTainterForNewZone(node);
      }
    }
    for (Node gone : new ArrayList<>(knownNodes.values())) {
      String name = gone.getMetadata().getName();
      if (!listed.contains(name)) {
        knownNodes.remove(name);
        health.remove(name);
        podsToRetry.remove(name);
        log.info("Removing Node {} from Controller", name);
        events.normal(
            gone,
            REASON_REMOVING_NODE,
            "Node %s event: Removing Node %s from Controller".formatted(name, name));
      }
    }
    Map<String, List<NodeCondition>> zoneConditions = new LinkedHashMap<>();
    Instant now = clock.instant();
    for (Node node : all) {
      String name = node.getMetadata().getName();
      HealthEvaluation.Result result;
      try {
        result = evaluateAndWrite(node, now);
      } catch (KubernetesClientException e) {
        log.warn(
            "node {}: cannot update health, skipping - no pods will be evicted: {}",
            name,
            e.getMessage());
        continue;
      }
      if (!isExcluded(node)) {
        zoneConditions.computeIfAbsent(zoneKey(node), z -> new ArrayList<>()).add(result.current());
      }
      if (result.current() == null) {
        continue;
      }
      try {
        processTaintBaseEviction(node, result.observed().getStatus());
      } catch (KubernetesClientException e) {
        // One node's taint write (a webhook's 403, a node deleted meanwhile) must not end the
        // pass: the nodes after it and the zone decisions still need it. Retried next pass.
        log.warn("node {}: cannot update its NoExecute taints: {}", name, e.getMessage());
      }
      boolean becameNotReady =
          !ConditionStatus.TRUE.equals(result.current().getStatus())
              && ConditionStatus.TRUE.equals(result.observed().getStatus());
      if (becameNotReady) {
        events.normal(
            node, REASON_NODE_NOT_READY, "Node %s status is now: NodeNotReady".formatted(name));
      }
      // §2.2: pods whose NotReady mark failed are retried on later passes while the node stays
      // not Ready (upstream's nodesToRetry); a node that is Ready again needs none.
      if ((becameNotReady
              || podsToRetry.contains(name)
                  && !ConditionStatus.TRUE.equals(result.observed().getStatus()))
          && !markPodsNotReady(name)) {
        podsToRetry.add(name);
      } else {
        podsToRetry.remove(name);
      }
    }
    handleDisruption(zoneConditions, all);
  }

  private HealthEvaluation.Result evaluateAndWrite(Node node, Instant now) {
    String name = node.getMetadata().getName();
    Lease lease =
        leases
            .getStore()
            .getByKey(Cache.namespaceKeyFunc(WellKnownNamespaces.KUBE_NODE_LEASE, name));
    Instant renew =
        lease == null || lease.getSpec() == null || lease.getSpec().getRenewTime() == null
            ? null
            : lease.getSpec().getRenewTime().toInstant();
    HealthEvaluation.Result result =
        HealthEvaluation.evaluate(
            node,
            health.get(name),
            renew,
            now,
            settings.monitorGracePeriod(),
            settings.startupGracePeriod());
    if (result.conditionsToWrite().isPresent()) {
      NodePatches.replaceConditions(
          client, name, node.getMetadata().getResourceVersion(), result.conditionsToWrite().get());
      log.info(
          "node {}: no heartbeat for over {} s; conditions set to Unknown",
          name,
          result.gracePeriod().toSeconds());
    }
    health.put(name, result.health());
    return result;
  }

  /** §2.5 B */
  private void processTaintBaseEviction(Node node, String observed) {
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
    ZoneTainter tainter = tainters.get(zoneKey(node));
    if (tainter != null) {
      tainter.remove(node.getMetadata().getName());
      tainter.add(node.getMetadata().getName());
    }
  }

  /**
   * Removes both NoExecute taints (no API call when neither is there) and the node from its queue.
   */
  /** {@link #markNodeAsReachable}, a failure logged: one node must not end a pass. */
  private void markNodeAsReachableLogged(Node node) {
    try {
      markNodeAsReachable(node);
    } catch (KubernetesClientException e) {
      log.warn(
          "node {}: cannot lift its NoExecute taints: {}",
          node.getMetadata().getName(),
          e.getMessage());
    }
  }

  private void markNodeAsReachable(Node node) {
    ZoneTainter tainter = tainters.get(zoneKey(node));
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
    node.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
    node.getSpec().setTaints(taints);
    return node;
  }

  /** Every 100 ms: each zone's queue, at the zone's rate (§2.5 B). */
  private void doNoExecuteTaintingPass() {
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
        io.ccm4j.controllers.nodeutil.NodeConditions.find(node, "Ready")
            .map(NodeCondition::getStatus)
            .orElse(null);
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
    lifecycleMetrics.zone(zone).evictions.increment();
    ZoneState state = zoneStates.getOrDefault(zone, ZoneState.INITIAL);
    events.warning(
        node,
        REASON_TAINT_ADDED_NO_EXECUTE,
        "Added taint %s:NoExecute: Ready is %s; zone %s is %s, tainting %s nodes/s"
            .formatted(
                add.getKey(), ready, ZoneState.describe(zone), state, tainters.get(zone).rate()));
    return ZoneTainter.Outcome.DONE;
  }

  /** MarkPodsNotReady (§2.4). */
  /** False when a pod could not be marked (the rest are still tried). */
  private boolean markPodsNotReady(String nodeName) {
    boolean all = true;
    for (Pod pod : pods.getIndexer().byIndex(PODS_BY_NODE, nodeName)) {
      all &= markPodNotReady(pod);
    }
    return all;
  }

  /** Sets the pod's Ready condition to False (no write when it is False already), with an event. */
  private boolean markPodNotReady(Pod pod) {
    List<PodCondition> conditions =
        pod.getStatus() == null || pod.getStatus().getConditions() == null
            ? List.of()
            : pod.getStatus().getConditions();
    boolean changed = false;
    List<PodCondition> updated = new ArrayList<>();
    for (PodCondition condition : conditions) {
      if ("Ready".equals(condition.getType())
          && !ConditionStatus.FALSE.equals(condition.getStatus())) {
        updated.add(
            new PodConditionBuilder(condition)
                .withStatus(ConditionStatus.FALSE)
                .withLastTransitionTime(clock.instant().toString())
                .build());
        changed = true;
      } else {
        updated.add(condition);
      }
    }
    if (!changed) {
      return true;
    }
    try {
      PodStatusPatches.patchConditions(client, pod, updated);
      events.warning(pod, REASON_NODE_NOT_READY, "Node is not ready");
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return true; // the pod is gone
      }
      log.warn(
          "pod {}: cannot mark not ready: {}", Cache.metaNamespaceKeyFunc(pod), e.getMessage());
      return false;
    }
  }

  /** §3.3 */
  private void handleDisruption(Map<String, List<NodeCondition>> zoneConditions, List<Node> all) {
    Map<String, ZoneState> newStates = new LinkedHashMap<>();
    zoneConditions.forEach(
        (zone, conditions) ->
            newStates.put(zone, ZoneState.compute(conditions, settings.unhealthyZoneThreshold())));
    boolean allAreFullyDisrupted =
        newStates.values().stream().allMatch(s -> s == ZoneState.FULL_DISRUPTION);
    newStates.keySet().forEach(zone -> zoneStates.putIfAbsent(zone, ZoneState.INITIAL));
    boolean allWasFullyDisrupted = true;
    for (String zone : new ArrayList<>(zoneStates.keySet())) {
      if (!zoneConditions.containsKey(zone)) {
        zoneStates.remove(zone);
        lifecycleMetrics.remove(zone); // as upstream deletes the zone's series
        continue;
      }
      if (zoneStates.get(zone) != ZoneState.FULL_DISRUPTION) {
        allWasFullyDisrupted = false;
      }
    }
    Map<String, Integer> sizes = new HashMap<>();
    zoneConditions.forEach((zone, conditions) -> sizes.put(zone, conditions.size()));
    updateGauges(zoneConditions);
    if (newStates.isEmpty()) {
      return; // no node counts (none, or all excluded): "every zone is down" would be vacuous
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) {
      // Upstream lifts the NoExecute taints only on the transition, judged from the cache: a taint
      // a tainting pass wrote just before (not yet in the cache) would stay for the whole outage.
      // Lifting on every pass costs a cache read per node and no API call when nothing is there.
      for (Node node : all) {
        markNodeAsReachableLogged(node);
      }
      return;
    }
    if (allAreFullyDisrupted) {
      log.warn(
          "every zone is fully disrupted: stopping NoExecute tainting and lifting those taints");
      // Stop the tainting first: a lift that fails must not leave it running during the outage.
      for (String zone : zoneStates.keySet()) {
        tainters.get(zone).setRate(0);
      }
      for (Node node : all) {
        markNodeAsReachableLogged(node);
      }
      for (String zone : zoneStates.keySet()) {
        changeState(zone, ZoneState.FULL_DISRUPTION, 0, true);
      }
      return;
    }
    if (allWasFullyDisrupted) {
      Instant now = clock.instant();
      health.replaceAll((name, h) -> new NodeHealth(now, now, h.savedReady(), h.leaseRenewTime()));
      for (Map.Entry<String, ZoneState> entry : newStates.entrySet()) {
        String zone = entry.getKey();
        double rate = settings.rateFor(entry.getValue(), sizes.get(zone));
        tainters.get(zone).setRate(rate);
        changeState(zone, entry.getValue(), rate, true);
      }
      return;
    }
    for (Map.Entry<String, ZoneState> entry : newStates.entrySet()) {
      String zone = entry.getKey();
      if (zoneStates.get(zone) != entry.getValue()) {
        double rate = settings.rateFor(entry.getValue(), sizes.get(zone));
        tainters.get(zone).setRate(rate);
        changeState(zone, entry.getValue(), rate, false);
      }
    }
  }

  private void changeState(String zone, ZoneState state, double rate, boolean masterDisruption) {
    ZoneState previous = zoneStates.put(zone, state);
    if (previous == state) {
      return;
    }
    lifecycleMetrics.zone(zone).state.set(state);
    String message =
        "Zone %s changed from %s to %s: NoExecute tainting at %s nodes/s%s"
            .formatted(
                ZoneState.describe(zone),
                previous,
                state,
                rate,
                masterDisruption && state == ZoneState.FULL_DISRUPTION
                    ? " (every zone is fully disrupted: tainting and evictions stopped)"
                    : "");
    log.info(message);
    if (previous != null && previous != ZoneState.INITIAL || state != ZoneState.NORMAL) {
      if (state == ZoneState.NORMAL) {
        events.normal(eventAnchor(), REASON_ZONE_STATE_CHANGED, message);
      } else {
        events.warning(eventAnchor(), REASON_ZONE_STATE_CHANGED, message);
      }
    }
  }

  /** Zone decisions concern no single node; their events are recorded on kube-system. */
  private static HasMetadata eventAnchor() {
    Namespace namespace =
        new NamespaceBuilder()
            .withNewMetadata()
            .withName(WellKnownNamespaces.KUBE_SYSTEM)
            .endMetadata()
            .build();
    namespace.setApiVersion("v1");
    namespace.setKind("Namespace");
    return namespace;
  }

  private void addTainterForNewZone(Node node) {
    String zone = zoneKey(node);
    ZoneTainter tainter =
        tainters.computeIfAbsent(zone, z -> new ZoneTainter(settings.evictionRate(), clock));
    if (!zoneStates.containsKey(zone)) {
      zoneStates.put(zone, ZoneState.INITIAL);
      // A zone that comes back (its nodes were all excluded or gone) starts at the normal rate,
      // as upstream's new queue does, not at whatever its last state left.
      tainter.setRate(settings.evictionRate());
    }
  }

  private void updateGauges(Map<String, List<NodeCondition>> zoneConditions) {
    zoneConditions.forEach(
        (zone, conditions) -> {
          int size = conditions.size();
          long unhealthy =
              conditions.stream()
                  .filter(c -> c == null || !ConditionStatus.TRUE.equals(c.getStatus()))
                  .count();
          NodeLifecycleControllerMetrics.Zone gauges = lifecycleMetrics.zone(zone);
          gauges.size.set((double) size);
          gauges.unhealthy.set((double) unhealthy);
          gauges.health.set(size == 0 ? 100.0 : 100.0 * (size - unhealthy) / size);
        });
  }

  /** §2.5 A: runs on every node event, not rate limited. */
  private void doNoScheduleTaintingPass(String name) {
    Node node = nodes.getStore().getByKey(name);
    if (node == null) {
      return;
    }
    Set<String> desired = ConditionTaints.desiredKeys(node);
    NodePatches.updateTaints(
        client, node, taints -> ConditionTaints.reconcile(taints, desired, clock.instant()));
  }

  private boolean isExcluded(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return labels != null && labels.containsKey(WellKnownLabels.EXCLUDE_DISRUPTION);
  }

  private static String zoneKey(Node node) {
    return ZoneState.zoneKey(node.getMetadata().getLabels());
  }

  /** For tests: whether a deletion of the pod is pending. */
  boolean isEvictionPending(String podKey) {
    return taintManager.isEvictionPending(podKey);
  }

  ZoneState zoneState(String zoneKey) {
    return zoneStates.getOrDefault(zoneKey, ZoneState.INITIAL);
  }

  @Override
  public void close() throws InterruptedException {
    loops.shutdownNow();
    noScheduleWorkers.close();
    taintManagerWorkers.close();
    loops.awaitTermination(10, TimeUnit.SECONDS);
  }
}
