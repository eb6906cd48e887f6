package io.ccm4j.app;

import static io.ccm4j.app.KubeProxyRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.proxy.KubeProxyFleet;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A LoadBalancer Service end to end, as a user of a one-machine cluster sees it: {@code ccm4j run
 * --cloud-provider=local} with the cloud-node and service-lb controllers, simulated kubelets with
 * their own loopback addresses and a simulated kube-proxy on each, and real connections to the
 * ingress address the controller wrote into the Service's status.
 */
@WithControlPlane
class LoadBalancerTrafficIT {

  private final LocalControlPlane controlPlane;
  private final KubernetesClient client;
  private final String id = UUID.randomUUID().toString().substring(0, 6);
  private final String namespace = "lbt-" + id;
  private final String subnet = "127.57." + ThreadLocalRandom.current().nextInt(1, 250) + ".";
  private CloudControllerManager manager;
  private KubeletFleet kubelets;
  private KubeProxyFleet proxies;

  @TempDir Path temp;

  LoadBalancerTrafficIT(LocalControlPlane controlPlane, KubernetesClient client) {
    this.controlPlane = controlPlane;
    this.client = client;
  }

  @BeforeEach
  void start() {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    kubelets = new KubeletFleet(client, KubeletFleet.Options.kubeletDefaults());
    proxies = new KubeProxyFleet(client);
  }

  @AfterEach
  void stop() throws Exception {
    if (manager != null) {
      manager.close();
    }
    proxies.close();
    kubelets.close();
    LeftServices.removeAll(client, namespace);
    client.namespaces().withName(namespace).delete();
    client.nodes().list().getItems().stream()
        .filter(node -> node.getMetadata().getName().startsWith(namespace))
        .forEach(node -> client.nodes().resource(node).delete());
  }

  /**
   * {@code ccm4j run --cloud-provider=local --controllers=cloud-node,service} with this
   * cloud-config, parsed by the real command line, started in-process.
   */
  private void startManager(String cloudConfig) throws Exception {
    Path file = temp.resolve("local.yaml");
    Files.writeString(file, cloudConfig);
    CommandLine.ParseResult parsed =
        new CommandLine(new Ccm4j())
            .parseArgs(
                "run",
                "--cloud-provider=local",
                "--cloud-config=" + file,
                "--kubeconfig=" + controlPlane.kubeconfigPath(),
                "--controllers=cloud-node,service",
                "--leader-elect=false");
    RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();
    CloudControllerManager.Settings flags = run.settings();
    manager =
        CloudControllerManager.builder(client)
            .cloud(flags.cloud())
            .clusterName(flags.clusterName())
            .selection(flags.selection())
            .controllers(flags.controllers())
            .exit(code -> {})
            .build();
    manager.start();
  }

  /** A simulated kubelet on {@code subnet + host} with a simulated kube-proxy there. */
  private String node(int host) {
    String name = namespace + "-" + host;
    proxies.attach(kubelets.register(NodeSpec.named(name).withNodeIp(subnet + host)));
    return name;
  }

  @Test
  void aLoadBalancerServiceCarriesTrafficToItsNodesFollowsTheNodeSetAndGoesAwayWithTheService()
      throws Exception {
    startManager(
        """
        addressPool: 127.0.101.0/24
        healthCheck: {interval: 300ms, timeout: 1s}
        """);
    String first = node(1);
    String second = node(2);

    Service service =
        client
            .services()
            .inNamespace(namespace)
            .resource(
                new ServiceBuilder()
                    .withNewMetadata()
                    .withName("web")
                    .endMetadata()
                    .withNewSpec()
                    .withType("LoadBalancer")
                    .addNewPort()
                    .withName("http")
                    .withProtocol("TCP")
                    .withPort(8080)
                    .endPort()
                    // Mixed protocols on one LoadBalancer Service: refused by 1.20, GA since 1.26.
                    .addNewPort()
                    .withName("dns")
                    .withProtocol("UDP")
                    .withPort(5353)
                    .endPort()
                    .endSpec()
                    .build())
            .create();

    // S12: the finalizer, then the ingress address from the local pool.
    await().atMost(Duration.ofSeconds(60)).until(() -> ingress().isPresent());
    Service ensured = client.services().inNamespace(namespace).withName("web").get();
    assertThat(ensured.getMetadata().getFinalizers())
        .contains(WellKnownAnnotations.LOAD_BALANCER_CLEANUP_FINALIZER);
    String address = ingress().orElseThrow();
    assertThat(address).startsWith("127.0.101.");

    // Traffic reaches both nodes, and each answer names the node and the Service.
    awaitAnswersFrom(address, Set.of(first, second), namespace + "/web");
    // The UDP port too: a datagram to the load balancer comes back from a node's node port.
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(udp(address, 5353, "hello"))
                    .matches(
                        "node=(%s|%s) service=%s/web port=5353 nodePort=\\d+ echo=hello"
                            .formatted(first, second, namespace)));

