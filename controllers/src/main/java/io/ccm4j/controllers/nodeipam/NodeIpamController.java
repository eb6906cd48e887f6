package io.ccm4j.controllers.nodeipam;

import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.controllers.SharedInformers;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.runtime.controller.Controller;
import io.ccm4j.runtime.controller.QueueWorkers;
import io.ccm4j.runtime.events.EventRecorder;
import io.ccm4j.runtime.workqueue.RateLimiters;
import io.ccm4j.runtime.workqueue.WorkQueue;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Node IPAM with upstream's range allocator: gives every Node one pod CIDR per cluster CIDR ({@code
 * spec.podCIDR}, {@code spec.podCIDRs}) out of {@code --cluster-cidr}, cut at {@code
 * --node-cidr-mask-size(-ipv4|-ipv6)}. At start it first records the pod CIDRs the Nodes already
 * have, so a restart never hands one out twice; a Node being deleted gets none, and a deleted
 * Node's CIDRs go back to the pool. When the range is exhausted the Node gets a Warning event
 * {@code CIDRNotAvailable} and is retried with backoff, and at once when a CIDR is freed.
 */
public final class NodeIpamController implements Controller {

  private static final Logger log = LoggerFactory.getLogger(NodeIpamController.class);

  /** Upstream's reason when the range is exhausted; its message is "Node %s status is now: %s". */
  static final String REASON_CIDR_NOT_AVAILABLE = "CIDRNotAvailable";

  /** ccm4j's reason for pod CIDRs a Node already has that the allocator cannot manage. */
  static final String REASON_INVALID_POD_CIDR = "InvalidPodCIDR";

  /** Upstream's queue name. */
  static final String QUEUE = "cidrallocator_node";

  /**
   * Upstream's cidrUpdateWorkers: nodes allocated at once, each worker mostly waiting for one node
   * patch, so a burst of joining nodes is not held up behind a slow API server.
   */
  private static final int CIDR_UPDATE_WORKERS = 30;

  private final KubernetesClient client;
  private final RangeAllocator allocator;
  private final String name;
  private final EventRecorder events;
  private final SharedIndexInformer<Node> nodes;
  private final WorkQueue<String> queue;
  private final QueueWorkers<String> workers;

  /** Nodes waiting for a CIDR to be freed. */
  private final Set<String> waiting = ConcurrentHashMap.newKeySet();

  /** The last problem reported per node, so a problem is reported once, not on every update. */
  private final Map<String, String> reported = new ConcurrentHashMap<>();

  public NodeIpamController(ControllerContext context, NetworkSettings network)
      throws ControllerUnavailableException {
    if (!network.allocateNodeCidrs()) {
      throw new ControllerUnavailableException(
          "--allocate-node-cidrs is false, so pod CIDRs are not allocated");
    }
    if (network.clusterCidrs().isEmpty()) {
      throw new ControllerUnavailableException(
          "--allocate-node-cidrs needs --cluster-cidr, which is not set");
    }
    try {
      this.allocator =
          new RangeAllocator(
              network.clusterCidrs(), network::nodeCidrMaskSize, network.serviceCidrs());
    } catch (IllegalArgumentException e) {
      throw new ControllerUnavailableException(e.getMessage());
    }
    this.client = context.client();
    this.name = context.name();
    this.events = context.events();
    this.queue = new WorkQueue<>(QUEUE, RateLimiters.controllerDefault(), context.metrics());
    this.workers = new QueueWorkers<>(context.name(), queue, this::syncNode, CIDR_UPDATE_WORKERS);
    this.nodes = SharedInformers.of(context.informers(), Node.class);
    new NodeIpamControllerMetrics(context.metrics(), allocator);
    nodes.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Node node) {
            queue.add(node.getMetadata().getName());
          }

          @Override
          public void onUpdate(Node previous, Node node) {
            List<String> cidrs = podCidrs(node);
            if (cidrs.isEmpty() || !cidrs.equals(podCidrs(previous))) {
              queue.add(node.getMetadata().getName());
            }
          }

