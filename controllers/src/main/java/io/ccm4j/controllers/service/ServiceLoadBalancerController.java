package io.ccm4j.controllers.service;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.cloudprovider.ImplementedElsewhereException;
import io.ccm4j.cloudprovider.InvalidServiceFieldException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerSourceRanges;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.NotImplementedException;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.SharedInformers;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.ccm4j.runtime.cloud.NotLeadingException;
import io.ccm4j.runtime.controller.Controller;
import io.ccm4j.runtime.controller.PeriodicPass;
import io.ccm4j.runtime.controller.QueueWorkers;
import io.ccm4j.runtime.events.EventRecorder;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.workqueue.RateLimiters;
import io.ccm4j.runtime.workqueue.WorkQueue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service-lb controller (spec §3.3, S1–S16): gives every {@code type: LoadBalancer} Service a
 * cloud load balancer, keeps its backends in line with the cluster's nodes, and deletes it behind
 * the cleanup finalizer.
 *
 * <p>One deliberate difference (§8.8): a new leader does not ensure load balancers that are already
 * what the Service asks for. Each ensure records a digest of its inputs on the Service ({@link
 * AppliedLoadBalancer}); on a Service's first sync the controller compares that digest and asks the
 * cloud once whether the load balancer exists with the Service's ingress.
 */
public final class ServiceLoadBalancerController implements Controller {

  private static final Logger log = LoggerFactory.getLogger(ServiceLoadBalancerController.class);

  /** S3: resync of the service handler; resyncs re-enqueue only services needing cleanup. */
  static final Duration SERVICE_RESYNC = Duration.ofSeconds(30);

  /**
   * The node queue's only key: node changes while a pass runs coalesce into one more pass (as
   * upstream's one-slot {@code nodeSyncCh}), rather than one pass over every Service per node when
   * hundreds of nodes join at once.
   */
  static final String NODE_SYNC = "node-sync";

  /** S2: both queues back off from 5 s to 300 s per key. */
  static final Duration MIN_RETRY_DELAY = Duration.ofSeconds(5);

  static final Duration MAX_RETRY_DELAY = Duration.ofSeconds(300);

  // §6.1 event reasons
  static final String REASON_ENSURING = "EnsuringLoadBalancer";
  static final String REASON_ENSURED = "EnsuredLoadBalancer";
  static final String REASON_SYNC_FAILED = "SyncLoadBalancerFailed";
  static final String REASON_DELETING = "DeletingLoadBalancer";
  static final String REASON_DELETED = "DeletedLoadBalancer";
  static final String REASON_DELETE_FAILED = "DeleteLoadBalancerFailed";
  static final String REASON_UPDATED = "UpdatedLoadBalancer";
  static final String REASON_UPDATE_FAILED = "UpdateLoadBalancerFailed";
  static final String REASON_UNAVAILABLE = "UnAvailableLoadBalancer";
  static final String MESSAGE_UNAVAILABLE = "There are no available nodes for LoadBalancer";

  /** ccm4j: a field the provider built the load balancer without ({@code FieldWarning}). */
  static final String REASON_FIELD_IGNORED = "LoadBalancerFieldIgnored";

  private enum Operation {
    ENSURE,
    DELETE
  }

  private final KubernetesClient client;
  private final LoadBalancer balancer;
  private final String clusterName;
  private final String name;
  private final EventRecorder events;
  private final ServiceControllerMetrics metrics;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<Node> nodes;
  private final WorkQueue<String> serviceQueue;
  private final WorkQueue<String> nodeQueue;
  private final QueueWorkers<String> serviceWorkers;
  private final QueueWorkers<String> nodeWorker;
  private final ExecutorService nodeSyncPool;
  private final LoadBalancerNodeSync nodeSync;

  /** Services synced by this instance, as last seen (S9, S10, S15); keyed {@code ns/name}. */
  private final Map<String, Service> cache = new ConcurrentHashMap<>();

