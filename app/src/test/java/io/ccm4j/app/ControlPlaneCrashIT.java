package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodehealth.NodeHealthSettings;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.runtime.serving.ServingAccess;
import io.ccm4j.runtime.serving.ServingKeys;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The control plane crashes under ccm4j while nodes initialise (issue 12): kube-apiserver or etcd
 * is killed with SIGKILL and started again a few seconds later. Every node ends initialised, none
 * loses its uninitialized taint without a provider ID, the cloud is asked about a node once plus
 * once per retry, and the manager keeps its Lease (the outage is shorter than the renew deadline).
 * Each run has a control plane of its own, so no other test sees the crash.
 */
class ControlPlaneCrashIT {

  private static final int NODES = 300;
  private static final Duration DOWN = Duration.ofSeconds(3);

  @ParameterizedTest
  @ValueSource(strings = {"kube-apiserver", "etcd"})
  void nodesInitialiseThroughACrashAndRestart(String component) throws Exception {
    String prefix = "crash-" + UUID.randomUUID().toString().substring(0, 6) + "-";
    SimCloud cloud =
        SimCloudProviderFactory.fromYaml(
            """
            latencyMs: 5
            generate:
              count: %d
              prefix: %s
              regions: {r1: [r1-a, r1-b]}
              instanceTypes: [sim.small]
            """
                .formatted(NODES, prefix));
    List<Integer> exits = new CopyOnWriteArrayList<>();
    try (LocalControlPlane controlPlane = LocalControlPlane.builder().start();
        KubernetesClient client = controlPlane.newClient();
        ManagerClients clients = ManagerClients.create(controlPlane.adminConfig(), 50, 100, false);
        CloudControllerManager manager =
            new CloudControllerManager(
                clients, settings(cloud), Controllers.factories(), exits::add);
        KubeletFleet kubelets =
            new KubeletFleet(client, KubeletFleet.Options.withoutHeartbeats())) {
      manager.start();
      await().atMost(30, TimeUnit.SECONDS).until(manager::isLeader);
      ManagementClient endpoint =
          new ManagementClient("127.0.0.1", manager.servingAddress().orElseThrow().getPort());

      long registered = System.nanoTime();
      for (int i = 0; i < NODES; i++) {
        kubelets.register(NodeSpec.named(prefix + i));
      }
      await("a third of the nodes initialised")
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> initialised(client, prefix) >= NODES / 3);
      int before = initialised(client, prefix);
      Duration outage = controlPlane.crashAndRestart(component, DOWN);
      long back = System.nanoTime();

      await("every node initialised after the restart")
          .ignoreExceptions() // the API server may still refuse a request or two
          .atMost(180, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(250))
          .until(() -> initialised(client, prefix) == NODES);
      double recovered = (System.nanoTime() - back) / 1e9;
      double total = (System.nanoTime() - registered) / 1e9;

      List<Node> nodes =
          client.nodes().list().getItems().stream()
              .filter(node -> node.getMetadata().getName().startsWith(prefix))
              .toList();
      assertThat(nodes).hasSize(NODES);
      assertThat(nodes)
          .as("no node without its provider ID, none still tainted")
          .allSatisfy(
              node -> {
                assertThat(node.getSpec().getProviderID())
                    .isEqualTo("sim://" + node.getMetadata().getName());
                assertThat(node.getSpec().getTaints())
                    .noneMatch(t -> t.getKey().equals(WellKnownTaints.UNINITIALIZED));
              });
      long metadataCalls = cloud.calls().getOrDefault("InstanceMetadata", 0L);
      double retries = metric(endpoint, "workqueue_retries_total", "Nodes");
      System.out.printf(
          "fault: %s killed and restarted after %.1f s (%d of %d nodes initialised before):"
              + " all %d initialised %.1f s after it was back (%.1f s in all);"
              + " %d InstanceMetadata calls for %d nodes, %.0f retries; Lease kept: %s%n",
          component,
          outage.toMillis() / 1000.0,
          before,
          NODES,
          NODES,
          recovered,
          total,
          metadataCalls,
          NODES,
          retries,
          exits.isEmpty() && manager.isLeader());
      assertThat(metadataCalls)
          .as("one call per node, plus one per retry")
          .isLessThanOrEqualTo(NODES + (long) retries);
      assertThat(exits).as("the outage was shorter than the renew deadline").isEmpty();
      assertThat(manager.isLeader()).isTrue();
    }
  }

  private static CloudControllerManager.Settings settings(SimCloud cloud) {
    return new CloudControllerManager.Settings(
        cloud,
        "kubernetes",
        ControllerSelection.parse(List.of("cloud-node"), Set.of()),
        new ControllerSettings(
            10,
            0,
            Duration.ofMinutes(5),
            Duration.ofSeconds(5),
            1,
            NodeHealthSettings.defaults(),
            NetworkSettings.defaults()),
        Optional.of(
            new LeaderElection.Settings(
                "kube-system",
                "cloud-controller-manager",
                "crash_" + UUID.randomUUID(),
                Duration.ofSeconds(15),
                Duration.ofSeconds(10),
                Duration.ofSeconds(2),
                Duration.ofSeconds(20))),
        Optional.of(new InetSocketAddress("127.0.0.1", 0)),
        ServingKeys.selfSigned(),
        ServingAccess.allowing(List.of("/healthz", "/readyz", "/livez", "/metrics")));
  }

  private static int initialised(KubernetesClient client, String prefix) {
    return (int)
        client.nodes().list().getItems().stream()
            .filter(node -> node.getMetadata().getName().startsWith(prefix))
            .filter(
                node ->
                    node.getSpec().getTaints() == null
                        || node.getSpec().getTaints().stream()
                            .noneMatch(t -> t.getKey().equals(WellKnownTaints.UNINITIALIZED)))
            .count();
  }

  private static double metric(ManagementClient endpoint, String name, String queue)
      throws Exception {
    String body = endpoint.get("/metrics").body();
    Matcher matcher =
        Pattern.compile(
                "^" + name + "\\{[^}]*name=\"" + Pattern.quote(queue) + "\"[^}]*\\} (\\S+)$",
                Pattern.MULTILINE)
            .matcher(body);
    return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
  }
}
