package io.ccm4j.controllers.node;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Zones;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.SharedInformers;
import io.ccm4j.controllers.nodeutil.Batches;
import io.ccm4j.controllers.nodeutil.NodeAddresses;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.runtime.client.Conflicts;
import io.ccm4j.runtime.client.KubeTimes;
import io.ccm4j.runtime.client.protobuf.NodeWrites;
import io.ccm4j.runtime.controller.Controller;
import io.ccm4j.runtime.controller.PeriodicPass;
import io.ccm4j.runtime.controller.QueueWorkers;
import io.ccm4j.runtime.events.EventRecorder;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.workqueue.RateLimiters;
import io.ccm4j.runtime.workqueue.WorkQueue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cloud-node controller (spec §3.1, N1–N15): initialises nodes registered with the
 * uninitialized taint from the cloud's instance metadata, refreshes their addresses periodically,
 * and keeps the GA topology labels in line with the beta ones.
 */
public final class CloudNodeController implements Controller {

  private static final Logger log = LoggerFactory.getLogger(CloudNodeController.class);

  /** Reason of the Warning event when the kubelet's node IP is not one of the cloud's (N7). */
  static final String REASON_SYNCED = "Synced";

  static final String REASON_INVALID_NODE_IP = "ProvidedNodeIPNotFound";

  private final KubernetesClient client;
  private final NodeWrites writes;
  private final InstancesV2 instances;
  private final InitialMetadataLookups initialLookups;
  private final Optional<Zones> zones;
  private final CloudNodeSettings settings;
  private final String name;
  private final EventRecorder events;
  private final NodeControllerMetrics metrics;
  private final SharedIndexInformer<Node> nodes;
  private final WorkQueue<String> queue;
  private final QueueWorkers<String> workers;
  private final ScheduledExecutorService statusLoop;
  private final ExecutorService statusWorkers;
  private volatile PeriodicPass statusPass;

