package io.ccm4j.bench;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import io.ccm4j.controllers.nodelifecycle.NodeLifecycleController;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.lab.BenchContext;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A cluster of {@code zones × nodesPerZone} simulated nodes, one pod each, loses its first zone
 * (its kubelets stop heartbeating). Records when each lost node got its NoExecute taint and when
 * its pod was marked for deletion, and checks the taint times against the zone's configured rate.
 */
public final class EvictionTimelineBenchmark {

  /** One lost node's story, in seconds since the zone went silent. */
  public record Row(String node, double taintedAt, double podEvictedAt) {}

  public record Result(
      List<Row> rows,
      int nodesPerZone,
      double rate,
      Duration grace,
      long tolerationSeconds,
      double minGapSeconds,
      double meanGapSeconds) {

    /** The timeline as a table; whether no two taints came faster than the rate allows. */
    public boolean print(PrintStream out) {
      out.printf(
          "%neviction-timeline: zone-0 (%d nodes) silent at t=0; grace %ds, rate %s nodes/s, tolerationSeconds %d%n",
          nodesPerZone, grace.toSeconds(), rate, tolerationSeconds);
      out.printf(
          "| %-8s | %-18s | %-22s |%n", "node", "NoExecute taint (s)", "pod marked deleted (s)");
      out.printf("| %-8s | %-18s | %-22s |%n", "-".repeat(8), "-".repeat(18), "-".repeat(22));
      for (var row : rows) {
        out.printf("| %-8s | %18.1f | %22.1f |%n", row.node(), row.taintedAt(), row.podEvictedAt());
      }
      double expectedGap = 1 / rate;
      out.printf(
          "gap between taints: min %.2f s, mean %.2f s (rate %s/s allows one per %.2f s): %s%n",
          minGapSeconds,
          meanGapSeconds,
          rate,
          expectedGap,
          minGapSeconds >= expectedGap * 0.9 ? "within the rate" : "FASTER THAN THE RATE");
      return minGapSeconds >= expectedGap * 0.9;
    }
  }

  private final int zones;
  private final int nodesPerZone;
  private final NodeHealthSettings settings;
  private final long tolerationSeconds;
  private final PrintStream out;

  public EvictionTimelineBenchmark(
      int zones,
      int nodesPerZone,
      NodeHealthSettings settings,
      long tolerationSeconds,
      PrintStream out) {
    this.zones = zones;
    this.nodesPerZone = nodesPerZone;
    this.settings = settings;
    this.tolerationSeconds = tolerationSeconds;
    this.out = out;
  }

