package io.ccm4j.controllers.nodeipam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.controllers.ControllerHarness;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Node IPAM against a real API server. The API server is shared with other test classes, whose
 * Nodes may still exist: assertions hold whatever other Nodes there are.
 */
@WithControlPlane
class NodeIpamControllerIT {

  private final KubernetesClient client;
  private final String prefix = "ipam-" + UUID.randomUUID().toString().substring(0, 6) + "-";
  private final List<ControllerHarness> harnesses = new ArrayList<>();
  private KubeletFleet kubelets;

  NodeIpamControllerIT(KubernetesClient client) {
    this.client = client;
  }

  @AfterEach
  void stop() throws Exception {
    for (ControllerHarness harness : harnesses) {
      harness.close();
    }
    if (kubelets != null) {
      kubelets.close();
    }
    client.nodes().list().getItems().stream()
        .filter(node -> node.getMetadata().getName().startsWith(prefix))
        .forEach(node -> client.nodes().resource(node).delete());
  }

  private ControllerHarness startIpam(String clusterCidrs, String serviceCidrs, int ipv4Mask)
      throws Exception {
    NetworkSettings network =
        new NetworkSettings(
            NetworkSettings.parseDualStack(clusterCidrs),
            false,
            Duration.ofSeconds(10),
            true,
            ipv4Mask,
            64,
            serviceCidrs.isEmpty() ? List.of() : NetworkSettings.parseDualStack(serviceCidrs),
            false);
    ControllerSettings settings =
        ControllerSettings.defaults().withConcurrentNodeSyncs(1).withNetwork(network);
    ControllerHarness harness =
        new ControllerHarness(client, SimCloudProviderFactory.fromYaml(""), settings)
            .start(Controllers.NODE_IPAM);
    harnesses.add(harness);
    return harness;
  }

  private Node createNode(String name, String... podCidrs) {
    NodeBuilder node = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
    if (podCidrs.length > 0) {
      node.withNewSpec().withPodCIDR(podCidrs[0]).withPodCIDRs(podCidrs).endSpec();
    }
    return client.nodes().resource(node.build()).create();
  }

  private List<String> podCidrs(String name) {
    Node node = client.nodes().withName(name).get();
    return node == null || node.getSpec().getPodCIDRs() == null
        ? List.of()
        : node.getSpec().getPodCIDRs();
  }

  /** Every pod CIDR inside {@code range} held by any node, node by node. */
  private Map<String, List<String>> holdersIn(String range) {
    Cidr cluster = Cidr.parse(range);
    Map<String, List<String>> holders = new HashMap<>();
    for (Node node : client.nodes().list().getItems()) {
      List<String> cidrs = node.getSpec().getPodCIDRs();
      if (cidrs == null) {
        continue;
      }
      for (String cidr : cidrs) {
        Cidr parsed = Cidr.parse(cidr);
        if (cluster.contains(parsed)) {
          holders.computeIfAbsent(node.getMetadata().getName(), n -> new ArrayList<>()).add(cidr);
        }
      }
    }
    return holders;
  }

  private static List<String> flatten(Map<String, List<String>> holders) {
    return holders.values().stream().flatMap(List::stream).toList();
  }

  @Test
  void everyNodeGetsItsOwnCidrFromTheClusterCidr() throws Exception {
    startIpam("10.100.0.0/16", "", 24);
    kubelets = new KubeletFleet(client, KubeletFleet.Options.kubeletDefaults());
    List<String> names = IntStream.range(0, 12).mapToObj(i -> prefix + i).toList();
    kubelets.registerAll(names.stream().map(NodeSpec::named).toList(), 6);

    await()
        .atMost(30, TimeUnit.SECONDS)
        .until(() -> names.stream().allMatch(name -> podCidrs(name).size() == 1));

    Cidr cluster = Cidr.parse("10.100.0.0/16");
    for (String name : names) {
      Node node = client.nodes().withName(name).get();
      assertThat(node.getSpec().getPodCIDR()).isEqualTo(node.getSpec().getPodCIDRs().get(0));
      Cidr cidr = Cidr.parse(node.getSpec().getPodCIDR());
      assertThat(cluster.contains(cidr)).isTrue();
      assertThat(cidr.prefixLength()).isEqualTo(24);
    }
    assertThat(flatten(holdersIn("10.100.0.0/16"))).doesNotHaveDuplicates();
  }