  /** The backend set each load balancer was last given (S12 step 4, S15). */
  private final Map<String, List<Node>> lastSyncedNodes = new ConcurrentHashMap<>();

  /**
   * The record of each Service as this instance last wrote or adopted it: the informer's cache may
   * not hold the write yet when a node sync follows right after an ensure.
   */
  private final Map<String, AppliedLoadBalancer> records = new ConcurrentHashMap<>();

  private final String fingerprint;
  private final Duration resyncPeriod;
  private final ScheduledExecutorService resyncLoop;
  private volatile PeriodicPass resync;

  public ServiceLoadBalancerController(
      ControllerContext context, ServiceControllerSettings settings)
      throws ControllerUnavailableException {
    // S1: not fatal to the manager; it logs this and goes on without the controller.
    this.balancer =
        context
            .cloud()
            .loadBalancer()
            .orElseThrow(
                () ->
                    new ControllerUnavailableException(
                        "the cloud provider does not support external load balancers"));
    this.fingerprint = balancer.fingerprint();
    this.resyncPeriod = settings.loadBalancerResyncPeriod();
    this.resyncLoop =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> Thread.ofPlatform().name("service-lb-resync").unstarted(runnable));
    this.client = context.client();
    this.clusterName = context.clusterName();
    this.name = context.name();
    this.events = context.events();
    this.metrics = new ServiceControllerMetrics(context.metrics());
    int workers = settings.concurrentServiceSyncs();
    this.serviceQueue =
        new WorkQueue<>(
            "service",
            RateLimiters.exponential(MIN_RETRY_DELAY, MAX_RETRY_DELAY),
            context.metrics());
    this.nodeQueue =
        new WorkQueue<>(
            "node", RateLimiters.exponential(MIN_RETRY_DELAY, MAX_RETRY_DELAY), context.metrics());
    this.serviceWorkers =
        new QueueWorkers<>(context.name(), serviceQueue, this::syncService, workers);
    // S8: one node worker; its fan-out over services uses the same number of threads.
    this.nodeWorker = new QueueWorkers<>(context.name() + "-nodes", nodeQueue, this::syncNodes, 1);
    this.nodeSyncPool =
        Executors.newFixedThreadPool(
            workers,
            runnable -> Thread.ofPlatform().name("service-lb-node-sync").unstarted(runnable));
    this.services = SharedInformers.of(context.informers(), Service.class);
    this.nodes = SharedInformers.of(context.informers(), Node.class);
    this.nodeSync =
        new LoadBalancerNodeSync(
            client,
            balancer,
            clusterName,
            events,
            metrics,
            services,
            nodes,
            serviceQueue,
            nodeSyncPool,
            cache,
            lastSyncedNodes,
            records);
    services.addEventHandlerWithResyncPeriod(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Service service) {
            if (LoadBalancerServices.wantsLoadBalancer(service)
                || LoadBalancerServices.needsCleanup(service)) {
              serviceQueue.add(Cache.metaNamespaceKeyFunc(service));
            }
          }

          @Override
          public void onUpdate(Service old, Service service) {
            if (LoadBalancerServices.needsUpdate(old, service)
                || LoadBalancerServices.needsCleanup(service)) {
              serviceQueue.add(Cache.metaNamespaceKeyFunc(service));
            }
          }

