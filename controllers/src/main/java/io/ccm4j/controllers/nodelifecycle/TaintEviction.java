package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.PodDeletions;
import io.ccm4j.controllers.nodeutil.PodStatusPatches;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Taint-based eviction (node-lifecycle spec §4): a pod on a node with NoExecute taints is deleted
 * once the least {@code tolerationSeconds} of its matching tolerations has passed, at once when a
 * taint is not tolerated, never when tolerated without seconds; a pending deletion is cancelled
 * when the taints go away. Before deleting, the pod gets the {@code DisruptionTarget} condition
 * (modern upstream). Named as upstream names it since it left the node-lifecycle controller ({@code
 * pkg/controller/tainteviction}, KEP-3902); formerly its NoExecuteTaintManager.
 */
final class TaintEviction {

  private static final Logger log = LoggerFactory.getLogger(TaintEviction.class);

  /**
   * The longest wait taken as written: 10,000 years. The API server takes any int64 {@code
   * tolerationSeconds}, more than a clock can add; a longer one waits this long (upstream's
   * overflows its Duration beyond about 292 years and may evict at once).
   */
  static final long MAX_TOLERATION_SECONDS = Duration.ofDays(365L * 10_000).toSeconds();

  /** Tries of an eviction, 10 ms apart (upstream's retries). */
  static final int TRIES = 5;

  private static final String DISRUPTION_TARGET = "DisruptionTarget";

  /**
   * A scheduled (or, with a null future, already executed) deletion of {@code pod}, kept for the
   * event that cancels it. Compared by identity: a deletion that runs touches the pod's entry only
   * while the entry is still this one, never a deletion scheduled since in its place.
   */
  private static final class Work {
    final Instant createdAt;
    final Pod pod;

    /**
     * Whether it was due after its creation, not at once: upstream's createWorker gives only such a
     * deletion a timer, and only a deletion with a timer is cancelled with an event.
     */
    final boolean timed;

    /** Null once the deletion has run; guarded by the TaintEviction's lock. */
    ScheduledFuture<?> future;

    Work(Instant createdAt, Pod pod, boolean timed) {
      this.createdAt = createdAt;
      this.pod = pod;
      this.timed = timed;
    }
  }

  /** Deletes a pod for taint eviction: one try (§4.5). */
  @FunctionalInterface
  interface PodEvictor {
    PodDeletions.Outcome evict(Pod pod);
  }

  private final KubernetesClient client;
  private final SharedIndexInformer<Node> nodes;
  private final SharedIndexInformer<Pod> pods;
  private final EventRecorder events;
  private final InstantSource clock;
  private final ScheduledExecutorService timers;
  private final Executor deletions;
  private final Map<String, List<Taint>> taintedNodes = new ConcurrentHashMap<>();
  private final Map<String, Work> work = new ConcurrentHashMap<>();
  private final NodeLifecycleControllerMetrics metrics;
  private final PodEvictor evictor;

  TaintEviction(
      KubernetesClient client,
      SharedIndexInformer<Node> nodes,
      SharedIndexInformer<Pod> pods,
      EventRecorder events,
      InstantSource clock,
      ScheduledExecutorService timers,
      Executor deletions,
      NodeLifecycleControllerMetrics metrics) {
    this(client, nodes, pods, events, clock, timers, deletions, metrics, null);
  }

  /**
   * @param timers when each deletion is due; they only hand it to {@code deletions}
   * @param deletions runs each due deletion, each on a thread of its own as upstream's timed
   *     workers each run in a goroutine of their own, so a deletion waiting for a slow API server
   *     holds up no other
   * @param evictor one try of a deletion; null: the pod given the {@code DisruptionTarget}
   *     condition and deleted through the API ({@link PodDeletions#deleteExactly})
   */
  TaintEviction(
      KubernetesClient client,
      SharedIndexInformer<Node> nodes,
      SharedIndexInformer<Pod> pods,
      EventRecorder events,
      InstantSource clock,
      ScheduledExecutorService timers,
      Executor deletions,
      NodeLifecycleControllerMetrics metrics,
      PodEvictor evictor) {
    this.client = client;
    this.nodes = nodes;
    this.pods = pods;
    this.events = events;
    this.clock = clock;
    this.timers = timers;
    this.deletions = deletions;
    this.metrics = metrics;
    this.evictor =
        evictor != null
            ? evictor
            : pod -> PodDeletions.deleteExactly(client, pod, this::markDisruptionTarget);
  }