  @Test
  void dualStackNodesGetOneCidrPerFamilyAndTheServiceRangeIsSkipped() throws Exception {
    // The service range covers the first two /24s: no node may get them.
    startIpam("10.101.0.0/16,fd00:101::/56", "10.101.0.0/23", 24);
    List<String> names = IntStream.range(0, 4).mapToObj(i -> prefix + i).toList();
    names.forEach(this::createNode);

    await()
        .atMost(30, TimeUnit.SECONDS)
        .until(() -> names.stream().allMatch(name -> podCidrs(name).size() == 2));

    for (String name : names) {
      List<String> cidrs = podCidrs(name);
      assertThat(Cidr.parse(cidrs.get(0)).family()).isEqualTo(Cidr.Family.IPv4);
      assertThat(Cidr.parse(cidrs.get(1)).family()).isEqualTo(Cidr.Family.IPv6);
      assertThat(Cidr.parse(cidrs.get(1)).prefixLength()).isEqualTo(64);
      assertThat(cidrs.get(0)).isNotIn("10.101.0.0/24", "10.101.1.0/24");
    }
    assertThat(flatten(holdersIn("10.101.0.0/16"))).doesNotHaveDuplicates();
    assertThat(flatten(holdersIn("fd00:101::/56"))).doesNotHaveDuplicates();
  }

  @Test
  void aRestartKeepsEveryCidrAndNeverHandsOneOutTwice() throws Exception {
    ControllerHarness first = startIpam("10.102.0.0/16", "", 24);
    List<String> before = IntStream.range(0, 5).mapToObj(i -> prefix + "a" + i).toList();
    before.forEach(this::createNode);
    await()
        .atMost(30, TimeUnit.SECONDS)
        .until(() -> before.stream().allMatch(name -> podCidrs(name).size() == 1));
    Map<String, List<String>> assigned = new HashMap<>();
    before.forEach(name -> assigned.put(name, podCidrs(name)));
    // A node given a CIDR by someone else while the controller was down.
    first.close();
    harnesses.remove(first);
    createNode(prefix + "preset", "10.102.5.0/24");

    startIpam("10.102.0.0/16", "", 24);
    List<String> after = IntStream.range(0, 5).mapToObj(i -> prefix + "b" + i).toList();
    after.forEach(this::createNode);
    await()
        .atMost(30, TimeUnit.SECONDS)
        .until(() -> after.stream().allMatch(name -> podCidrs(name).size() == 1));

    before.forEach(name -> assertThat(podCidrs(name)).isEqualTo(assigned.get(name)));
    assertThat(podCidrs(prefix + "preset")).containsExactly("10.102.5.0/24");
    assertThat(flatten(holdersIn("10.102.0.0/16"))).doesNotHaveDuplicates();
  }