  public Result run() throws Exception {
    try (LocalControlPlane controlPlane = LocalControlPlane.builder().start();
        KubernetesClient admin = controlPlane.newClient();
        KubeletFleet fleet =
            new KubeletFleet(
                admin,
                // Kubelets renew at a quarter of the grace period at most, as real ones do (10 s of
                // 40-50 s).
                new KubeletFleet.Options(
                    min(Duration.ofSeconds(10), settings.monitorGracePeriod().dividedBy(4)),
                    Duration.ofMinutes(1),
                    true))) {
      List<SimulatedKubelet> lost = new ArrayList<>();
      for (int z = 0; z < zones; z++) {
        for (int i = 0; i < nodesPerZone; i++) {
          SimulatedKubelet kubelet =
              fleet.register(
                  NodeSpec.named("z" + z + "-n" + i)
                      .withLabels(
                          Map.of(
                              WellKnownLabels.REGION, "bench", WellKnownLabels.ZONE, "zone-" + z)));
          if (z == 0) {
            lost.add(kubelet);
          }
        }
      }
      createPods(admin);
      out.printf(
          "%d nodes in %d zones with a pod each; zone-0 will go silent%n",
          zones * nodesPerZone, zones);

      Map<String, Long> taintedAt = new ConcurrentHashMap<>();
      Map<String, Long> evictedAt = new ConcurrentHashMap<>();
      try (BenchContext bench =
          new BenchContext(
              admin, SimCloudProviderFactory.fromYaml(""), Controllers.NODE_LIFECYCLE)) {
        NodeLifecycleController controller = new NodeLifecycleController(bench.context, settings);
        SharedIndexInformer<Node> nodes = admin.nodes().inform(recordTaints(taintedAt));
        SharedIndexInformer<Pod> pods =
            admin.pods().inNamespace("timeline").inform(recordEvictions(evictedAt));
        bench.context.informers().startAllRegisteredInformers().get(2, TimeUnit.MINUTES);
        controller.start();
        Thread.sleep(settings.monitorPeriod().multipliedBy(3).toMillis()); // every zone seen Normal

        long silentAt = System.nanoTime();
        lost.forEach(SimulatedKubelet::stopHeartbeats);
        long deadline =
            silentAt
                + settings.monitorGracePeriod().plusSeconds(tolerationSeconds + 60).toNanos()
                + (long) (nodesPerZone / settings.evictionRate() * 1.5e9);
        while (evictedAt.size() < lost.size() && System.nanoTime() < deadline) {
          Thread.sleep(200);
        }
        controller.close();
        nodes.close();
        pods.close();

        List<Row> rows = new ArrayList<>();
        for (SimulatedKubelet kubelet : lost) {
          String name = kubelet.nodeName();
          rows.add(
              new Row(
                  name,
                  seconds(taintedAt.get(name), silentAt),
                  seconds(evictedAt.get("pod-" + name), silentAt)));
        }
        rows.sort(Comparator.comparingDouble(Row::taintedAt));
        double minGap = Double.MAX_VALUE;
        double sumGap = 0;
        for (int i = 1; i < rows.size(); i++) {
          double gap = rows.get(i).taintedAt() - rows.get(i - 1).taintedAt();
          minGap = Math.min(minGap, gap);
          sumGap += gap;
        }
        return new Result(
            rows,
            nodesPerZone,
            settings.evictionRate(),
            settings.monitorGracePeriod(),
            tolerationSeconds,
            rows.size() > 1 ? minGap : Double.NaN,
            rows.size() > 1 ? sumGap / (rows.size() - 1) : Double.NaN);
      }
    }
  }

  private void createPods(KubernetesClient admin) {
    admin
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName("timeline").endMetadata().build())
        .create();
    admin
        .serviceAccounts()
        .inNamespace("timeline")
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build())
        .create();
    for (int z = 0; z < zones; z++) {
      for (int i = 0; i < nodesPerZone; i++) {
        String node = "z" + z + "-n" + i;
        admin
            .pods()
            .inNamespace("timeline")
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("pod-" + node)
                    .endMetadata()
                    .withNewSpec()
                    .withAutomountServiceAccountToken(false)
                    .withNodeName(node)
                    .addToTolerations(
                        new TolerationBuilder()
                            .withKey(WellKnownTaints.NODE_UNREACHABLE)
                            .withOperator("Exists")
                            .withEffect("NoExecute")
                            .withTolerationSeconds(tolerationSeconds)
                            .build(),
                        new TolerationBuilder()
                            .withKey(WellKnownTaints.NODE_NOT_READY)
                            .withOperator("Exists")
                            .withEffect("NoExecute")
                            .withTolerationSeconds(tolerationSeconds)
                            .build())
                    .addNewContainer()
                    .withName("app")
                    .withImage("registry.invalid/app:1")
                    .endContainer()
                    .endSpec()
                    .build())
            .create();
      }
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static double seconds(Long at, long since) {
    return at == null ? Double.NaN : (at - since) / 1e9;
  }

  private static ResourceEventHandler<Node> recordTaints(Map<String, Long> taintedAt) {
    return new FirstTimeNodes(
        node ->
            Taints.has(node, WellKnownTaints.NODE_UNREACHABLE, WellKnownTaints.EFFECT_NO_EXECUTE)
                || Taints.has(
                    node, WellKnownTaints.NODE_NOT_READY, WellKnownTaints.EFFECT_NO_EXECUTE),
        taintedAt);
  }

  private static ResourceEventHandler<Pod> recordEvictions(Map<String, Long> evictedAt) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod) {}

      @Override
      public void onUpdate(Pod previous, Pod pod) {
        if (pod.getMetadata().getDeletionTimestamp() != null) {
          evictedAt.putIfAbsent(pod.getMetadata().getName(), System.nanoTime());
        }
      }

      @Override
      public void onDelete(Pod pod, boolean unknown) {
        evictedAt.putIfAbsent(pod.getMetadata().getName(), System.nanoTime());
      }
    };
  }
}