  public CloudNodeController(ControllerContext context, CloudNodeSettings settings)
      throws ControllerUnavailableException {
    // N1: without instances there is nothing to initialise from; not fatal to the manager.
    this.instances =
        context
            .cloud()
            .instancesV2()
            .orElseThrow(
                () ->
                    new ControllerUnavailableException(
                        "cloud provider does not support instances"));
    this.zones = context.cloud().zones();
    this.client = context.client();
    this.writes = context.nodeWrites();
    this.settings = settings;
    this.name = context.name();
    this.events = context.events();
    this.metrics = new NodeControllerMetrics(context.metrics());
    this.queue = new WorkQueue<>("Nodes", RateLimiters.controllerDefault(), context.metrics());
    this.workers =
        new QueueWorkers<>(context.name(), queue, this::syncNode, settings.concurrentNodeSyncs());
    this.statusLoop =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> Thread.ofPlatform().name("cloud-node-status").unstarted(runnable));
    this.statusWorkers =
        Executors.newFixedThreadPool(
            settings.nodeStatusUpdateWorkers(),
            runnable -> Thread.ofPlatform().name("cloud-node-status-worker").unstarted(runnable));
    this.nodes = SharedInformers.of(context.informers(), Node.class);
    this.initialLookups =
        new InitialMetadataLookups(
            instances,
            () ->
                nodes.getStore().list().stream()
                    .filter(node -> Taints.hasKey(node, WellKnownTaints.UNINITIALIZED))
                    .toList(),
            System::nanoTime);
    // N2: add and update enqueue the node's key; there is no delete handler (N15).
    nodes.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Node node) {
            queue.add(node.getMetadata().getName());
          }

          @Override
          public void onUpdate(Node previous, Node node) {
            queue.add(node.getMetadata().getName());
          }

          @Override
          public void onDelete(Node node, boolean finalStateUnknown) {}
        });
  }

  @Override
  public String name() {
    return name;
  }

  /** N3: the address refresh runs now and then a period after each pass ends; then the workers. */
  @Override
  public void start() {
    statusPass =
        PeriodicPass.withFixedDelay(
            statusLoop,
            "node status update",
            this::updateNodeStatus,
            Duration.ZERO,
            settings.nodeStatusUpdateFrequency());
    workers.start();
  }

  @Override
  public Optional<String> health() {
    PeriodicPass pass = statusPass;
    return HealthChecks.problems(workers.health(), pass == null ? Optional.empty() : pass.health());
  }

  /** Level-triggered sync of one node (N4–N10). */
  void syncNode(String name) throws CloudException {
    Node node = nodes.getStore().getByKey(name);
    if (node == null) {
      return; // N4
    }
    if (!Taints.hasKey(node, WellKnownTaints.UNINITIALIZED)) {
      reconcileNodeLabels(node); // N5
      return;
    }
    log.info("Initializing node {} with cloud provider", name);
    Optional<InstanceMetadata> fetched = initialLookups.metadata(node);
    if (fetched.isEmpty()) {
      log.info("Skip sync node {} because cloud provided nil metadata", name);
      return; // N6: no requeue; the next node event retries
    }
    if (fetched.get().providerId().isEmpty() && isEmpty(node.getSpec().getProviderID())) {
      throw new CloudException(
          "cloud provider does not set node provider ID for node " + name); // N6, F2
    }
    // After the N6 check: the zone fallback is a cloud call of its own.
    InstanceMetadata metadata = withZoneFallback(node, fetched.get());
    String providedNodeIp = providedNodeIp(node);
    if (providedNodeIp != null) {
      try {
        NodeAddresses.pinToProvidedNodeIp(providedNodeIp, metadata.addresses()); // N7
      } catch (IllegalArgumentException e) {
        String message =
            "provided node ip for node \"%s\" is not valid: %s".formatted(name, e.getMessage());
        events.warning(node, REASON_INVALID_NODE_IP, message);
        throw new CloudException(message);
      }
    }
    String uid = node.getMetadata().getUid();
    AtomicBoolean replaced = new AtomicBoolean();
    Node initialized =
        Conflicts.retryOnConflict(
            Conflicts.NODE_SPEC_BACKOFF,
            () -> {
              Node current = nodes.getStore().getByKey(name);
              if (current == null) {
                return null;
              }
              if (!Objects.equals(uid, current.getMetadata().getUid())) {
                // Deleted and registered again meanwhile: the answer is about the Node it replaced.
                replaced.set(true);
                return null;
              }
              NodeInitialization.Result result = NodeInitialization.apply(current, metadata);
              result.warnings().forEach(warning -> log.warn("node {}: {}", name, warning));
              return writes.update(result.node()); // N9: one full PUT
            });
    if (replaced.get()) {
      throw new CloudException(
          "node %s was deleted and registered again while the cloud was asked about it: asking again"
              .formatted(name));
    }
    if (initialized == null) {
      return; // deleted meanwhile
    }
    double sinceCreation = secondsSinceCreation(initialized);
    metrics.taintRemovalDelay.record(sinceCreation);
    updateNodeAddress(initialized, metadata); // N9.5: addresses right away
    log.info("Successfully initialized node {} with cloud provider", name);
    events.normal(initialized, REASON_SYNCED, "Node synced successfully"); // N10
    metrics.initialNodeSyncDelay.record(sinceCreation);
  }

  /**
   * Zone and region from the Zones facet when the instance metadata has neither (a ccm4j addition:
   * upstream consults Zones only on the Instances v1 path).
   */
  private InstanceMetadata withZoneFallback(Node node, InstanceMetadata metadata)
      throws CloudException {
    if (zones.isEmpty() || !metadata.zone().isEmpty() || !metadata.region().isEmpty()) {
      return metadata;
    }
    String providerId =
        metadata.providerId().isEmpty() ? node.getSpec().getProviderID() : metadata.providerId();
    Zones.Zone zone =
        isEmpty(providerId)
            ? zones.get().zoneByNodeName(node.getMetadata().getName())
            : zones.get().zoneByProviderId(providerId);
    return new InstanceMetadata(
        metadata.providerId(),
        metadata.instanceType(),
        metadata.addresses(),
        zone.failureDomain(),
        zone.region(),
        metadata.additionalLabels());
  }

  /** N11: writes the cloud's addresses to an initialised node when they changed. */
  void updateNodeAddress(Node node, InstanceMetadata metadata) {
    String name = node.getMetadata().getName();
    if (Taints.hasKey(node, WellKnownTaints.UNINITIALIZED)) {
      return;
    }
    if (metadata.addresses().isEmpty()) {
      log.debug("node {}: the cloud reports no addresses; leaving them alone", name);
      return;
    }
    List<NodeAddress> current =
        NodeAddresses.fromApi(node.getStatus() == null ? null : node.getStatus().getAddresses());
    List<NodeAddress> desired;
    try {
      desired = NodeAddresses.desired(metadata.addresses(), current, providedNodeIp(node));
    } catch (IllegalArgumentException e) {
      log.error("node {}: {}", name, e.getMessage());
      return;
    }
    if (!NodeAddresses.changed(current, desired)) {
      return;
    }
    try {
      NodePatches.patchAddresses(writes, name, desired);
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted() || statusWorkers.isShutdown()) {
        // The manager is stopping: the write was cut short, nothing failed.
        log.debug("node {}: address update stopped by the shutdown: {}", name, e.toString());
        return;
      }
      log.error("node {}: could not update addresses: {}", name, e.getMessage());
    }
  }

  /**
   * N13: refreshes every initialised node's addresses, in parallel: first the lookups, one bulk
   * call per {@code maxNodesPerCall()} nodes (node by node for a provider without bulk calls, as
   * upstream), then the writes of the nodes whose addresses changed, each on its own.
   */
  void updateNodeStatus() {
    long started = System.nanoTime();
    List<Node> initialised =
        nodes.getStore().list().stream()
            .filter(node -> !Taints.hasKey(node, WellKnownTaints.UNINITIALIZED))
            .toList();
    try {
      List<Future<List<Answered>>> lookups =
          Batches.of(initialised, instances.maxNodesPerCall()).stream()
              .map(batch -> statusWorkers.submit(() -> lookUpAddresses(batch)))
              .toList();
      List<Future<?>> writes = new ArrayList<>();
      for (Future<List<Answered>> lookup : lookups) {
        for (Answered answered : await(lookup).orElse(List.of())) {
          writes.add(
              statusWorkers.submit(() -> updateNodeAddress(answered.node(), answered.metadata())));
        }
      }
      for (Future<?> write : writes) {
        await(write);
      }
    } catch (InterruptedException | java.util.concurrent.RejectedExecutionException stopping) {
      return;
    }
    log.debug(
        "Update {} nodes status took {} ms.",
        initialised.size(),
        Duration.ofNanos(System.nanoTime() - started).toMillis());
  }

  /** A node and what the cloud answered for it. */
  private record Answered(Node node, InstanceMetadata metadata) {}

  private static <T> Optional<T> await(Future<T> future) throws InterruptedException {
    try {
      return Optional.ofNullable(future.get());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw e;
    } catch (java.util.concurrent.ExecutionException e) {
      log.error("address refresh failed: {}", e.getCause().toString());
      return Optional.empty();
    }
  }

  private List<Answered> lookUpAddresses(List<Node> batch) {
    BulkAnswers<Optional<InstanceMetadata>> answers;
    try {
      answers = instances.instancesMetadata(batch);
    } catch (CloudException | RuntimeException e) {
      log.error(
          "cannot get addresses of {} nodes from the cloud: {}", batch.size(), e.getMessage());
      return List.of();
    }
    List<Answered> answered = new ArrayList<>();
    for (Node node : batch) {
      String nodeName = node.getMetadata().getName();
      Optional<CloudException> failure = answers.failure(nodeName);
      if (failure.isPresent()) {
        log.error(
            "node {}: cannot get addresses from the cloud: {}",
            nodeName,
            failure.get().getMessage());
        continue;
      }
      // Upstream dereferences nil metadata here (§8.3); ccm4j skips the node.
      answers.value(nodeName).orElseThrow().ifPresent(m -> answered.add(new Answered(node, m)));
    }
    return answered;
  }

  /** N14: the GA labels follow the beta ones. */
  private void reconcileNodeLabels(Node node) {
    Map<String, String> missing = LabelReconciliation.missing(node.getMetadata().getLabels());
    if (missing.isEmpty()) {
      return;
    }
    try {
      NodePatches.patchLabels(client, node.getMetadata().getName(), missing);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "failed update labels for node " + node.getMetadata().getName() + ": " + e.getMessage(),
          e);
    }
  }

  private static String providedNodeIp(Node node) {
    Map<String, String> annotations = node.getMetadata().getAnnotations();
    return annotations == null ? null : annotations.get(WellKnownAnnotations.PROVIDED_NODE_IP);
  }

  private static double secondsSinceCreation(Node node) {
    String created = node.getMetadata().getCreationTimestamp();
    if (created == null) {
      return 0;
    }
    Instant creation = KubeTimes.parse(created);
    return Math.max(0, Duration.between(creation, Instant.now()).toMillis() / 1000.0);
  }

  private static boolean isEmpty(String value) {
    return value == null || value.isEmpty();
  }

  @Override
  public void close() throws InterruptedException {
    statusLoop.shutdownNow();
    statusWorkers.shutdownNow();
    workers.close();
    statusLoop.awaitTermination(10, TimeUnit.SECONDS);
    statusWorkers.awaitTermination(10, TimeUnit.SECONDS);
  }
}