  @Test
  void exhaustionIsAWarningEventAndADeletedNodesCidrGoesToAWaitingNode() throws Exception {
    String range = "10.103.0.0/22"; // four /24s
    ControllerHarness harness = startIpam(range, "", 24);
    List<String> names = IntStream.range(0, 6).mapToObj(i -> prefix + i).toList();
    names.forEach(this::createNode);

    await().atMost(30, TimeUnit.SECONDS).until(() -> flatten(holdersIn(range)).size() == 4);
    List<String> waiting = names.stream().filter(name -> podCidrs(name).isEmpty()).toList();
    assertThat(waiting).isNotEmpty();
    String starved = waiting.get(0);
    await()
        .atMost(20, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor(starved))
                    .anySatisfy(
                        event -> {
                          assertThat(event.getType()).isEqualTo("Warning");
                          assertThat(event.getReason()).isEqualTo("CIDRNotAvailable");
                          assertThat(event.getMessage())
                              .isEqualTo("Node " + starved + " status is now: CIDRNotAvailable");
                          assertThat(event.getSource().getComponent()).isEqualTo("cidrAllocator");
                        }));
    // Retried with backoff, but reported once: no event per retry.
    await()
        .during(Duration.ofSeconds(3))
        .atMost(10, TimeUnit.SECONDS)
        .until(
            () ->
                harness.eventsFor(starved).stream()
                        .filter(event -> "CIDRNotAvailable".equals(event.getReason()))
                        .mapToInt(event -> event.getCount() == null ? 1 : event.getCount())
                        .sum()
                    == 1);
    assertThat(flatten(holdersIn(range))).doesNotHaveDuplicates();

    // Deleting a holder frees its CIDR for a waiting node, at once rather than after a backoff.
    String holder = holdersIn(range).keySet().stream().sorted().findFirst().orElseThrow();
    List<String> freed = podCidrs(holder);
    client.nodes().withName(holder).delete();

    await()
        .atMost(20, TimeUnit.SECONDS)
        .until(() -> waiting.stream().anyMatch(name -> podCidrs(name).equals(freed)));
    assertThat(flatten(holdersIn(range))).hasSize(4).doesNotHaveDuplicates();
    assertThat(harness.controllers().get(0).health()).isEmpty();
  }

  @Test
  void aNodeBeingDeletedGetsNoCidr() throws Exception {
    String terminating = prefix + "terminating";
    String finalizer = "test.ccm4j.io/hold";
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(terminating)
                .withFinalizers(finalizer)
                .endMetadata()
                .build())
        .create();
    try {
      client.nodes().withName(terminating).delete();
      await()
          .atMost(10, TimeUnit.SECONDS)
          .until(
              () ->
                  client.nodes().withName(terminating).get().getMetadata().getDeletionTimestamp()
                      != null);

      startIpam("10.105.0.0/16", "", 24);
      // A node the controller serves, so the terminating one has surely been synced too; and an
      // update of the terminating one, which requeues it.
      String served = prefix + "served";
      createNode(served);
      mergePatch(terminating, "{\"metadata\":{\"labels\":{\"touched\":\"yes\"}}}");
      await().atMost(30, TimeUnit.SECONDS).until(() -> podCidrs(served).size() == 1);

      await()
          .during(Duration.ofSeconds(3))
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> podCidrs(terminating).isEmpty());
    } finally {
      mergePatch(terminating, "{\"metadata\":{\"finalizers\":null}}");
    }
  }

  /** A merge patch without a resourceVersion: the controller's own writes cannot conflict. */
  private void mergePatch(String node, String patch) {
    client.nodes().withName(node).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
  }

  @Test
  void aPodCidrOutsideTheClusterCidrIsKeptAndReported() throws Exception {
    ControllerHarness harness = startIpam("10.104.0.0/16", "", 24);
    String name = prefix + "foreign";

    createNode(name, "192.168.77.0/24");

    await()
        .atMost(20, TimeUnit.SECONDS)
        .untilAsserted(
            () ->
                assertThat(harness.eventsFor(name))
                    .extracting(Event::getReason, Event::getType)
                    .contains(org.assertj.core.groups.Tuple.tuple("InvalidPodCIDR", "Warning")));
    assertThat(harness.eventsFor(name).get(0).getMessage())
        .contains("podCIDR 192.168.77.0/24 is outside the cluster CIDR (10.104.0.0/16)");
    assertThat(podCidrs(name)).containsExactly("192.168.77.0/24");
  }
}
