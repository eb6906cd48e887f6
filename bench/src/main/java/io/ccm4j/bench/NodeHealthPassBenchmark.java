package io.ccm4j.bench;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import io.ccm4j.controllers.nodelifecycle.NodeLifecycleController;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.lab.BenchContext;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * CPU time of one node-health pass (cache reads and decisions) over N healthy nodes: they are
 * registered with Ready=True, and the passes run within the grace period, so no pass writes.
 */
public final class NodeHealthPassBenchmark {

  public record Result(int nodes, int passes, double[] cpuMillis) {
    public double percentile(double p) {
      double[] sorted = cpuMillis.clone();
      Arrays.sort(sorted);
      return NodeInitMeasurements.percentile(sorted, p);
    }

    public void print(PrintStream out) {
      out.printf(
          "%nnode-health-pass: %d nodes, %d passes: CPU per pass p50 %.1f ms, p90 %.1f ms, max %.1f ms%n",
          nodes, passes, percentile(0.5), percentile(0.9), percentile(1.0));
    }
  }

  private final int nodes;
  private final int passes;
  private final PrintStream out;

  public NodeHealthPassBenchmark(int nodes, int passes, PrintStream out) {
    this.nodes = nodes;
    this.passes = passes;
    this.out = out;
  }

  public Result run() throws Exception {
    try (LocalControlPlane controlPlane = LocalControlPlane.builder().start();
        KubernetesClient admin = controlPlane.newClient();
        KubeletFleet fleet = new KubeletFleet(admin, KubeletFleet.Options.withoutHeartbeats())) {
      List<NodeSpec> specs =
          IntStream.range(0, nodes)
              .mapToObj(
                  i ->
                      NodeSpec.named("health-" + i)
                          .withLabels(
                              Map.of(
                                  WellKnownLabels.REGION,
                                  "bench",
                                  WellKnownLabels.ZONE,
                                  "zone-" + (i % 3))))
              .toList();
      long registering = System.nanoTime();
      fleet.registerAll(specs, 32);
      out.printf("registered %d nodes in %.1f s%n", nodes, (System.nanoTime() - registering) / 1e9);
      // A grace period far longer than the benchmark: every pass only reads and decides.
      NodeHealthSettings health =
          new NodeHealthSettings(
              Duration.ofSeconds(5),
              Duration.ofHours(1),
              Duration.ofHours(1),
              0.1,
              0.01,
              0.55f,
              50);
      try (BenchContext bench =
          new BenchContext(
              admin, SimCloudProviderFactory.fromYaml(""), Controllers.NODE_LIFECYCLE)) {
        NodeLifecycleController controller = new NodeLifecycleController(bench.context, health);
        bench.context.informers().startAllRegisteredInformers().get(2, TimeUnit.MINUTES);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        controller.monitorNodeHealth(); // first sight: registers every node (events are written
        // elsewhere)
        for (int warmup = 0; warmup < 20; warmup++) {
          controller.monitorNodeHealth();
        }
        double[] cpu = new double[passes];
        for (int i = 0; i < passes; i++) {
          long start = threads.getCurrentThreadCpuTime();
          controller.monitorNodeHealth();
          cpu[i] = (threads.getCurrentThreadCpuTime() - start) / 1e6;
        }
        controller.close();
        return new Result(nodes, passes, cpu);
      }
    }
  }
}