          @Override
          public void onDelete(Service service, boolean finalStateUnknown) {
            // S3: deletion runs through the finalizer and the deletion timestamp.
          }
        },
        SERVICE_RESYNC.toMillis());
    // S7: readiness, taints and cordoning alone do not trigger a node sync. Upstream's 100 s node
    // resync delivers old == new, which never enqueues, so this handler has none.
    nodes.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Node node) {
            nodeQueue.add(NODE_SYNC);
          }

          @Override
          public void onUpdate(Node old, Node node) {
            if (LoadBalancerNodes.updateMatters(old, node)) {
              nodeQueue.add(NODE_SYNC);
            }
          }

          @Override
          public void onDelete(Node node, boolean finalStateUnknown) {
            nodeQueue.add(NODE_SYNC);
          }
        });
  }

  @Override
  public String name() {
    return name;
  }

  /** S8: the manager has waited for the caches; start the service workers and the node worker. */
  @Override
  public void start() {
    serviceWorkers.start();
    nodeWorker.start();
    if (resyncPeriod.isPositive()) {
      resync =
          PeriodicPass.withFixedDelay(
              resyncLoop,
              "load balancer resync",
              this::resyncLoadBalancers,
              resyncPeriod,
              resyncPeriod);
    }
  }

  @Override
  public Optional<String> health() {
    PeriodicPass started = resync;
    return HealthChecks.problems(
        serviceWorkers.health(),
        nodeWorker.health(),
        started == null ? Optional.empty() : started.health());
  }

  /**
   * ccm4j's convergence (no upstream counterpart; upstream re-ensures everything at each start
   * instead, §8.8): every load balancer this instance synced is ensured again once per {@code
   * --load-balancer-resync-period}, spread evenly over it, so drift in the cloud and anything the
   * record does not cover reach every load balancer at a bounded rate, never as a storm.
   */
  void resyncLoadBalancers() {
    List<String> keys =
        cache.entrySet().stream()
            .filter(entry -> LoadBalancerServices.wantsLoadBalancer(entry.getValue()))
            .map(Map.Entry::getKey)
            .sorted()
            .toList();
    if (keys.isEmpty()) {
      return;
    }
    Duration spacing = resyncPeriod.dividedBy(keys.size() + 1L);
    for (int i = 0; i < keys.size(); i++) {
      serviceQueue.addAfter(keys.get(i), spacing.multipliedBy(i + 1L));
    }
    log.info(
        "ensuring {} load balancers again over the next {} (one every {} ms)",
        keys.size(),
        GoDurations.format(resyncPeriod),
        spacing.toMillis());
  }

  /** S9: level-triggered sync of one Service key. Informer objects are read, never mutated. */
  void syncService(String key) throws Exception {
    Service service = services.getStore().getByKey(key);
    if (service == null) {
      processServiceDeletion(key);
      return;
    }
    processServiceCreateOrUpdate(key, service);
  }

  /** S9: the Service is gone; delete the load balancer of the copy this instance synced, if any. */
  private void processServiceDeletion(String key) throws CloudException {
    Service cached = cache.get(key);
    if (cached == null) {
      return;
    }
    log.info("Service {} has been deleted. Attempting to cleanup load balancer resources", key);
    deleteLoadBalancerOf(cached);
    forget(key);
  }

  /**
   * S9 steps 1–4: unlike S11, {@code ImplementedElsewhere} counts as a failure here. Any failure is
   * the Warning, an unchecked one too: upstream records every error of this deletion, and nothing
   * else would tell the operator why the load balancer stays.
   */
  private void deleteLoadBalancerOf(Service service) throws CloudException {
    if (!LoadBalancerServices.wantsLoadBalancer(service)) {
      return;
    }
    events.normal(service, REASON_DELETING, "Deleting load balancer");
    try {
      balancer.ensureLoadBalancerDeleted(clusterName, service);
    } catch (CloudException | RuntimeException e) {
      events.warning(service, REASON_DELETE_FAILED, "Error deleting load balancer: " + describe(e));
      throw e;
    }
    events.normal(service, REASON_DELETED, "Deleted load balancer");
  }

  /** S10. */
  private void processServiceCreateOrUpdate(String key, Service service) throws Exception {
    Service previous = cache.get(key);
    if (previous != null && !Objects.equals(uid(previous), uid(service))) {
      // Deleted and recreated without a finalizer: the old load balancer goes first.
      deleteLoadBalancerOf(previous);
    }
    boolean firstSync = previous == null;
    cache.put(key, service);
    Operation operation;
    try {
      operation = syncLoadBalancerIfNeeded(key, service, firstSync);
    } catch (SyncFailure | RuntimeException e) {
      if (RetryAfterException.in(e).filter(RetryAfterException::inProgress).isPresent()) {
        // Being provisioned: the fixed-delay retry follows (S14), logged by the workers.
        throw e;
      }
      events.warning(service, REASON_SYNC_FAILED, "Error syncing load balancer: " + describe(e));
      Optional<InvalidServiceFieldException> invalid = invalidField(e);
      // Only an ensure waits for the Service to be fixed: a deletion the cloud refuses is retried
      // with backoff, or the load balancer would leak.
      boolean ensuring =
          LoadBalancerServices.wantsLoadBalancer(service)
              && !LoadBalancerServices.needsCleanup(service);
      if (ensuring && invalid.isPresent()) {
        // Retrying cannot help; the fix arrives as an update of the Service (S6), which re-queues.
        log.warn(
            "service {}: not syncing its load balancer until {} is fixed: {}",
            key,
            invalid.get().field(),
            e.getMessage());
        return;
      }
      throw e;
    }
    if (operation == Operation.DELETE) {
      forget(key);
    }
  }

  private void forget(String key) {
    cache.remove(key);
    lastSyncedNodes.remove(key);
    records.remove(key);
  }

  /** S11 (delete branch) and S12 (ensure branch), then S13 (status). */
  private Operation syncLoadBalancerIfNeeded(String key, Service service, boolean firstSync)
      throws SyncFailure {
    if (!LoadBalancerServices.wantsLoadBalancer(service)
        || LoadBalancerServices.needsCleanup(service)) {
      deleteLoadBalancer(key, service);
      return Operation.DELETE;
    }
    ensureLoadBalancer(key, service, firstSync);
    return Operation.ENSURE;
  }

  /** S11. */
  private void deleteLoadBalancer(String key, Service service) throws SyncFailure {
    boolean exists;
    try {
      exists = balancer.getLoadBalancer(clusterName, service).isPresent();
    } catch (CloudException | RuntimeException e) {
      throw new SyncFailure(
          "failed to check if load balancer exists before cleanup: " + describe(e), e);
    }
    if (exists) {
      log.info("Deleting existing load balancer for service {}", key);
      events.normal(service, REASON_DELETING, "Deleting load balancer");
      try {
        balancer.ensureLoadBalancerDeleted(clusterName, service);
      } catch (ImplementedElsewhereException e) {
        log.debug("load balancer of {} is implemented elsewhere; ignoring on deletion", key);
      } catch (CloudException | RuntimeException e) {
        // A provider's unchecked exception fails the deletion as any error does, worded as one.
        throw new SyncFailure("failed to delete load balancer: " + describe(e), e);
      }
    }
    if (LoadBalancerServices.hasCleanupFinalizer(service)) {
      try {
        ServicePatches.removeFinalizer(client, service);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw new SyncFailure(
              "failed to remove load balancer cleanup finalizer: " + KubernetesErrors.message(e),
              e);
        }
      }
    }
    events.normal(service, REASON_DELETED, "Deleted load balancer");
    writeStatus(service, new LoadBalancerStatus(List.of()), null);
  }

  /** S12. */
  private void ensureLoadBalancer(String key, Service service, boolean firstSync)
      throws SyncFailure {
    if (firstSync && alreadyApplied(key, service)) {
      return;
    }
    log.info("Ensuring load balancer for service {}", key);
    events.normal(service, REASON_ENSURING, "Ensuring load balancer");
    if (!LoadBalancerServices.hasCleanupFinalizer(service)) {
      try {
        ServicePatches.addFinalizer(client, service);
      } catch (KubernetesClientException e) {
        throw new SyncFailure(
            "failed to add load balancer cleanup finalizer: " + KubernetesErrors.message(e), e);
      }
    }
    // Read after the requests above, right before it is stored: a node-sync pass skips a Service
    // until then (nodeSyncService), so a node that joined meanwhile must be in this set.
    List<Node> nodeSet = LoadBalancerNodes.stableNodeSet(nodes.getStore().list());
    if (nodeSet.isEmpty()) {
      events.warning(service, REASON_UNAVAILABLE, MESSAGE_UNAVAILABLE);
    }
    lastSyncedNodes.put(key, nodeSet);
    LoadBalancerStatus status;
    try {
      // The one field the controller interprets itself, checked where upstream's providers check
      // it (inside EnsureLoadBalancer): after the events and steps above, the nodes stored, so that
      // node syncs keep the backends of a load balancer the Service already has current.
      LoadBalancerSourceRanges.of(service);
      status = balancer.ensureLoadBalancer(clusterName, service, nodeSet);
    } catch (ImplementedElsewhereException e) {
      log.debug("load balancer of {} is implemented elsewhere; nothing to do", key);
      return;
    } catch (CloudException e) {
      // The cause keeps a RetryAfterException reachable for the fixed-delay retry (S14).
      throw new SyncFailure("failed to ensure load balancer: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      // A provider's unchecked exception fails the ensure as any error does, worded as one.
      throw new SyncFailure("failed to ensure load balancer: " + describe(e), e);
    }
    if (status == null) {
      throw new SyncFailure("service status returned by EnsureLoadBalancer is nil", null);
    }
    for (LoadBalancerStatus.FieldWarning warning : status.warnings()) {
      events.warning(service, REASON_FIELD_IGNORED, warning.message());
    }
    events.normal(service, REASON_ENSURED, "Ensured load balancer");
    writeStatus(
        service, status, AppliedLoadBalancer.of(service, nodeSet, clusterName, fingerprint));
  }

  /**
   * ccm4j's answer to the start-up storm (§8.8): on the first sync of a Service by this instance,
   * its load balancer needs no ensure when the Service records having been ensured with exactly its
   * current fields, and the cloud reports the load balancer with the Service's ingress. When only
   * the backends changed meanwhile, the incremental update S15 would have made is made instead. One
   * cloud read, no ensure. A read that fails (or that the cloud does not implement) answers "no":
   * the full ensure upstream would make follows, never a failed sync.
   */
  private boolean alreadyApplied(String key, Service service) throws SyncFailure {
    Optional<AppliedLoadBalancer> recorded = AppliedLoadBalancer.recorded(service);
    if (!LoadBalancerServices.hasCleanupFinalizer(service)
        || !sourceRangesValid(service)
        || recorded.isEmpty()
        || !recorded
            .get()
            .specDigest()
            .equals(AppliedLoadBalancer.specDigest(service, clusterName, fingerprint))) {
      return false;
    }
    Optional<LoadBalancerStatus> existing;
    try {
      existing = balancer.getLoadBalancer(clusterName, service);
    } catch (NotLeadingException e) {
      // Not the cloud's failure: this instance stops, and an ensure would be refused as well.
      throw new SyncFailure("failed to get load balancer: " + e.getMessage(), e);
    } catch (NotImplementedException e) {
      log.info(
          "service {}: the cloud cannot get load balancers, so the record cannot be checked;"
              + " ensuring the load balancer",
          key);
      return false;
    } catch (CloudException | RuntimeException e) {
      // Upstream keeps no record and ensures at every start: a failed check must cost no more than
      // that ensure, never a failed sync and a backoff.
      log.warn(
          "service {}: could not check its load balancer against the record ({}); ensuring it",
          key,
          describe(e));
      return false;
    }
    if (existing.isEmpty()
        || existing.get().ingress().isEmpty()
        || !ServicePatches.ingressEquals(service, existing.get())) {
      return false;
    }
    // As in ensureLoadBalancer: read after the cloud call, right before it is stored.
    List<Node> nodeSet = LoadBalancerNodes.stableNodeSet(nodes.getStore().list());
    lastSyncedNodes.put(key, nodeSet);
    AppliedLoadBalancer now = AppliedLoadBalancer.of(service, nodeSet, clusterName, fingerprint);
    if (!recorded.get().nodesDigest().equals(now.nodesDigest())) {
      // Marked first, as a node sync does: a leader that dies between this update and the status
      // write below must not leave the record vouching for the old backends.
      LoadBalancerNodeSync.Outcome updated = nodeSync.recordBackendsUnrecorded(key);
      if (updated == LoadBalancerNodeSync.Outcome.DONE) {
        updated = nodeSync.updateBackends(service, nodeSet);
      }
      switch (updated) {
        case RETRY -> {
          return false; // as after a failed node sync: a full ensure (S15)
        }
        case NOT_LEADING ->
            // As a refused read above: an ensure would be refused as well.
            throw new SyncFailure(
                "failed to update load balancer: this instance no longer leads", null);
        case DONE -> {}
      }
      writeStatus(service, existing.get(), now);
    } else {
      records.put(key, recorded.get());
      if (nodeSet.isEmpty()) {
        // The warning upstream's ensure at every leader start repeats (the update above gives it
        // when the nodes changed): a skipped ensure must not hide that nothing backs the balancer.
        events.warning(service, REASON_UNAVAILABLE, MESSAGE_UNAVAILABLE);
      }
    }
    log.debug("load balancer of {} is as recorded; not ensuring it again", key);
    return true;
  }

  /** S13: one patch, only when the ingress (or ccm4j's record of the inputs) changed. */
  private void writeStatus(
      Service service, LoadBalancerStatus status, AppliedLoadBalancer appliedRecord)
      throws SyncFailure {
    String applied = appliedRecord == null ? null : appliedRecord.annotationValue();
    String recorded =
        service.getMetadata().getAnnotations() == null
            ? null
            : service
                .getMetadata()
                .getAnnotations()
                .get(WellKnownAnnotations.LOAD_BALANCER_APPLIED);
    if (!ServicePatches.ingressEquals(service, status) || !Objects.equals(recorded, applied)) {
      try {
        ServicePatches.patchStatus(client, service, status, applied);
      } catch (KubernetesClientException e) {
        // NotFound: the Service went away once its finalizer was removed.
        if (e.getCode() != 404) {
          throw new SyncFailure(
              "failed to update load balancer status: " + KubernetesErrors.message(e), e);
        }
      }
    }
    if (appliedRecord == null) {
      records.remove(Cache.metaNamespaceKeyFunc(service));
    } else {
      records.put(Cache.metaNamespaceKeyFunc(service), appliedRecord);
    }
  }

  /** S15: one pass over every synced Service ({@link LoadBalancerNodeSync}). */
  void syncNodes(String ignoredKey) throws InterruptedException {
    nodeSync.pass();
  }

  /**
   * No record vouches for source ranges this controller refuses (one written before its check grew
   * stricter): the ensure reports them.
   */
  private static boolean sourceRangesValid(Service service) {
    try {
      LoadBalancerSourceRanges.of(service);
      return true;
    } catch (InvalidServiceFieldException e) {
      return false;
    }
  }

  /** A failure in words: its message, or its class where it has none (never "null"). */
  private static String describe(Throwable error) {
    return Objects.requireNonNullElse(error.getMessage(), error.toString());
  }

  private static String uid(Service service) {
    return service.getMetadata().getUid();
  }

  private static Optional<InvalidServiceFieldException> invalidField(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof InvalidServiceFieldException invalid) {
        return Optional.of(invalid);
      }
    }
    return Optional.empty();
  }

  @Override
  public void close() throws InterruptedException {
    // Cancel the node-sync tasks that never started: a pass waiting for them (in syncNodes) would
    // otherwise wait forever, and the node worker with it.
    for (Runnable neverStarted : nodeSyncPool.shutdownNow()) {
      if (neverStarted instanceof Future<?> task) {
        task.cancel(false);
      }
    }
    resyncLoop.shutdownNow();
    serviceWorkers.close();
    nodeWorker.close();
    nodeSyncPool.awaitTermination(10, TimeUnit.SECONDS);
  }

  /** A failed step of a sync, worded as upstream words it; the cause is the cloud's or API's. */
  static final class SyncFailure extends Exception {
    SyncFailure(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
