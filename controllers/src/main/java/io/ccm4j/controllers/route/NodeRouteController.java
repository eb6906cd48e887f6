package io.ccm4j.controllers.route;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.Routes;
import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.SharedInformers;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controllers.route.RoutePlanner.Action;
import io.ccm4j.controllers.route.RoutePlanner.Creation;
import io.ccm4j.controllers.route.RoutePlanner.NetworkCondition;
import io.ccm4j.controllers.route.RoutePlanner.NodeView;
import io.ccm4j.controllers.route.RoutePlanner.Plan;
import io.ccm4j.runtime.client.Conflicts;
import io.ccm4j.runtime.controller.Controller;
import io.ccm4j.runtime.controller.PeriodicPass;
import io.ccm4j.runtime.controller.QueueWorkers;
import io.ccm4j.runtime.events.EventRecorder;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.workqueue.RateLimiter;
import io.ccm4j.runtime.workqueue.TokenBucketRateLimiter;
import io.ccm4j.runtime.workqueue.WorkQueue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-route controller (spec §3.4, R1–R9): every {@code --route-reconciliation-period} it
 * lists the cloud's routes and the Nodes, deletes the routes in the cluster CIDR that no node's pod
 * CIDR needs (and blackholes), creates the missing ones, and sets each node's {@code
 * NetworkUnavailable} condition. Routes outside the cluster CIDR are never touched.
 *
 * <p>With the alpha gate {@code CloudControllerManagerWatchBasedRoutesReconciliation} (R3) a pass
 * runs instead when a node appears, goes, or changes its pod CIDRs or addresses, at most once every
 * 10 s and never more than 10 s after the change.
 */
public final class NodeRouteController implements Controller {

  private static final Logger log = LoggerFactory.getLogger(NodeRouteController.class);

  static final String REASON_FAILED_TO_CREATE_ROUTE = "FailedToCreateRoute";

  /** R6: cloud route calls in flight at once (kubernetes#26263). */
  static final int MAX_CONCURRENT_ROUTE_OPERATIONS = 200;

  /**
   * How many NetworkUnavailable patches a pass has in flight at once. Upstream starts one goroutine
   * per node and lets the client's rate limiter queue them; with a thousand nodes whose condition a
   * CNI wrote that is a thousand requests waiting at once. Here the rest wait for a slot, so the
   * queue stays short and the client's limiter (its own, the route controller's) stays fair.
   */
  static final int MAX_CONCURRENT_CONDITION_WRITES = 16;

  /**
   * R3: the key of a pass for a node change, and the trigger label of its {@code
   * route_controller_route_sync_total}.
   */
  static final String NODE_CHANGE_KEY = "node_change";

  /**
   * R3: the key of a pass for an informer resync (upstream's routeCorrectionsKey), and the trigger
   * label of every periodic pass.
   */
  static final String PERIODIC_KEY = "periodic";

  /** R3: one pass per this interval at most, and no change waits longer. */
  static final Duration WATCH_MIN_INTERVAL = Duration.ofSeconds(10);

  private final KubernetesClient client;
  private final Routes routes;
  private final String clusterName;
  private final List<Cidr> clusterCidrs;
  private final Duration period;
  private final String name;
  private final EventRecorder events;
  private final SharedIndexInformer<Node> nodes;
  private final NodeRouteControllerMetrics metrics;
  private final ScheduledExecutorService loop;
  private volatile PeriodicPass pass;
  private final ExecutorService operations = Executors.newVirtualThreadPerTaskExecutor();
  private final Semaphore inFlight = new Semaphore(MAX_CONCURRENT_ROUTE_OPERATIONS);
  private final Semaphore conditionWrites = new Semaphore(MAX_CONCURRENT_CONDITION_WRITES);

  /**
   * R3 only: the queue of the keys {@value #NODE_CHANGE_KEY} and {@value #PERIODIC_KEY}, each a
   * whole pass, and its one worker.
   */
  private final WorkQueue<String> queue;

