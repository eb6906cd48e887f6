package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.SharedInformers;
import io.ccm4j.controllers.nodelifecycle.TaintEvictionKey.NodeChanged;
import io.ccm4j.controllers.nodelifecycle.TaintEvictionKey.PodBound;
import io.ccm4j.controllers.nodelifecycle.TaintEvictionKey.PodChanged;
import io.ccm4j.controllers.nodeutil.NodePatches;
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
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.micrometer.core.instrument.MeterRegistry;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
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

  static final String PODS_BY_NODE = "byNode";

  /**
   * Taint eviction, a part with a client of its own ({@link ControllerContext#clientFor}):
   * upstream's controller of that name.
   */
  public static final String TAINT_EVICTION = "taint-eviction-controller";

  private static final Duration TAINTING_PERIOD = Duration.ofMillis(100);

  /** Tries of a node's health write in one pass: upstream's {@code NodeHealthUpdateRetry}. */
  static final int HEALTH_UPDATE_TRIES = 5;

  /** Between those tries: upstream's {@code retrySleepTime}. */
  static final Duration HEALTH_RETRY_SLEEP = Duration.ofMillis(20);

  private final KubernetesClient client;
  private final NodeHealthSettings settings;
  private final InstantSource clock;
  private final String name;
  private final EventRecorder events;
  private final MeterRegistry metrics;
  private final NodeLifecycleControllerMetrics lifecycleMetrics;
  private final SharedIndexInformer<Node> nodes;
  private final SharedIndexInformer<Lease> leases;
  private final SharedIndexInformer<Pod> pods;
  private final NodeHealthTable health = new NodeHealthTable();
  private final ZoneStates zoneStates = new ZoneStates();
  private final ZoneEvictionRate rates;

  /** Draws the order each pass visits the zones in (§3.3), as Go's map range does. */
  private final RandomGenerator zoneOrder = new SplittableRandom();

  /** Name → the Node as last seen, for the RemovingNode event once it is gone. */
  private final Map<String, Node> knownNodes = new ConcurrentHashMap<>();

  /** Nodes with pods whose NotReady mark failed: retried on the next passes. */
  private final Set<String> podsToRetry = ConcurrentHashMap.newKeySet();

  /**
   * The Lease cache's circuit breaker (upstream's NodeControllerLeaseCircuitBreaker, on by default
   * since 1.37): the resource version of a Lease found newer on the API server than in the cache
   * when its node was about to be marked Unknown; no node is judged until the cache has caught up
   * with it. Null when the cache is not known to be behind. Only the pass touches it.
   */
  private String leaseVersionToCatchUp;

  private final NoExecuteTainting tainting;
  private final WorkQueue<String> noScheduleQueue;
  private final QueueWorkers<String> noScheduleWorkers;
  private final WorkQueue<TaintEvictionKey> taintEvictionQueue;
  private final QueueWorkers<TaintEvictionKey> taintEvictionWorkers;
  private final TaintEviction taintEviction;
  private final PodReadiness podReadiness;
  private final ScheduledExecutorService loops;
  private final ScheduledExecutorService evictionTimers;
  private final ExecutorService evictions;
  private final List<PeriodicPass> passes = new CopyOnWriteArrayList<>();

  public NodeLifecycleController(ControllerContext context, NodeHealthSettings settings) {
    this(context, settings, InstantSource.system());
  }

  NodeLifecycleController(
      ControllerContext context, NodeHealthSettings settings, InstantSource clock) {
    this.client = context.client();
    this.settings = settings;
    this.rates = ZoneEvictionRate.of(settings);
    this.clock = clock;
    this.name = context.name();
    this.events = context.events();
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
    // Deletions on threads of their own and on a client, and so a rate limit, of their own: a
    // burst of them (a node's pods all due at once) must not hold up the health and tainting
    // passes, as upstream's taint-eviction controller runs apart from its node-lifecycle controller
    // on a clientset of its own (§4.5).
    this.evictionTimers = evictionTimers();
    this.evictions = evictionThreads();
    this.taintEviction =
        new TaintEviction(
            context.clientFor(TAINT_EVICTION),
            nodes,
            pods,
            events,
            clock,
            evictionTimers,
            evictions,
            lifecycleMetrics);
    this.podReadiness = new PodReadiness(client, pods, events, clock, health);
    this.tainting =
        new NoExecuteTainting(
            client,
            nodes.getStore()::getByKey,
            events,
            clock,
            lifecycleMetrics,
            zoneStates,
            rates.normal());
    this.noScheduleQueue =
        new WorkQueue<>("node-lifecycle-noschedule", RateLimiters.controllerDefault(), metrics);
    this.noScheduleWorkers =
        new QueueWorkers<>(
            "node-lifecycle-noschedule", noScheduleQueue, this::doNoScheduleTaintingPass, 8);
    // The queue keeps its name (and so its metrics' name) from when this was the taint manager.
    this.taintEvictionQueue =
        new WorkQueue<>("node-lifecycle-taint-manager", RateLimiters.controllerDefault(), metrics);
    this.taintEvictionWorkers =
        new QueueWorkers<>(
            "node-lifecycle-taint-manager", taintEvictionQueue, this::taintEvictionSync, 1);
    nodes.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Node node) {
            noScheduleQueue.add(node.getMetadata().getName());
            taintEvictionQueue.add(new NodeChanged(node.getMetadata().getName()));
          }

          @Override
          public void onUpdate(Node previous, Node node) {
            noScheduleQueue.add(node.getMetadata().getName());
            if (TaintEviction.noExecuteTaintsChanged(previous, node)) {
              taintEvictionQueue.add(new NodeChanged(node.getMetadata().getName()));
            }
          }

          @Override
          public void onDelete(Node node, boolean unknown) {
            taintEvictionQueue.add(new NodeChanged(node.getMetadata().getName()));
          }
        });
    pods.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Pod pod) {
            taintEvictionQueue.add(new PodChanged(Cache.metaNamespaceKeyFunc(pod)));
            if (PodReadiness.nodeName(pod) != null) {
              taintEvictionQueue.add(new PodBound(Cache.metaNamespaceKeyFunc(pod)));
            }
          }

          @Override
          public void onUpdate(Pod previous, Pod pod) {
            if (TaintEviction.podChanged(previous, pod)) {
              taintEvictionQueue.add(new PodChanged(Cache.metaNamespaceKeyFunc(pod)));
            }
            if (PodReadiness.nodeName(pod) != null
                && !PodReadiness.nodeName(pod).equals(PodReadiness.nodeName(previous))) {
              taintEvictionQueue.add(new PodBound(Cache.metaNamespaceKeyFunc(pod)));
            }
          }

          @Override
          public void onDelete(Pod pod, boolean unknown) {
            taintEvictionQueue.add(new PodChanged(Cache.metaNamespaceKeyFunc(pod)));
          }
        });
  }

  /**
   * The timers of taint eviction's deletions: one thread, which only hands each due deletion to
   * {@link #evictionThreads}. A cancelled deletion leaves their queue at once: left there until its
   * due time, each one would hold its pod that long, and a node whose taints come and go would pile
   * up one per pod and change for as long as the pods' tolerations last.
   */
  static ScheduledThreadPoolExecutor evictionTimers() {
    ScheduledThreadPoolExecutor timers =
        new ScheduledThreadPoolExecutor(
            1,
            runnable ->
                Thread.ofPlatform().name("node-lifecycle-eviction-timer").unstarted(runnable));
    timers.setRemoveOnCancelPolicy(true);
    return timers;
  }

  /**
   * A virtual thread per due deletion, as upstream's timed worker queue starts a goroutine per due
   * work item: a deletion waiting for a slow API server (its five tries, each a read, a condition
   * write and a delete) holds up no other pod's.
   */
  static ExecutorService evictionThreads() {
    return Executors.newThreadPerTaskExecutor(
        Thread.ofVirtual().name("node-lifecycle-eviction-", 0).factory());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void start() {
    noScheduleWorkers.start();
    taintEvictionWorkers.start();
    passes.add(
        PeriodicPass.withFixedDelay(
            loops,
            "node health pass",
            this::monitorNodeHealth,
            Duration.ZERO,
            settings.monitorPeriod()));
    passes.add(
        PeriodicPass.withFixedDelay(
            loops, "NoExecute tainting pass", tainting::runPass, Duration.ZERO, TAINTING_PERIOD));
  }

  @Override
  public Optional<String> health() {
    return HealthChecks.problems(
        noScheduleWorkers.health(),
        taintEvictionWorkers.health(),
        HealthChecks.problems(passes.stream().map(PeriodicPass::health).toArray(Optional[]::new)));
  }

  private void taintEvictionSync(TaintEvictionKey key) {
    switch (key) {
      case NodeChanged changed -> taintEviction.handleNodeUpdate(changed.node());
      case PodChanged changed -> taintEviction.handlePodUpdate(changed.pod());
      case PodBound bound -> podReadiness.podBound(bound.pod());
    }
  }

  /** One pass (§2.2); public so a benchmark can time it without the periodic loop. */
  public synchronized void monitorNodeHealth() {
    long start = System.nanoTime();
    try {
      judgeNodes();
    } finally {
      lifecycleMetrics.updateAllNodesHealthDuration.record(
          System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
  }

  private void judgeNodes() {
    List<Node> all = nodes.getStore().list();
    Set<String> listed = new HashSet<>();
    for (Node node : all) {
      String name = node.getMetadata().getName();
      listed.add(name);
      if (knownNodes.put(name, node) == null) {
        events.normal(
            node,
            NodeLifecycleEvents.REGISTERED_NODE,
            "Node %s event: Registered Node %s in Controller".formatted(name, name));
        addZone(zoneKey(node));
        tainting.markNodeAsReachableLogged(node);
      } else {
        addZone(zoneKey(node));
      }
    }
    for (Node gone : new ArrayList<>(knownNodes.values())) {
      String name = gone.getMetadata().getName();
      if (!listed.contains(name)) {
        knownNodes.remove(name);
        health.forget(name);
        podsToRetry.remove(name);
        log.info("Removing Node {} from Controller", name);
        events.normal(
            gone,
            NodeLifecycleEvents.REMOVING_NODE,
            "Node %s event: Removing Node %s from Controller".formatted(name, name));
      }
    }
    Map<String, List<NodeCondition>> zoneConditions = new LinkedHashMap<>();
    Instant now = clock.instant();
    for (Node node : all) {
      long nodeStart = System.nanoTime();
      boolean goOn;
      try {
        goOn = judgeNode(node, now, zoneConditions);
      } finally {
        lifecycleMetrics.updateNodeHealthDuration.record(
            System.nanoTime() - nodeStart, TimeUnit.NANOSECONDS);
      }
      if (!goOn) {
        return;
      }
    }
    applyZoneDecisions(zoneConditions, all);
  }

  /**
   * §2.2 for one node: its health judged and written, its taints and pods seen to; false when the
   * Lease cache is behind and the pass must stop.
   */
  private boolean judgeNode(
      Node cached, Instant now, Map<String, List<NodeCondition>> zoneConditions) {
    String name = cached.getMetadata().getName();
    Judged judged;
    try {
      judged = leaseCacheIsBehind() ? null : updateHealth(cached, now);
    } catch (KubernetesClientException e) {
      log.warn(
          "node {}: cannot update health, skipping - no pods will be evicted: {}",
          name,
          e.getMessage());
      return true;
    }
    if (judged == null) {
      // A stale Lease cache would make live nodes look silent: judge none of the others, and
      // leave the zones as the last complete pass left them.
      log.debug("the Lease cache is behind the API server: this pass judges no more nodes");
      return false;
    }
    // The node as judged: the one read afresh when the write of its health had to be retried.
    Node node = judged.node();
    // Read afresh, its zone labels may have changed since the pass listed it: a zone the pass has
    // not seen is started as a new one here (§3.5), before the node is queued or counted in it.
    // Upstream's queue lookups would find no queue for it (a nil dereference).
    addZone(zoneKey(node));
    HealthEvaluation.Result result = judged.result();
    if (!isExcluded(node)) {
      zoneConditions.computeIfAbsent(zoneKey(node), z -> new ArrayList<>()).add(result.current());
    }
    if (result.current() == null) {
      return true;
    }
    try {
      // Ready as it is after this pass, as upstream's (1.37) passes it: a node this pass
      // marked Unknown is queued for its NoExecute taint now, not a monitor period later.
      tainting.process(node, result.current().getStatus());
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
          node,
          NodeLifecycleEvents.NODE_NOT_READY,
          "Node %s status is now: NodeNotReady".formatted(name));
    }
    // §2.2: pods whose NotReady mark failed are retried on later passes while the node stays
    // not Ready (upstream's nodesToRetry); a node that is Ready again needs none.
    if ((becameNotReady
            || podsToRetry.contains(name)
                && !ConditionStatus.TRUE.equals(result.observed().getStatus()))
        && !podReadiness.markPodsNotReady(name)) {
      podsToRetry.add(name);
    } else {
      podsToRetry.remove(name);
    }
    return true;
  }

  /**
   * §3.5: a zone seen for the first time, or again after a pass forgot it, starts Initial with a
   * new, empty tainter at the normal rate and a full bucket, as upstream's new queue: nothing its
   * old queue held, remembered or spent carries over.
   */
  private void addZone(String zone) {
    if (zoneStates.add(zone)) {
      tainting.startZone(zone, rates.normal());
    }
  }

  /** §3.3: the zones' decisions of this pass ({@link ZoneDisruption}), applied in one place. */
  private void applyZoneDecisions(Map<String, List<NodeCondition>> zoneConditions, List<Node> all) {
    Map<String, ZoneState> previous = zoneStates.inVisitOrder(zoneConditions.keySet(), zoneOrder);
    ZoneDisruption.Plan plan =
        ZoneDisruption.decide(previous, zoneConditions, settings.unhealthyZoneThreshold(), rates);
    for (String zone : plan.forgotten()) {
      zoneStates.forget(zone);
      lifecycleMetrics.forget(zone);
    }
    for (String zone : plan.reset()) {
      // Not reached by this pass: kept, its rate as it was, until a pass reaches it.
      zoneStates.set(zone, ZoneState.INITIAL);
      lifecycleMetrics.recordState(zone, ZoneState.INITIAL);
      log.info(
          "Zone {} has no node that counts: kept as {} until a pass reaches it",
          ZoneState.describe(zone),
          ZoneState.INITIAL);
    }
    lifecycleMetrics.recordZones(zoneConditions);
    if (plan.outage() == ZoneDisruption.Outage.STARTS) {
      if (ZoneDisruption.startsBeforeAnyZoneWasJudged(previous)) {
        log.info(
            "no node has been Ready yet, so every zone is fully disrupted: no NoExecute tainting until one is");
      } else {
        log.warn(
            "every zone is fully disrupted: stopping NoExecute tainting and lifting those taints");
      }
    }
    // Rates first: a lift that fails must not leave the tainting running during the outage.
    for (ZoneDisruption.ZoneDecision decision : plan.zones()) {
      tainting.setRate(decision.zone(), decision.rate());
    }
    if (plan.liftsNoExecuteTaints()) {
      for (Node node : all) {
        tainting.markNodeAsReachableLogged(node);
      }
    }
    if (plan.restartsGracePeriods()) {
      health.restartGracePeriods(clock.instant());
    }
    for (ZoneDisruption.ZoneDecision decision : plan.zones()) {
      recordZoneState(decision, plan.outage());
    }
  }

  private void recordZoneState(ZoneDisruption.ZoneDecision decision, ZoneDisruption.Outage outage) {
    ZoneState previous = zoneStates.set(decision.zone(), decision.state());
    if (previous == decision.state()) {
      return;
    }
    lifecycleMetrics.recordState(decision.zone(), decision.state());
    String message = ZoneDisruption.changeMessage(decision.zone(), previous, decision, outage);
    log.info(message);
    if (!ZoneDisruption.isWorthAnEvent(previous, decision.state())) {
      return;
    }
    if (decision.state() == ZoneState.NORMAL) {
      events.normal(kubeSystem(), NodeLifecycleEvents.ZONE_STATE_CHANGED, message);
    } else {
      events.warning(kubeSystem(), NodeLifecycleEvents.ZONE_STATE_CHANGED, message);
    }
  }

  /** Zone decisions concern no single node; their events are recorded on kube-system. */
  private static HasMetadata kubeSystem() {
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

  /** A node as its health was judged, and the judgement. */
  private record Judged(Node node, HealthEvaluation.Result result) {}

  /**
   * §2.2 a: {@link #evaluateAndWrite}, tried again while writing the node's Unknown conditions
   * fails, as upstream's {@code wait.PollImmediate(retrySleepTime, retrySleepTime *
   * NodeHealthUpdateRetry)} does: at most {@link #HEALTH_UPDATE_TRIES} tries, {@link
   * #HEALTH_RETRY_SLEEP} apart, each after the first on the node read afresh from the API server (a
   * conflict is most often the kubelet's heartbeat, which the fresh copy shows, or another writer's
   * change). The last failure, or the read's, is thrown: the node is skipped this pass. Null when
   * the Lease cache is behind.
   */
  private Judged updateHealth(Node cached, Instant now) {
    String name = cached.getMetadata().getName();
    long start = System.nanoTime();
    Node node = cached;
    Instant judgedAt = now;
    for (int attempt = 1; ; attempt++) {
      try {
        HealthEvaluation.Result result = evaluateAndWrite(node, judgedAt);
        return result == null ? null : new Judged(node, result);
      } catch (HealthWriteFailed failed) {
        if (attempt >= HEALTH_UPDATE_TRIES) {
          throw failed.getCause();
        }
        log.debug(
            "node {}: cannot write its health (try {}), reading it again: {}",
            name,
            attempt,
            failed.getCause().getMessage());
        node = client.nodes().withName(name).get();
        if (node == null) {
          log.info("node {}: gone while its health was being written; skipped this pass", name);
          throw failed.getCause();
        }
        if (!sleepUntil(start + HEALTH_RETRY_SLEEP.toNanos() * attempt)) {
          throw failed.getCause();
        }
        judgedAt = clock.instant();
      }
    }
  }

  /** Sleeps until {@code System.nanoTime()} reaches {@code deadline}; false when interrupted. */
  private static boolean sleepUntil(long deadline) {
    long wait = deadline - System.nanoTime();
    if (wait <= 0) {
      return true;
    }
    try {
      TimeUnit.NANOSECONDS.sleep(wait);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the controller stops
      return false;
    }
  }

  /** The write of a node's health failed: the one failure {@link #updateHealth} tries again. */
  private static final class HealthWriteFailed extends RuntimeException {
    HealthWriteFailed(KubernetesClientException cause) {
      super(cause.getMessage(), cause, false, false);
    }

    @Override
    public synchronized KubernetesClientException getCause() {
      return (KubernetesClientException) super.getCause();
    }
  }

  /**
   * §2.3 for one node, its Unknown conditions written when it is silent; null, with nothing written
   * or remembered, when its Lease shows the Lease cache is behind ({@link #isNewerOnTheServer}).
   *
   * @throws HealthWriteFailed when the write fails (nothing remembered then)
   */
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
      if (isNewerOnTheServer(name, lease)) {
        return null;
      }
      try {
        NodePatches.replaceConditions(
            client,
            name,
            node.getMetadata().getResourceVersion(),
            result.conditionsToWrite().get());
      } catch (KubernetesClientException e) {
        throw new HealthWriteFailed(e);
      }
      log.info(
          "node {}: no heartbeat for over {} s; conditions set to Unknown",
          name,
          result.gracePeriod().toSeconds());
    }
    health.record(name, result.health());
    return result;
  }

  /**
   * Whether the node's Lease, which the cache says expired, is newer on the API server: then the
   * cache is behind (a stalled watch), and marking the node Unknown would act on a heartbeat it
   * missed. Remembers the version the cache must reach. A Lease gone from the server is not newer.
   */
  private boolean isNewerOnTheServer(String name, Lease cached) {
    Lease live;
    try {
      live = client.leases().inNamespace(WellKnownNamespaces.KUBE_NODE_LEASE).withName(name).get();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 403) {
        throw e; // the node is skipped this pass, as upstream's
      }
      // A role written before this check: a node must still become Unknown.
      log.warn(
          "node {}: cannot read its Lease to check the Lease cache (grant get on leases): {}",
          name,
          e.getMessage());
      return false;
    }
    if (live == null) {
      return false;
    }
    String liveVersion = live.getMetadata().getResourceVersion();
    String cachedVersion = cached == null ? null : cached.getMetadata().getResourceVersion();
    if (liveVersion == null || liveVersion.equals(cachedVersion)) {
      return false;
    }
    leaseVersionToCatchUp = liveVersion;
    log.warn(
        "node {}: its Lease looks expired in the cache (resourceVersion {}) but is at {} on the API"
            + " server: no node is marked Unknown until the Lease cache catches up",
        name,
        cachedVersion,
        liveVersion);
    return true;
  }

  /**
   * Whether the Lease cache has not yet reached the version {@link #isNewerOnTheServer} found;
   * resource versions that do not read as numbers are not compared.
   */
  private boolean leaseCacheIsBehind() {
    if (leaseVersionToCatchUp == null) {
      return false;
    }
    String read = leases.lastSyncResourceVersion();
    if (read != null && isAfter(leaseVersionToCatchUp, read)) {
      return true;
    }
    log.info("the Lease cache has caught up (resourceVersion {}): judging nodes again", read);
    leaseVersionToCatchUp = null;
    return false;
  }

  /** Whether resource version {@code a} is after {@code b}; false when either is not a number. */
  private static boolean isAfter(String a, String b) {
    try {
      return new BigInteger(a).compareTo(new BigInteger(b)) > 0;
    } catch (NumberFormatException e) {
      return false; // not comparable: trust the cache, as upstream's does
    }
  }

  /**
   * §2.5 A: runs on every node event, not rate limited; with it, as upstream's worker, the beta OS
   * and architecture labels are made to follow the GA ones.
   */
  private void doNoScheduleTaintingPass(String name) {
    Node node = nodes.getStore().getByKey(name);
    if (node == null) {
      return;
    }
    Set<String> desired = ConditionTaints.desiredKeys(node);
    NodePatches.updateTaints(
        client, node, taints -> ConditionTaints.reconcile(taints, desired, clock.instant()));
    Map<String, String> labels = BetaLabels.toSet(node.getMetadata().getLabels());
    if (!labels.isEmpty()) {
      NodePatches.patchLabels(client, name, labels);
    }
  }

  private boolean isExcluded(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return labels != null && labels.containsKey(WellKnownLabels.EXCLUDE_DISRUPTION);
  }

  static String zoneKey(Node node) {
    return ZoneState.zoneKey(node.getMetadata().getLabels());
  }

  /** For tests: whether a deletion of the pod is pending. */
  boolean isEvictionPending(String podKey) {
    return taintEviction.isEvictionPending(podKey);
  }

  /**
   * For tests: whether the node's zone queue was given it and has not removed it since, whether it
   * still waits there or its taint was added (upstream's markNodeForTainting finds it so).
   */
  boolean isMarkedForNoExecuteTaint(String node) {
    Node cached = nodes.getStore().getByKey(node);
    return cached != null && tainting.tainter(zoneKey(cached)).isMarked(node);
  }

  /** For tests: a zone's state. */
  ZoneState zoneState(String zoneKey) {
    return zoneStates.state(zoneKey);
  }

  @Override
  public void close() throws InterruptedException {
    loops.shutdownNow();
    // The timers first: a deletion interrupted by the shutdown tells it from a failure by them.
    evictionTimers.shutdownNow();
    evictions.shutdownNow();
    noScheduleWorkers.close();
    taintEvictionWorkers.close();
    loops.awaitTermination(10, TimeUnit.SECONDS);
    evictionTimers.awaitTermination(10, TimeUnit.SECONDS);
    evictions.awaitTermination(10, TimeUnit.SECONDS);
  }
}
