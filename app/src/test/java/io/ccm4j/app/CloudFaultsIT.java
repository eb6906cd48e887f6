package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.Route;
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
import io.ccm4j.runtime.serving.ServingKeys;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A cloud that fails 30 % of its calls and lets 5 % hang until their timeout (issue 12): every node
 * is initialised, none is deleted (its instance exists; an error is no answer), every load balancer
 * gets its address and every pod CIDR its route, and none of them is lost afterwards. The nodes
 * report NotReady throughout, so the cloud-node-lifecycle controller asks the faulty cloud about
 * each of them every 5 s. A control plane of its own: the route controller owns every node's route.
 */
class CloudFaultsIT {

  private static final int NODES = 200;
  private static final int SERVICES = 10;
  private static final String CLUSTER_CIDR = "10.120.0.0/16";

  @Test
  void aFailingAndHangingCloudLosesNothing() throws Exception {
    String prefix = "faulty-cloud-";
    SimCloud cloud =
        SimCloudProviderFactory.fromYaml(
            """
            latencyMs: 5
            errorRate: 0.3
            hangRate: 0.05
            hangMs: 1000
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
        ManagerClients clients =
            ManagerClients.create(controlPlane.adminConfig(), 100, 150, false);
        CloudControllerManager manager =
            new CloudControllerManager(
                clients, settings(cloud), Controllers.factories(), exits::add);
        KubeletFleet kubelets = new KubeletFleet(client, KubeletFleet.Options.kubeletDefaults())) {
      manager.start();
      long started = System.nanoTime();
      for (int i = 0; i < NODES; i++) {
        kubelets.register(NodeSpec.named(prefix + i).withNotReady("network plugin not ready"));
      }
      for (int i = 0; i < SERVICES; i++) {
        client
            .services()
            .inNamespace("default")
            .resource(
                new ServiceBuilder()
                    .withNewMetadata()
                    .withName("web-" + i)
                    .endMetadata()
                    .withNewSpec()
                    .withType("LoadBalancer")
                    .addToSelector("app", "web-" + i)
                    .addNewPort()
                    .withProtocol("TCP")
                    .withPort(80)
                    .withTargetPort(new IntOrString(8080))
                    .endPort()
                    .endSpec()
                    .build())
            .create();
      }

      await("every node initialised, every load balancer and route in place")
          .atMost(180, TimeUnit.SECONDS)
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () ->
                  initialised(client, prefix) == NODES
                      && withIngress(client) == SERVICES
                      && routes(cloud).size() == NODES);
      double converged = (System.nanoTime() - started) / 1e9;
      List<Route> routesThen = routes(cloud);
      // Another 15 s of faults: three cloud-node-lifecycle passes over 200 NotReady nodes, route
      // passes, node syncs.
      Thread.sleep(15_000);

      List<Node> nodes =
          client.nodes().list().getItems().stream()
              .filter(node -> node.getMetadata().getName().startsWith(prefix))
              .toList();
      var calls = cloud.calls();
      System.out.printf(
          "fault: cloud failing 30%% and hanging 5%% of calls: %d nodes initialised, %d load"
              + " balancers and %d routes in place after %.1f s; %d calls (%d failed, %d hung);"
              + " after 15 s more: %d nodes, %d load balancers, %d routes%n",
          NODES,
          SERVICES,
          routesThen.size(),
          converged,
          calls.values().stream().mapToLong(Long::longValue).sum()
              - calls.getOrDefault(SimCloud.INJECTED_ERRORS, 0L)
              - calls.getOrDefault(SimCloud.INJECTED_HANGS, 0L),
          calls.getOrDefault(SimCloud.INJECTED_ERRORS, 0L),
          calls.getOrDefault(SimCloud.INJECTED_HANGS, 0L),
          nodes.size(),
          cloud.loadBalancers().loadBalancers().size(),
          routes(cloud).size());
      assertThat(nodes).as("none deleted").hasSize(NODES);
      assertThat(nodes)
          .allSatisfy(
              node ->
                  assertThat(node.getSpec().getProviderID())
                      .isEqualTo("sim://" + node.getMetadata().getName()));
      assertThat(cloud.loadBalancers().loadBalancers()).hasSize(SERVICES);
      assertThat(withIngress(client)).isEqualTo(SERVICES);
      assertThat(routes(cloud)).containsExactlyInAnyOrderElementsOf(routesThen);
      assertThat(calls.getOrDefault(SimCloud.INJECTED_HANGS, 0L)).isPositive();
      assertThat(exits).isEmpty();
    }
  }

  private static CloudControllerManager.Settings settings(SimCloud cloud) {
    return new CloudControllerManager.Settings(
        cloud,
        "kubernetes",
        ControllerSelection.parse(
            List.of("cloud-node", "cloud-node-lifecycle", "service", "route", "nodeipam"),
            Set.of()),
        new ControllerSettings(
            10,
            0,
            Duration.ofMinutes(5),
            Duration.ofSeconds(5),
            4,
            NodeHealthSettings.defaults(),
            new NetworkSettings(
                NetworkSettings.parseDualStack(CLUSTER_CIDR),
                true,
                Duration.ofSeconds(5),
                true,
                24,
                64,
                List.of(),
                false)),
        Optional.empty(),
        Optional.empty(),
        ServingKeys.selfSigned());
  }

  private static int initialised(KubernetesClient client, String prefix) {
    return (int)
        client.nodes().list().getItems().stream()
            .filter(node -> node.getMetadata().getName().startsWith(prefix))
            .filter(node -> node.getSpec().getProviderID() != null)
            .filter(
                node ->
                    node.getSpec().getTaints() == null
                        || node.getSpec().getTaints().stream()
                            .noneMatch(t -> t.getKey().equals(WellKnownTaints.UNINITIALIZED)))
            .count();
  }

  private static int withIngress(KubernetesClient client) {
    return (int)
        IntStream.range(0, SERVICES)
            .mapToObj(i -> client.services().inNamespace("default").withName("web-" + i).get())
            .filter(
                service ->
                    service != null
                        && service.getStatus() != null
                        && service.getStatus().getLoadBalancer() != null
                        && service.getStatus().getLoadBalancer().getIngress() != null
                        && !service.getStatus().getLoadBalancer().getIngress().isEmpty())
            .count();
  }

  private static List<Route> routes(SimCloud cloud) {
    return cloud.routeTable().routes("kubernetes");
  }
}