  private final QueueWorkers<String> worker;

  public NodeRouteController(ControllerContext context, NetworkSettings network)
      throws ControllerUnavailableException {
    // R1: not starting is not fatal to the manager.
    if (!network.configureCloudRoutes()) {
      throw new ControllerUnavailableException(
          "--configure-cloud-routes is false, so cloud routes are not configured");
    }
    this.routes =
        context
            .cloud()
            .routes()
            .orElseThrow(
                () ->
                    new ControllerUnavailableException(
                        "--configure-cloud-routes is set, but the cloud provider does not support"
                            + " routes"));
    if (network.clusterCidrs().isEmpty()) {
      // Upstream fails to start the manager here; ccm4j skips the controller and says why.
      throw new ControllerUnavailableException(
          "--cluster-cidr is not set; routes need the pod network's CIDR(s)");
    }
    this.client = context.client();
    this.clusterName = context.clusterName();
    this.clusterCidrs = network.clusterCidrs();
    this.period = network.routeReconciliationPeriod();
    this.name = context.name();
    this.events = context.events();
    this.nodes = SharedInformers.of(context.informers(), Node.class);
    this.metrics = new NodeRouteControllerMetrics(context.metrics());
    this.loop =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> Thread.ofPlatform().name("node-route").unstarted(runnable));
    if (network.watchBasedRoutes()) {
      this.queue = new WorkQueue<>("Routes", watchRateLimiter(), context.metrics());
      this.worker =
          new QueueWorkers<>(
              context.name(),
              queue,
              key -> {
                queue.forget(key); // R3: before the pass, so no event is lost while it runs
                reconcileAndRecord(key);
              },
              1);
      nodes.addEventHandler(
          new ResourceEventHandler<>() {
            @Override
            public void onAdd(Node node) {
              queue.addRateLimited(NODE_CHANGE_KEY);
            }

            @Override
            public void onUpdate(Node previous, Node node) {
              trigger(previous, node).ifPresent(queue::addRateLimited);
            }

            @Override
            public void onDelete(Node node, boolean finalStateUnknown) {
              queue.addRateLimited(NODE_CHANGE_KEY);
            }
          });
    } else {
      this.queue = null;
      this.worker = null;
    }
  }

  /** R3: a token every 10 s with a burst of 1, and no wait longer than 10 s. */
  static RateLimiter<String> watchRateLimiter() {
    TokenBucketRateLimiter<String> bucket =
        new TokenBucketRateLimiter<>(1.0 / WATCH_MIN_INTERVAL.toSeconds(), 1);
    return new RateLimiter<>() {
      @Override
      public Duration when(String item) {
        Duration wait = bucket.when(item);
        return wait.compareTo(WATCH_MIN_INTERVAL) > 0 ? WATCH_MIN_INTERVAL : wait;
      }

      @Override
      public void forget(String item) {
        bucket.forget(item);
      }

      @Override
      public int numRequeues(String item) {
        return bucket.numRequeues(item);
      }
    };
  }

  /**
   * R3: the key an update queues, as upstream's handleNodeUpdate: {@value #NODE_CHANGE_KEY} when
   * pod CIDRs or addresses changed, else {@value #PERIODIC_KEY} for a resync (same resource
   * version), else none.
   */
  static Optional<String> trigger(Node previous, Node node) {
    if (!Objects.equals(podCidrsOf(previous), podCidrsOf(node))
        || !Objects.equals(addressesOf(previous), addressesOf(node))) {
      return Optional.of(NODE_CHANGE_KEY);
    }
    return Objects.equals(
            previous.getMetadata().getResourceVersion(), node.getMetadata().getResourceVersion())
        ? Optional.of(PERIODIC_KEY)
        : Optional.empty();
  }

  private static Object podCidrsOf(Node node) {
    return node.getSpec() == null ? null : node.getSpec().getPodCIDRs();
  }

  private static Object addressesOf(Node node) {
    return node.getStatus() == null ? null : node.getStatus().getAddresses();
  }

  @Override
  public String name() {
    return name;
  }

  /**
   * R2: a pass now, then one every period counted from the start of the previous one (after a slow
   * pass one at once, not one per missed period); R3: the worker, fed by node events.
   */
  @Override
  public void start() {
    if (worker != null) {
      log.info("Starting route controller: cluster CIDRs {}, on node changes", clusterCidrs);
      worker.start();
      return;
    }
    log.info(
        "Starting route controller: cluster CIDRs {}, every {}",
        clusterCidrs,
        GoDurations.format(period));
    pass = PeriodicPass.nonSliding(loop, "route reconciliation", this::reconcileLogged, period);
  }

  @Override
  public Optional<String> health() {
    PeriodicPass started = pass;
    return HealthChecks.problems(
        worker == null ? Optional.empty() : worker.health(),
        started == null ? Optional.empty() : started.health());
  }

  private void reconcileLogged() {
    try {
      reconcileAndRecord(PERIODIC_KEY);
    } catch (CloudException | RuntimeException e) {
      log.error("Couldn't reconcile node routes: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** A pass, counted in {@code route_controller_route_sync_total} by outcome and trigger. */
  private void reconcileAndRecord(String trigger) throws CloudException, InterruptedException {
    boolean changed;
    try {
      changed = reconcileNodeRoutes();
    } catch (CloudException | RuntimeException e) {
      metrics.recordSync(true, false, trigger);
      throw e;
    }
    metrics.recordSync(false, changed, trigger);
  }

  /**
   * R4: one pass; errors of single route operations are logged, not thrown (R9).
   *
   * @return whether a route was created or deleted
   */
  boolean reconcileNodeRoutes() throws CloudException, InterruptedException {
    AtomicBoolean changed = new AtomicBoolean();
    List<Route> existing;
    try {
      existing = routes.listRoutes(clusterName);
    } catch (CloudException e) {
      throw new CloudException("error listing routes: " + e.getMessage(), e);
    }
    List<Node> all = nodes.getStore().list();
    Plan plan = RoutePlanner.plan(all.stream().map(NodeView::of).toList(), existing, clusterCidrs);
    Map<String, Map<String, Action>> outcome = new LinkedHashMap<>();
    plan.actions().forEach((node, actions) -> outcome.put(node, new LinkedHashMap<>(actions)));

    List<Future<?>> pending = new ArrayList<>();
    for (Route route : plan.deletions()) {
      pending.add(
          operations.submit(
              () -> {
                if (deleteRoute(route)) {
                  changed.set(true);
                }
              }));
    }
    // A creation for a destination still being deleted waits for the deletions: a cloud that keys
    // routes by destination (AWS's route tables) refuses it meanwhile. That happens when a pod
    // CIDR passed to another node, and, with address-based routes, on every address change
    // (kubernetes#98359, where upstream waits too). Otherwise both run at once, as upstream.
    Set<String> deleted =
        plan.deletions().stream().map(Route::destinationCidr).collect(Collectors.toSet());
    if (plan.creations().stream().anyMatch(c -> deleted.contains(c.route().destinationCidr()))
        || (!existing.isEmpty() && existing.get(0).enableNodeAddresses())) {
      awaitAll(pending);
    }
    Map<String, Node> byName = new LinkedHashMap<>();
    all.forEach(node -> byName.put(node.getMetadata().getName(), node));
    for (Creation creation : plan.creations()) {
      pending.add(
          operations.submit(
              () -> {
                if (createRoute(byName.get(creation.node()), creation)) {
                  changed.set(true);
                  synchronized (outcome) {
                    outcome
                        .get(creation.node())
                        .put(creation.route().destinationCidr(), Action.KEEP);
                  }
                }
              }));
    }
    awaitAll(pending);

    for (Node node : all) {
      Map<String, Action> actions = outcome.get(node.getMetadata().getName());
      if (actions == null) {
        continue; // no pod CIDRs and no routes: not the route controller's node
      }
      NetworkCondition desired = RoutePlanner.condition(actions);
      if (RoutePlanner.needsWrite(
          NodeConditions.find(node, NodeConditions.NETWORK_UNAVAILABLE), desired)) {
        pending.add(operations.submit(() -> updateNetworkCondition(node, desired)));
      }
    }
    awaitAll(pending);
    return changed.get();
  }

  /** R6: one attempt; a failure is logged and waits for the next pass. */
  private boolean deleteRoute(Route route) {
    long started = System.nanoTime();
    try {
      inFlight.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    try {
      log.info("Deleting route {} {}", route.name(), route.destinationCidr());
      routes.deleteRoute(clusterName, route);
      log.info(
          "Deleted route {} {} after {}", route.name(), route.destinationCidr(), since(started));
      return true;
    } catch (CloudException | RuntimeException e) {
      log.error(
          "Could not delete route {} {} after {}: {}",
          route.name(),
          route.destinationCidr(),
          since(started),
          e.getMessage());
      return false;
    } finally {
      inFlight.release();
    }
  }

  /** R7: one attempt; a failure is a Warning event on the node and waits for the next pass. */
  private boolean createRoute(Node node, Creation creation) {
    long started = System.nanoTime();
    try {
      inFlight.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    Route route = creation.route();
    try {
      log.info(
          "Creating route for node {} {} with hint {}, throttled {}",
          creation.node(),
          route.destinationCidr(),
          creation.nameHint(),
          since(started));
      routes.createRoute(clusterName, creation.nameHint(), route);
      log.info(
          "Created route for node {} {} with hint {} after {}",
          creation.node(),
          route.destinationCidr(),
          creation.nameHint(),
          since(started));
      return true;
    } catch (CloudException | RuntimeException e) {
      String message =
          "Could not create route %s %s for node %s after %s: %s"
              .formatted(
                  creation.nameHint(),
                  route.destinationCidr(),
                  creation.node(),
                  since(started),
                  e.getMessage());
      log.error(message);
      if (node != null) {
        events.warning(node, REASON_FAILED_TO_CREATE_ROUTE, message);
      }
      return false;
    } finally {
      inFlight.release();
    }
  }

  /**
   * R8: upstream's SetNodeCondition, a strategic-merge patch of the status subresource that merges
   * the one condition into the list by type.
   */
  private void updateNetworkCondition(Node node, NetworkCondition condition) {
    try {
      conditionWrites.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    try {
      writeNetworkCondition(node, condition);
    } finally {
      conditionWrites.release();
    }
  }

  private void writeNetworkCondition(Node node, NetworkCondition condition) {
    String name = node.getMetadata().getName();
    try {
      Conflicts.retryOnConflict(
          Conflicts.PATCH_BACKOFF,
          () ->
              NodePatches.patchCondition(
                  client,
                  name,
                  NodeConditions.NETWORK_UNAVAILABLE,
                  condition.status(),
                  condition.reason(),
                  condition.message()));
      log.info("node {}: NetworkUnavailable={} ({})", name, condition.status(), condition.reason());
    } catch (RuntimeException e) {
      log.error("Error updating node {}: {}", name, e.getMessage());
    }
  }

  private static void awaitAll(List<Future<?>> pending) throws InterruptedException {
    for (Future<?> future : pending) {
      try {
        future.get();
      } catch (ExecutionException e) {
        log.error("route operation failed: {}", e.getCause().toString());
      }
    }
    pending.clear();
  }

  private static String since(long startedNanos) {
    return GoDurations.format(Duration.ofNanos(System.nanoTime() - startedNanos));
  }

  @Override
  public void close() throws InterruptedException {
    if (worker != null) {
      worker.close();
    }
    loop.shutdownNow();
    loop.awaitTermination(10, TimeUnit.SECONDS);
    operations.shutdownNow();
    operations.awaitTermination(10, TimeUnit.SECONDS);
  }
}