          @Override
          public void onDelete(Node node, boolean finalStateUnknown) {
            queue.add(node.getMetadata().getName());
          }
        });
  }

  @Override
  public String name() {
    return name;
  }

  /**
   * Records every pod CIDR the Nodes in the (synced) cache already hold before any worker
   * allocates, then starts the workers.
   */
  @Override
  public void start() {
    int holding = 0;
    for (Node node : nodes.getStore().list()) {
      List<String> cidrs = podCidrs(node);
      if (!cidrs.isEmpty()) {
        report(node, allocator.adopt(node.getMetadata().getName(), uid(node), cidrs));
        holding++;
      }
    }
    log.info("{} nodes already hold pod CIDRs ({})", holding, allocator.usage());
    workers.start();
  }

  @Override
  public Optional<String> health() {
    return workers.health();
  }

  /** A waiting node may fit now that a CIDR was freed. */
  private void wakeWaiting() {
    waiting.forEach(queue::add);
  }

  /**
   * Level-triggered: the node's CIDRs recorded, given (not to a node being deleted), or released
   * when it is gone.
   */
  void syncNode(String name) {
    Node node = nodes.getStore().getByKey(name);
    if (node == null) {
      reported.remove(name);
      waiting.remove(name);
      if (allocator.release(name)) {
        log.info("released the pod CIDRs of deleted node {} ({})", name, allocator.usage());
        wakeWaiting();
      }
      return;
    }
    List<String> existing = podCidrs(node);
    if (!existing.isEmpty()) {
      waiting.remove(name);
      report(node, allocator.adopt(name, uid(node), existing));
      return;
    }
    if (node.getMetadata().getDeletionTimestamp() != null) {
      // Being deleted (a finalizer holds it): no CIDR for it, as upstream's syncNode returns
      // before allocating; what it holds goes back to the pool when it is gone.
      waiting.remove(name);
      log.debug("node {} is being deleted: no pod CIDR for it", name);
      return;
    }
    Optional<List<Cidr>> allocated = allocator.allocate(name, uid(node));
    if (allocated.isEmpty()) {
      // One Warning when the node starts waiting, not one per retry (the kubelet's status posts
      // requeue it too); the retries are logged.
      if (waiting.add(name)) {
        events.warning(
            node,
            REASON_CIDR_NOT_AVAILABLE,
            "Node %s status is now: %s".formatted(name, REASON_CIDR_NOT_AVAILABLE));
      }
      throw new IllegalStateException(
          "no pod CIDR left for node %s (%s)".formatted(name, allocator.usage()));
    }
    waiting.remove(name);
    List<String> cidrs = allocated.get().stream().map(Cidr::toString).toList();
    try {
      NodePatches.patchPodCidrs(client, name, uid(node), cidrs);
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        // Deleted meanwhile: its delete event will find nothing to release, so wake them here.
        if (allocator.release(name)) {
          wakeWaiting();
        }
        return;
      }
      // The allocation stays with the node (same UID), so the retry sends the same CIDRs: the
      // write may have landed even though it failed (upstream's reasoning for timeouts).
      throw e;
    }
    log.info("Set node {} PodCIDR to {}", name, cidrs);
  }

  private void report(Node node, List<String> problems) {
    String name = node.getMetadata().getName();
    if (problems.isEmpty()) {
      reported.remove(name);
      return;
    }
    String message = "node %s: %s".formatted(name, String.join("; ", problems));
    if (!message.equals(reported.put(name, message))) {
      log.warn(message);
      events.warning(node, REASON_INVALID_POD_CIDR, message);
    }
  }

  /** {@code spec.podCIDRs}, else the single {@code spec.podCIDR} of older writers. */
  static List<String> podCidrs(Node node) {
    if (node == null || node.getSpec() == null) {
      return List.of();
    }
    List<String> cidrs = node.getSpec().getPodCIDRs();
    if (cidrs != null && !cidrs.isEmpty()) {
      return List.copyOf(cidrs);
    }
    String single = node.getSpec().getPodCIDR();
    return single == null || single.isBlank() ? List.of() : List.of(single);
  }

  private static String uid(Node node) {
    return Objects.requireNonNullElse(node.getMetadata().getUid(), "");
  }

  @Override
  public void close() throws InterruptedException {
    workers.close();
  }
}
