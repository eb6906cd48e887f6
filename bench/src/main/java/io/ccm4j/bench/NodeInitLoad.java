package io.ccm4j.bench;

import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The node-init load: the simulated kubelets' registrations, all at once, and the watch that notes
 * when each node loses its uninitialized taint.
 */
final class NodeInitLoad {

  private NodeInitLoad() {}

  /**
   * Waits until every one of {@code names} is untainted or the time is up; fails if the manager
   * exits.
   */
  static void awaitUntainted(
      Map<String, Long> untaintedAt,
      List<String> names,
      Process manager,
      Path log,
      Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!untaintedAt.keySet().containsAll(names) && System.nanoTime() < deadline) {
      if (!manager.isAlive()) {
        throw new IllegalStateException(
            "the manager exited with %d; see %s".formatted(manager.exitValue(), log));
      }
      Thread.sleep(20);
    }
  }

  /** Readings of the API server's write totals, 500 ms apart, that must agree to call it quiet. */
  static final int QUIET_READINGS = 4;

  /**
   * Waits until the API server has taken no node or event write for {@link #QUIET_READINGS}
   * readings in a row (1.5 s), so that what a peer still had queued (events above all: their
   * broadcasters write behind the controllers) has landed; gives up after {@code timeout}.
   */
  static void awaitQuiet(KubernetesClient admin, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<Double> readings = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      Map<String, Double> totals = ApiServerMetrics.requestTotals(admin);
      readings.add(
          NodeInitMeasurements.nodeWrites(Map.of(), totals)
              + NodeInitMeasurements.eventWrites(Map.of(), totals));
      if (quiet(readings, QUIET_READINGS)) {
        return;
      }
      Thread.sleep(500);
    }
  }

  /** Whether the last {@code needed} readings of a running total are all the same. */
  static boolean quiet(List<Double> readings, int needed) {
    if (readings.size() < needed) {
      return false;
    }
    List<Double> last = readings.subList(readings.size() - needed, readings.size());
    return last.stream().distinct().count() == 1;
  }

  /**
   * Notes in {@code untaintedAt} when each node named {@code prefix}… first has no uninitialized
   * taint.
   */
  static SharedIndexInformer<Node> watchUntaint(
      KubernetesClient admin, String prefix, Map<String, Long> untaintedAt) {
    return admin
        .nodes()
        .inform(
            new FirstTimeNodes(
                node ->
                    node.getMetadata().getName().startsWith(prefix)
                        && !Taints.hasKey(node, WellKnownTaints.UNINITIALIZED),
                untaintedAt));
  }

  /** Registers {@code names} at once, from {@code workers} threads, noting when each was. */
  static void register(
      KubeletFleet fleet, List<String> names, Map<String, Long> registeredAt, int workers)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (String name : names) {
        futures.add(
            pool.submit(
                () -> {
                  registeredAt.put(name, System.nanoTime());
                  fleet.register(NodeSpec.named(name));
                  return null;
                }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