    // A third node joins: the load balancer gets it as a backend (S15).
    String third = node(3);
    awaitAnswersFrom(address, Set.of(first, second, third), namespace + "/web");

    // The exclusion label takes the first node out of the backends (S16, S7).
    // A merge patch without resourceVersion: the manager writes the node too.
    client
        .nodes()
        .withName(first)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"%s\":\"true\"}}}"
                .formatted(WellKnownLabels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS));
    await().atMost(Duration.ofSeconds(30)).until(() -> !answers(address, 30).contains(first));
    assertThat(answers(address, 30)).doesNotContain(first).contains(second, third);

    // Deleted: the load balancer is gone (nothing listens on its address) and the finalizer
    // let the Service go (S11).
    client.services().resource(service).delete();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> client.services().inNamespace(namespace).withName("web").get() == null);
    await().atMost(Duration.ofSeconds(10)).until(() -> !accepts(address, 8080));
  }

  @Test
  void localTrafficPolicyReachesOnlyNodesWithEndpointsAndSourceRangesKeepOthersOut()
      throws Exception {
    startManager(
        """
        addressPool: 127.0.102.0/24
        healthCheck: {interval: 300ms, timeout: 1s, unhealthyThreshold: 1}
        """);
    String withEndpoints = node(1);
    String without = node(2);
    proxies.proxy(without).setLocalEndpoints(namespace, "web", false);

    client
        .services()
        .inNamespace(namespace)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("web")
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withExternalTrafficPolicy("Local")
                .withLoadBalancerSourceRanges("127.0.0.2/32")
                .addNewPort()
                .withProtocol("TCP")
                .withPort(8080)
                .endPort()
                .endSpec()
                .build())
        .create();
    await().atMost(Duration.ofSeconds(60)).until(() -> ingress().isPresent());
    String address = ingress().orElseThrow();
    Service ensured = client.services().inNamespace(namespace).withName("web").get();
    assertThat(ensured.getSpec().getHealthCheckNodePort())
        .as("allocated for eTP Local")
        .isPositive();

    // From inside the source range: only the node whose health check node port says it has
    // endpoints answers.
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> answers(address, "127.0.0.2", 10).equals(Set.of(withEndpoints)));
    // From outside it: no answer at all.
    assertThat(answers(address, "127.0.0.3", 10)).isEmpty();

    // The other node gets endpoints: its health check passes and it is a backend too.
    proxies.proxy(without).setLocalEndpoints(namespace, "web", true);
    Set<String> seen = new HashSet<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              seen.addAll(answers(address, "127.0.0.2", 4));
              return seen.equals(Set.of(withEndpoints, without));
            });
  }

  private Optional<String> ingress() {
    Service service = client.services().inNamespace(namespace).withName("web").get();
    if (service == null
        || service.getStatus() == null
        || service.getStatus().getLoadBalancer() == null
        || service.getStatus().getLoadBalancer().getIngress() == null
        || service.getStatus().getLoadBalancer().getIngress().isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(service.getStatus().getLoadBalancer().getIngress().get(0).getIp());
  }

  private static void awaitAnswersFrom(String address, Set<String> nodes, String service) {
    Set<String> seen = new HashSet<>();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              for (Map.Entry<String, String> answer : request(address, 8080).entrySet()) {
                assertThat(answer.getValue()).isEqualTo(service);
                seen.add(answer.getKey());
              }
              return seen.containsAll(nodes);
            });
    assertThat(seen).isEqualTo(nodes);
  }

  /** The nodes that answered {@code count} new connections. */
  private static Set<String> answers(String address, int count) {
    return answers(address, null, count);
  }

  /** The nodes that answered {@code count} new connections from {@code source} (null: any). */
  private static Set<String> answers(String address, String source, int count) {
    Set<String> nodes = new HashSet<>();
    for (int i = 0; i < count; i++) {
      nodes.addAll(request(address, source, 8080).keySet());
    }
    return nodes;
  }

  /** One datagram and its answer; empty when none comes within 2 s. */
  private static String udp(String address, int port, String payload) {
    try (DatagramSocket socket = new DatagramSocket()) {
      socket.setSoTimeout(2000);
      byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
      socket.send(new DatagramPacket(bytes, bytes.length, new InetSocketAddress(address, port)));
      DatagramPacket reply = new DatagramPacket(new byte[2048], 2048);
      socket.receive(reply);
      return new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private static boolean accepts(String address, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(address, port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
