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
  private static final int TRIES = 5;

  private static final String DISRUPTION_TARGET = "DisruptionTarget";

  /**
   * A scheduled (or, with a null future, already executed) deletion of {@code pod}, kept for the
   * event that cancels it.
   */
  private record Work(Instant createdAt, ScheduledFuture<?> future, Pod pod) {}

  private final KubernetesClient client;
  private final SharedIndexInformer<Node> nodes;
  private final SharedIndexInformer<Pod> pods;
  private final EventRecorder events;
  private final InstantSource clock;
  private final ScheduledExecutorService timers;
  private final Map<String, List<Taint>> taintedNodes = new ConcurrentHashMap<>();
  private final Map<String, Work> work = new ConcurrentHashMap<>();
  private final NodeLifecycleControllerMetrics metrics;

  TaintEviction(
      KubernetesClient client,
      SharedIndexInformer<Node> nodes,
      SharedIndexInformer<Pod> pods,
      EventRecorder events,
      InstantSource clock,
      ScheduledExecutorService timers,
      NodeLifecycleControllerMetrics metrics) {
    this.client = client;
    this.nodes = nodes;
    this.pods = pods;
    this.events = events;
    this.clock = clock;
    this.timers = timers;
    this.metrics = metrics;
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
      if (existing.createdAt().plusSeconds(seconds).isBefore(trigger)) {
        return; // an eviction already scheduled keeps its time
      }
      cancel(key);
      start = existing.createdAt();
    }
    schedule(pod, start, start.plusSeconds(seconds));
  }

  private void schedule(Pod pod, Instant createdAt, Instant fireAt) {
    String key = Cache.metaNamespaceKeyFunc(pod);
    if (work.containsKey(key)) {
      return;
    }
    long delayMs = Math.max(0, fireAt.toEpochMilli() - clock.instant().toEpochMilli());
    ScheduledFuture<?> future =
        timers.schedule(
            () ->
                evict(
                    pod.getMetadata().getNamespace(),
                    pod.getMetadata().getName(),
                    pod.getMetadata().getUid(),
                    fireAt),
            delayMs,
            TimeUnit.MILLISECONDS);
    work.put(key, new Work(createdAt, future, pod));
  }

  /**
   * Drops the pod's deletion; one still pending is cancelled with a {@code TaintManagerEviction}
   * "Cancelling deletion" event, as upstream's cancelWorkWithEvent records it wherever it cancels:
   * the taints gone, the pod tolerating them forever, deleted, or its deletion replaced by an
   * earlier one (an untolerated taint).
   */
  private void cancel(String key) {
    Work existing = work.remove(key);
    if (existing != null && existing.future() != null && existing.future().cancel(false)) {
      Pod pod = existing.pod();
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
   * the next try starts again from a fresh read.
   */
  private void evict(String namespace, String name, String uid, Instant fireAt) {
    String key = Cache.namespaceKeyFunc(namespace, name);
    Pod pod = pods.getStore().getByKey(key);
    if (pod == null || !pod.getMetadata().getUid().equals(uid)) {
      work.remove(key);
      return;
    }
    events.normal(
        pod,
        NodeLifecycleEvents.TAINT_MANAGER_EVICTION,
        "Marking for deletion Pod %s/%s".formatted(namespace, name));
    for (int attempt = 1; attempt <= TRIES; attempt++) {
      try {
        PodDeletions.Outcome outcome =
            PodDeletions.deleteExactly(client, pod, this::markDisruptionTarget);
        if (outcome != PodDeletions.Outcome.DELETED) {
          log.info(
              "pod {}: not evicted, {}",
              key,
              outcome == PodDeletions.Outcome.GONE
                  ? "already gone"
                  : "replaced by another pod of that name");
          work.remove(key);
          return;
        }
        metrics.podDeletions.increment();
        Duration latency = Duration.between(fireAt, clock.instant());
        metrics.podDeletionDuration.record(latency.isNegative() ? Duration.ZERO : latency);
        synchronized (this) {
          Work done = work.get(key);
          if (done != null) {
            work.put(key, new Work(done.createdAt(), null, done.pod()));
          }
        }
        log.info("evicted pod {} from a node with NoExecute taints", key);
        return;
      } catch (KubernetesClientException e) {
        log.warn("pod {}: eviction failed (try {} of {}): {}", key, attempt, TRIES, e.getMessage());
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
    work.remove(key);
  }

  /** The pod, given the {@code DisruptionTarget} condition unless it has it already. */
  private Pod markDisruptionTarget(Pod pod) {
    return disruptionTarget(pod, clock.instant())
        .map(condition -> PodStatusPatches.patchCondition(client, pod, condition))
        .orElse(pod);
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
  boolean isEvictionPending(String podKey) {
    Work existing = work.get(podKey);
    return existing != null && existing.future() != null && !existing.future().isDone();
  }
}
