package io.ccm4j.controllers.service;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.ImplementedElsewhereException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.controllers.nodeutil.Batches;
import io.ccm4j.runtime.client.Fence;
import io.ccm4j.runtime.cloud.NotLeadingException;
import io.ccm4j.runtime.events.EventRecorder;
import io.ccm4j.runtime.workqueue.WorkQueue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service controller's node-set sync (S15): when the nodes change, every load balancer this
 * instance synced gets the new backend set, through {@code UpdateLoadBalancer}; a Service whose
 * update fails goes back to the service queue for a full ensure. It shares the controller's view of
 * what it synced ({@code cache}, {@code lastSyncedNodes}, {@code records}).
 *
 * <p>A call a fence refuses (this instance no longer leads: {@link NotLeadingException} from the
 * cloud, {@link Fence#refused} from the API server) is no failure: the pass stops there, with no
 * event about load balancers another instance now owns, no error counted and no Service sent for an
 * ensure. Upstream's manager exits at once and never gets that far.
 */
final class LoadBalancerNodeSync {

  private static final Logger log = LoggerFactory.getLogger(ServiceLoadBalancerController.class);

  /** What one Service's node sync came to. */
  enum Outcome {
    /** Updated, or nothing to update. */
    DONE,
    /** Failed: the Service needs a full ensure (S15 step 4). */
    RETRY,
    /** A fence refused a call: this instance no longer leads, and the pass stops. */
    NOT_LEADING
  }

  private final KubernetesClient client;
  private final LoadBalancer balancer;
  private final String clusterName;
  private final EventRecorder events;
  private final ServiceControllerMetrics metrics;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<Node> nodes;
  private final WorkQueue<String> serviceQueue;
  private final ExecutorService nodeSyncPool;
  private final Map<String, Service> cache;
  private final Map<String, List<Node>> lastSyncedNodes;
  private final Map<String, AppliedLoadBalancer> records;

  LoadBalancerNodeSync(
      KubernetesClient client,
      LoadBalancer balancer,
      String clusterName,
      EventRecorder events,
      ServiceControllerMetrics metrics,
      SharedIndexInformer<Service> services,
      SharedIndexInformer<Node> nodes,
      WorkQueue<String> serviceQueue,
      ExecutorService nodeSyncPool,
      Map<String, Service> cache,
      Map<String, List<Node>> lastSyncedNodes,
      Map<String, AppliedLoadBalancer> records) {
    this.client = client;
    this.balancer = balancer;
    this.clusterName = clusterName;
    this.events = events;
    this.metrics = metrics;
    this.services = services;
    this.nodes = nodes;
    this.serviceQueue = serviceQueue;
    this.nodeSyncPool = nodeSyncPool;
    this.cache = cache;
    this.lastSyncedNodes = lastSyncedNodes;
    this.records = records;
  }

  /** One pass over every synced Service. */
  void pass() throws InterruptedException {
    if (cache.isEmpty()) {
      long started = System.nanoTime();
      // S15 step 5; a pass with no load balancer to update (an empty cluster's) is not news.
      log.debug(
          "Successfully updated 0 out of 0 load balancers to direct traffic to the updated set of nodes");
      // Timed as upstream times every pass, an empty one too: the histogram's count is the passes.
      metrics.nodeSyncLatency.record((System.nanoTime() - started) / 1e9);
      return;
    }
    if (balancer.maxServicesPerCall() > 1) {
      bulkPass();
      return;
    }
    long started = System.nanoTime();
    List<Service> synced = List.copyOf(cache.values());
    List<Future<Outcome>> results = new ArrayList<>();
    try {
      for (Service service : synced) {
        results.add(nodeSyncPool.submit(() -> nodeSyncService(service)));
      }
    } catch (RejectedExecutionException stopping) {
      return;
    }
    List<Service> failed = new ArrayList<>();
    boolean notLeading = false;
    for (int i = 0; i < results.size(); i++) {
      Outcome outcome;
      try {
        outcome = results.get(i).get();
      } catch (CancellationException stopping) {
        return; // close() cancelled the pass
      } catch (ExecutionException e) {
        log.error(
            "node sync of {} failed: {}",
            Cache.metaNamespaceKeyFunc(synced.get(i)),
            e.getCause().toString());
        outcome = Outcome.RETRY;
      }
      switch (outcome) {
        case RETRY -> failed.add(synced.get(i));
        case NOT_LEADING -> notLeading = true;
        case DONE -> {}
      }
    }
    if (notLeading) {
      stopNotLeading();
      return;
    }
    finishPass(synced, failed, started);
  }

  /** S15 steps 4 and 5: the failed Services go for a full ensure; the pass is logged and timed. */
  private void finishPass(List<Service> synced, List<Service> failed, long started) {
    for (Service service : failed) {
      serviceQueue.add(Cache.metaNamespaceKeyFunc(service)); // a full ensure, not rate-limited
    }
    log.info(
        "Successfully updated {} out of {} load balancers to direct traffic to the updated set of nodes",
        synced.size() - failed.size(),
        synced.size());
    metrics.nodeSyncLatency.record((System.nanoTime() - started) / 1e9);
  }

  /** The pass ends without retries or a count: the next leader syncs every load balancer. */
  private static void stopNotLeading() {
    log.info("the node sync stops: this instance no longer leads");
  }

  /**
   * S15 step 2. The nodes are read per Service, as upstream does: a pass over many Services takes a
   * while, and a snapshot from its start could put back a node a service worker has since left out
   * (kubernetes#121090).
   */
  private Outcome nodeSyncService(Service service) {
    List<Node> newNodes = LoadBalancerNodes.stableNodeSet(nodes.getStore().list());
    return switch (prepare(service, newNodes)) {
      case UP_TO_DATE -> Outcome.DONE;
      case FAILED -> Outcome.RETRY;
      case NOT_LEADING -> Outcome.NOT_LEADING;
      case UPDATE -> {
        Outcome outcome = updateBackends(service, newNodes);
        if (outcome == Outcome.RETRY) {
          metrics.nodeSyncErrors.increment(); // counted per node sync, as upstream's
        }
        yield outcome;
      }
    };
  }

  /** What a Service's node sync comes to before the cloud is asked. */
  private enum Step {
    UP_TO_DATE,
    UPDATE,
    FAILED,
    NOT_LEADING
  }

  private Step prepare(Service service, List<Node> newNodes) {
    if (service == null || !LoadBalancerServices.wantsLoadBalancer(service)) {
      return Step.UP_TO_DATE;
    }
    String key = Cache.metaNamespaceKeyFunc(service);
    List<Node> synced = lastSyncedNodes.get(key);
    if (synced == null) {
      // Its first sync is under way and has not asked the cloud yet: it will use the current
      // nodes (upstream updates it here too, one call more at every start).
      return Step.UP_TO_DATE;
    }
    List<Node> oldNodes = LoadBalancerNodes.stableNodeSet(synced);
    // Only over what was read: a service worker that stored newer nodes meanwhile, or a deletion
    // that forgot the Service, wins.
    if (!lastSyncedNodes.replace(key, synced, newNodes)) {
      return Step.UP_TO_DATE;
    }
    if (LoadBalancerNodes.sufficientlyEqual(oldNodes, newNodes)) {
      return Step.UP_TO_DATE;
    }
    return switch (recordBackendsUnrecorded(key)) {
      case DONE -> Step.UPDATE;
      case NOT_LEADING -> Step.NOT_LEADING;
      case RETRY -> {
        metrics.nodeSyncErrors.increment();
        yield Step.FAILED;
      }
    };
  }

  /**
   * The pass for a provider with bulk updates ({@code maxServicesPerCall()} above 1): the nodes are
   * read once, each Service is prepared as in the per-Service pass, and the load balancers that
   * need the new backends get them in bulk calls; each Service's outcome is then the one its own
   * update would have had. One pass is a few calls, so the snapshot of its start is current.
   */
  private void bulkPass() throws InterruptedException {
    long started = System.nanoTime();
    List<Service> synced = List.copyOf(cache.values());
    List<Node> newNodes = LoadBalancerNodes.stableNodeSet(nodes.getStore().list());
    List<Future<Step>> steps = new ArrayList<>();
    try {
      for (Service service : synced) {
        steps.add(nodeSyncPool.submit(() -> prepare(service, newNodes)));
      }
    } catch (RejectedExecutionException stopping) {
      return;
    }
    List<Service> toUpdate = new ArrayList<>();
    List<Service> failed = new ArrayList<>();
    boolean notLeading = false;
    for (int i = 0; i < steps.size(); i++) {
      Step step;
      try {
        step = steps.get(i).get();
      } catch (CancellationException stopping) {
        return;
      } catch (ExecutionException e) {
        log.error(
            "node sync of {} failed: {}",
            Cache.metaNamespaceKeyFunc(synced.get(i)),
            e.getCause().toString());
        step = Step.FAILED;
      }
      switch (step) {
        case UPDATE -> toUpdate.add(synced.get(i));
        case FAILED -> failed.add(synced.get(i));
        case NOT_LEADING -> notLeading = true;
        case UP_TO_DATE -> {}
      }
    }
    if (notLeading) {
      stopNotLeading();
      return;
    }
    for (List<Service> batch : Batches.of(toUpdate, balancer.maxServicesPerCall())) {
      long callStarted = System.nanoTime();
      BulkAnswers<Boolean> answers;
      try {
        answers = balancer.updateLoadBalancers(clusterName, batch, newNodes);
      } catch (CloudException e) {
        answers =
            BulkAnswers.allFailed(batch.stream().map(Cache::metaNamespaceKeyFunc).toList(), e);
      } catch (RuntimeException e) {
        // As a per-Service update's (nodeSyncService): the pass has stored the new backend set,
        // so a pass ending here would leave these load balancers on the old nodes for good.
        answers =
            BulkAnswers.allFailed(
                batch.stream().map(Cache::metaNamespaceKeyFunc).toList(), unchecked(e));
      }
      double seconds = (System.nanoTime() - callStarted) / 1e9;
      for (Service service : batch) {
        metrics.loadBalancerSync.increment();
        metrics.updateLoadBalancerHostLatency.record(seconds);
        Optional<CloudException> failure = answers.failure(Cache.metaNamespaceKeyFunc(service));
        switch (afterUpdate(service, newNodes, failure)) {
          case RETRY -> {
            metrics.nodeSyncErrors.increment();
            failed.add(service);
          }
          case NOT_LEADING -> notLeading = true;
          case DONE -> {}
        }
      }
      if (notLeading) {
        stopNotLeading();
        return;
      }
    }
    finishPass(synced, failed, started);
  }

  /**
   * Before a node sync changes a load balancer's backends, its Service's record stops vouching for
   * them (write-ahead: a leader that dies between the update and a record of it leaves nothing
   * stale). Once per Service until its next ensure rewrites the record, not once per node change.
   * {@code RETRY} when the record cannot be written: the Service then gets a full ensure (S15).
   */
  Outcome recordBackendsUnrecorded(String key) {
    Service current = services.getStore().getByKey(key);
    if (current == null) {
      return Outcome.DONE; // deleted: nothing to vouch for
    }
    Optional<AppliedLoadBalancer> toMark =
        AppliedLoadBalancer.toMarkBeforeBackendChange(
            Optional.ofNullable(records.get(key)), AppliedLoadBalancer.recorded(current));
    if (toMark.isEmpty()) {
      return Outcome.DONE;
    }
    try {
      AppliedLoadBalancer marked = toMark.get().withNodesUnrecorded();
      ServicePatches.patchApplied(client, current, marked.annotationValue());
      records.put(key, marked);
      return Outcome.DONE;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return Outcome.DONE;
      }
      if (Fence.refused(e)) {
        return Outcome.NOT_LEADING;
      }
      log.error("service {}: cannot record the backend change: {}", key, e.getMessage());
      return Outcome.RETRY;
    }
  }

  /** UpdateLoadBalancer with S15's outcomes. */
  Outcome updateBackends(Service service, List<Node> newNodes) {
    metrics.loadBalancerSync.increment();
    long started = System.nanoTime();
    try {
      return tryUpdateBackends(service, newNodes);
    } finally {
      // Upstream times the whole update (a deferred Observe): failed ones and their check too.
      metrics.updateLoadBalancerHostLatency.record((System.nanoTime() - started) / 1e9);
    }
  }

  private Outcome tryUpdateBackends(Service service, List<Node> newNodes) {
    try {
      balancer.updateLoadBalancer(clusterName, service, newNodes);
    } catch (CloudException e) {
      return afterUpdate(service, newNodes, Optional.of(e));
    } catch (RuntimeException e) {
      // Reported as any failed update (upstream reports every error), not only logged.
      return afterUpdate(service, newNodes, Optional.of(unchecked(e)));
    }
    return afterUpdate(service, newNodes, Optional.empty());
  }

  /** S15's outcomes of one Service's update. */
  private Outcome afterUpdate(
      Service service, List<Node> newNodes, Optional<CloudException> failure) {
    String key = Cache.metaNamespaceKeyFunc(service);
    if (failure.isPresent() && failure.get() instanceof ImplementedElsewhereException) {
      return Outcome.DONE;
    }
    if (failure.isPresent() && failure.get() instanceof NotLeadingException) {
      return Outcome.NOT_LEADING;
    }
    if (failure.isPresent()) {
      CloudException e = failure.get();
      try {
        if (balancer.getLoadBalancer(clusterName, service).isEmpty()) {
          return Outcome.DONE; // nothing to update; the next ensure creates it
        }
      } catch (NotLeadingException notLeading) {
        return Outcome.NOT_LEADING; // the update failed, but reporting it is the next leader's
      } catch (CloudException | RuntimeException getError) {
        // As upstream: the check's failure is logged and the update's failure reported; an
        // unchecked one must not end the pass, which has stored the new backend set already.
        log.error(
            "failed to check if load balancer exists for service {}: {}",
            key,
            Objects.requireNonNullElse(getError.getMessage(), getError.toString()));
      }
      events.warning(
          service,
          ServiceLoadBalancerController.REASON_UPDATE_FAILED,
          "Error updating load balancer with new hosts %s [node names limited, total number of nodes: %d], error: %s"
              .formatted(
                  goList(LoadBalancerNodes.namesForEvent(newNodes)),
                  newNodes.size(),
                  e.getMessage()));
      return Outcome.RETRY;
    }
    if (newNodes.isEmpty()) {
      events.warning(
          service,
          ServiceLoadBalancerController.REASON_UNAVAILABLE,
          ServiceLoadBalancerController.MESSAGE_UNAVAILABLE);
    } else {
      events.normal(
          service,
          ServiceLoadBalancerController.REASON_UPDATED,
          "Updated load balancer with new hosts");
    }
    return Outcome.DONE;
  }

  /** A provider's unchecked exception as the cloud error it stands for, worded by its message. */
  private static CloudException unchecked(RuntimeException e) {
    return new CloudException(Objects.requireNonNullElse(e.getMessage(), e.toString()), e);
  }

  /** Go's {@code %v} of a string slice. */
  private static String goList(List<String> items) {
    return "[" + String.join(" ", items) + "]";
  }
}
