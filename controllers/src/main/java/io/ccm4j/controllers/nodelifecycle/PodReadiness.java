package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.controllers.nodeutil.PodStatusPatches;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-lifecycle controller's pod-readiness job: the pods of a node that is no longer Ready get
 * their Ready condition set to False (node-lifecycle spec §2.4), and so does a pod bound to such a
 * node later (§2.6).
 */
final class PodReadiness {

  private static final Logger log = LoggerFactory.getLogger(PodReadiness.class);

  private final KubernetesClient client;
  private final SharedIndexInformer<Pod> pods;
  private final EventRecorder events;
  private final InstantSource clock;
  private final NodeHealthTable health;

  /**
   * @param pods indexed by node name ({@link NodeLifecycleController#PODS_BY_NODE})
   * @param health what the controller last saw of each node
   */
  PodReadiness(
      KubernetesClient client,
      SharedIndexInformer<Pod> pods,
      EventRecorder events,
      InstantSource clock,
      NodeHealthTable health) {
    this.client = client;
    this.pods = pods;
    this.events = events;
    this.clock = clock;
    this.health = health;
  }

  /** §2.6: a pod bound to a node the controller knows is not Ready is marked NotReady at once. */
  void podBound(String podKey) {
    Pod pod = pods.getStore().getByKey(podKey);
    if (pod == null || nodeName(pod) == null) {
      return;
    }
    if (health.isKnownNotReady(nodeName(pod)) && !markPodNotReady(pod)) {
      // Thrown for the queue's retry with backoff.
      throw new IllegalStateException("pod " + podKey + ": cannot mark it not ready");
    }
  }

  /**
   * The pod's Ready condition set to False (its transition at {@code now}); empty when there is
   * nothing to write: Ready is False already, or the pod has no Ready condition (§2.4).
   */
  static Optional<PodCondition> notReadyCondition(Pod pod, Instant now) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    return pod.getStatus().getConditions().stream()
        .filter(condition -> "Ready".equals(condition.getType()))
        .findFirst()
        .filter(ready -> !ConditionStatus.FALSE.equals(ready.getStatus()))
        .map(
            ready ->
                new PodConditionBuilder(ready)
                    .withStatus(ConditionStatus.FALSE)
                    .withLastTransitionTime(now.toString())
                    .build());
  }

  /** The pod's node, or null when it is not bound. */
  static String nodeName(Pod pod) {
    String name = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return name == null || name.isEmpty() ? null : name;
  }

  /**
   * MarkPodsNotReady (§2.4): every pod on the node. False when a pod could not be marked (the rest
   * are still tried).
   */
  boolean markPodsNotReady(String nodeName) {
    boolean all = true;
    for (Pod pod : pods.getIndexer().byIndex(NodeLifecycleController.PODS_BY_NODE, nodeName)) {
      all &= markPodNotReady(pod);
    }
    return all;
  }

  /**
   * Sets the pod's Ready condition to False (no write when it is False already), with an event.
   * Only that condition is written (a strategic merge by type), so a condition another writer added
   * since the pod was cached is kept, where upstream's whole-status update would fail on the newer
   * version and wait for the next pass.
   */
  boolean markPodNotReady(Pod pod) {
    Optional<PodCondition> notReady = notReadyCondition(pod, clock.instant());
    if (notReady.isEmpty()) {
      return true;
    }
    try {
      PodStatusPatches.patchCondition(client, pod, notReady.get());
      events.warning(pod, NodeLifecycleEvents.NODE_NOT_READY, "Node is not ready");
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
}