  static List<Taint> noExecuteTaints(Node node) {
    if (node.getSpec() == null || node.getSpec().getTaints() == null) {
      return List.of();
    }
    return node.getSpec().getTaints().stream()
        .filter(t -> WellKnownTaints.EFFECT_NO_EXECUTE.equals(t.getEffect()))
        .toList();
  }

  /** Whether a node update matters: its NoExecute taints changed (§4.1). */
  static boolean noExecuteTaintsChanged(Node previous, Node current) {
    return !noExecuteTaints(previous).equals(noExecuteTaints(current));
  }

  /** Whether a pod update matters: its tolerations or node changed (§4.1). */
  static boolean podChanged(Pod previous, Pod current) {
    return !Objects.equals(previous.getSpec().getTolerations(), current.getSpec().getTolerations())
        || !Objects.equals(previous.getSpec().getNodeName(), current.getSpec().getNodeName());
  }

  /** §4.2 */
  synchronized void handleNodeUpdate(String nodeName) {
    Node node = nodes.getStore().getByKey(nodeName);
    if (node == null) {
      taintedNodes.remove(nodeName);
      return;
    }
    List<Taint> taints = noExecuteTaints(node);
    if (taints.isEmpty()) {
      taintedNodes.remove(nodeName);
    } else {
      taintedNodes.put(nodeName, taints);
    }
    List<Pod> onNode = pods.getIndexer().byIndex(NodeLifecycleController.PODS_BY_NODE, nodeName);
    if (onNode.isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    for (Pod pod : onNode) {
      if (taints.isEmpty()) {
        cancel(Cache.metaNamespaceKeyFunc(pod));
      } else {
        processPodOnNode(pod, taints, now);
      }
    }
  }

  /** §4.3 */
  synchronized void handlePodUpdate(String podKey) {
    Pod pod = pods.getStore().getByKey(podKey);
    if (pod == null) {
      cancel(podKey);
      return;
    }
    String nodeName = pod.getSpec().getNodeName();
    if (nodeName == null || nodeName.isEmpty()) {
      return;
    }
    List<Taint> taints = taintedNodes.get(nodeName);
    if (taints == null) {
      return;
    }
    processPodOnNode(pod, taints, clock.instant());
  }

  /**
   * §4.4; as upstream's processPodOnNode, every pending deletion it replaces or drops is cancelled
   * with its event.
   */
  private void processPodOnNode(Pod pod, List<Taint> taints, Instant now) {
    String key = Cache.metaNamespaceKeyFunc(pod);
    Work previous = work.get(key);
    if (previous != null
        && !Objects.equals(previous.pod.getMetadata().getUid(), pod.getMetadata().getUid())) {
      // Another pod of that name (deleted and created again, both seen in one update): the
      // deletion kept for its predecessor, pending or done, is not this pod's.
      cancel(key);
    }
    if (taints.isEmpty()) {
      cancel(key);
      return;
    }
    List<Toleration> tolerations =
        pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
    Optional<List<Toleration>> used = Tolerations.matching(taints, tolerations);
    if (used.isEmpty()) {
      cancel(key);
      schedule(pod, now, now);
      return;
    }
    long seconds = Math.min(Tolerations.minTolerationSeconds(used.get()), MAX_TOLERATION_SECONDS);
    if (seconds < 0) {
      cancel(key);
      return;
    }
    Instant trigger = now.plusSeconds(seconds);
    Work existing = work.get(key);
    Instant start = now;
    if (existing != null) {
      if (existing.createdAt.plusSeconds(seconds).isBefore(trigger)) {
        return; // an eviction already scheduled keeps its time
      }
      cancel(key);
      start = existing.createdAt;
    }
    schedule(pod, start, start.plusSeconds(seconds));
  }

  private void schedule(Pod pod, Instant createdAt, Instant fireAt) {
    String key = Cache.metaNamespaceKeyFunc(pod);
    if (work.containsKey(key)) {
      return;
    }
    long delayMs = Math.max(0, fireAt.toEpochMilli() - clock.instant().toEpochMilli());
    Work scheduled = new Work(createdAt, pod, fireAt.isAfter(createdAt));
    // Entered before it can run: the deletion checks that it is still the pod's entry.
    work.put(key, scheduled);
    try {
      scheduled.future =
          timers.schedule(
              () -> startDeletion(key, scheduled, fireAt), delayMs, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // The manager is stopping: its timers went first, and the pod's key is the queue's last.
      forget(key, scheduled);
      log.debug("pod {}: eviction not scheduled, the manager is stopping", key);
    }
  }

  /** Hands a due deletion to a thread of its own; the timer thread never waits for the API. */
  private void startDeletion(String key, Work scheduled, Instant fireAt) {
    try {
      deletions.execute(() -> evict(key, scheduled, fireAt));
    } catch (RejectedExecutionException e) {
      log.debug("pod {}: eviction not started, the manager is stopping", key);
    }
  }

  /** Whether {@code scheduled} is still the pod's deletion: neither cancelled nor replaced. */
  private synchronized boolean isCurrent(String key, Work scheduled) {
    return work.get(key) == scheduled;
  }

  /** Drops the pod's entry if it is still {@code scheduled}, not a deletion scheduled since. */
  private synchronized void forget(String key, Work scheduled) {
    work.remove(key, scheduled);
  }

  /**
   * Drops the pod's deletion, wherever upstream's cancelWorkWithEvent cancels: the taints gone, the
   * pod tolerating them forever, deleted, or its deletion replaced by an earlier one (an
   * untolerated taint). One that has not ended yet (waiting, or between its tries) runs no further
   * try. The {@code TaintManagerEviction} "Cancelling deletion" event is recorded exactly when
   * upstream's CancelWork finds a timer: the deletion was due after its creation and has not ended,
   * whether it still waits or already runs; a deletion due at once has none (upstream starts it at
   * once and cannot cancel it), nor has one that has ended.
   */
  private void cancel(String key) {
    Work existing = work.remove(key);
    if (existing == null || existing.future == null) {
      return;
    }
    existing.future.cancel(false);
    if (existing.timed) {
      Pod pod = existing.pod;
      events.normal(
          pod,
          NodeLifecycleEvents.TAINT_MANAGER_EVICTION,
          "Cancelling deletion of Pod %s/%s"
              .formatted(pod.getMetadata().getNamespace(), pod.getMetadata().getName()));
    }
  }

  /**
   * §4.5, as upstream's deletePodHandler: records the event, then up to {@link #TRIES} times, 10 ms
   * apart, reads the pod, gives it the {@code DisruptionTarget} condition and deletes it, the pod
   * the deletion was scheduled for and never another one created since under its name. A try whose
   * condition write fails deletes nothing (upstream's addConditionAndDeletePod returns the error):
   * the next try starts again from a fresh read. No try starts once the deletion is cancelled (the
   * taints gone, the pod tolerating them now) or replaced; upstream's goes on with its tries.
   */
  private void evict(String key, Work scheduled, Instant fireAt) {
    if (!isCurrent(key, scheduled)) {
      return;
    }
    Pod pod = pods.getStore().getByKey(key);
    if (pod == null || !pod.getMetadata().getUid().equals(scheduled.pod.getMetadata().getUid())) {
      forget(key, scheduled);
      return;
    }
    if (!onTaintedNode(pod)) {
      log.info("pod {}: not evicted, its node has no NoExecute taint any more", key);
      forget(key, scheduled);
      return;
    }
    events.normal(
        pod,
        NodeLifecycleEvents.TAINT_MANAGER_EVICTION,
        "Marking for deletion Pod %s".formatted(key));
    for (int attempt = 1; attempt <= TRIES; attempt++) {
      if (!isCurrent(key, scheduled)) {
        log.info("pod {}: eviction cancelled before its try {}", key, attempt);
        return;
      }
      if (!onTaintedNode(pod)) {
        // The cancellation is on its way through the queue: the node's taints were lifted since.
        log.info("pod {}: not evicted, its node has no NoExecute taint any more", key);
        forget(key, scheduled);
        return;
      }
      try {
        PodDeletions.Outcome outcome = evictor.evict(pod);
        if (outcome != PodDeletions.Outcome.DELETED) {
          log.info(
              "pod {}: not evicted, {}",
              key,
              outcome == PodDeletions.Outcome.GONE
                  ? "already gone"
                  : "replaced by another pod of that name");
          forget(key, scheduled);
          return;
        }
        metrics.podDeletions.increment();
        Duration latency = Duration.between(fireAt, clock.instant());
        metrics.podDeletionDuration.record(latency.isNegative() ? Duration.ZERO : latency);
        synchronized (this) {
          if (work.get(key) == scheduled) {
            scheduled.future = null; // executed: kept until the pod is gone or it is cancelled
          }
        }
        log.info("evicted pod {} from a node with NoExecute taints", key);
        return;
      } catch (RuntimeException e) {
        if (Thread.currentThread().isInterrupted() || timers.isShutdown()) {
          // The manager is stopping: the try was cut short, nothing failed.
          log.debug("pod {}: eviction stopped by the shutdown: {}", key, e.toString());
          return;
        }
        // A failure of the client or of ccm4j's own reading (the thread is a virtual one of its
        // own, which would print an uncaught exception's stack and keep the pod's entry): a
        // failed try either way, as upstream's deletePodHandler returns any error.
        log.warn(
            "pod {}: eviction failed (try {} of {}): {}",
            key,
            attempt,
            TRIES,
            e instanceof KubernetesClientException ? e.getMessage() : e.toString());
        try {
          Thread.sleep(10);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
    // Given up, as upstream's: evicted again only when a change of the node's taints or of the
    // pod's tolerations schedules it anew.
    forget(key, scheduled);
  }

  /**
   * Whether the pod's node, as the cache has it now, still has a NoExecute taint (or is gone, as
   * upstream's deletes the pods of a deleted node too). A deletion is scheduled only once the cache
   * has shown a taint, so a node without any has had them lifted since, and the cancellation of its
   * pods' deletions waits in the queue behind other work: a deletion due meanwhile does not run.
   */
  private boolean onTaintedNode(Pod pod) {
    String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    Node node = nodeName == null ? null : nodes.getStore().getByKey(nodeName);
    return node == null || !noExecuteTaints(node).isEmpty();
  }

  /** Gives the pod the {@code DisruptionTarget} condition unless it has it already. */
  private void markDisruptionTarget(Pod pod) {
    disruptionTarget(pod, clock.instant())
        .ifPresent(condition -> PodStatusPatches.patchCondition(client, pod, condition));
  }

  /**
   * The {@code DisruptionTarget} condition taint eviction gives the pod, or empty when the pod has
   * it already, as upstream's UpdatePodCondition decides: a condition of the same status keeps its
   * transition time, and only the status, reason, message and probe time count as a change. Its
   * observed generation is the pod's (PodObservedGenerationTracking, GA in 1.35).
   */
  static Optional<PodCondition> disruptionTarget(Pod pod, Instant now) {
    Optional<PodCondition> existing =
        pod.getStatus() == null || pod.getStatus().getConditions() == null
            ? Optional.empty()
            : pod.getStatus().getConditions().stream()
                .filter(c -> DISRUPTION_TARGET.equals(c.getType()))
                .findFirst();
    PodCondition wanted =
        new PodConditionBuilder()
            .withType(DISRUPTION_TARGET)
            .withStatus(ConditionStatus.TRUE)
            .withReason("DeletionByTaintManager")
            .withMessage("Taint manager: deleting due to NoExecute taint")
            .withObservedGeneration(pod.getMetadata().getGeneration())
            .withLastTransitionTime(now.truncatedTo(ChronoUnit.SECONDS).toString())
            .build();
    if (existing.isEmpty()) {
      return Optional.of(wanted);
    }
    PodCondition old = existing.get();
    if (!Objects.equals(old.getStatus(), wanted.getStatus())) {
      return Optional.of(wanted);
    }
    wanted.setLastTransitionTime(old.getLastTransitionTime());
    boolean same =
        Objects.equals(old.getReason(), wanted.getReason())
            && Objects.equals(old.getMessage(), wanted.getMessage())
            && old.getLastProbeTime() == null;
    return same ? Optional.empty() : Optional.of(wanted);
  }

  /** Whether a deletion of the pod is pending (not yet executed). */
  synchronized boolean isEvictionPending(String podKey) {
    Work existing = work.get(podKey);
    return existing != null && existing.future != null && !existing.future.isDone();
  }
}
