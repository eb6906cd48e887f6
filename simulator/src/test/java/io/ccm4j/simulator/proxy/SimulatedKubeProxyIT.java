package io.ccm4j.simulator.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Simulated kube-proxies following Services and Nodes of a real API server. */
@WithControlPlane
class SimulatedKubeProxyIT {

  private final KubernetesClient client;
  private final String suffix = UUID.randomUUID().toString().substring(0, 6);
  private final String namespace = "kp-" + suffix;
  private final int net = ThreadLocalRandom.current().nextInt(1, 250);
  private KubeletFleet kubelets;
  private KubeProxyFleet proxies;

  SimulatedKubeProxyIT(KubernetesClient client) {
    this.client = client;
  }

  @BeforeEach
  void start() {
    client
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    kubelets = new KubeletFleet(client, KubeletFleet.Options.withoutHeartbeats());
    proxies = new KubeProxyFleet(client);
  }

  @AfterEach
  void stop() {
    proxies.close();
    kubelets.close();
    client.namespaces().withName(namespace).delete();
  }

  private String ip(int i) {
    return "127.53." + net + "." + i;
  }

  private SimulatedKubelet kubelet(int i) {
    return kubelets.register(NodeSpec.named("kp-" + suffix + "-" + i).withNodeIp(ip(i)));
  }

  private Service create(Service service) {
    return client.services().inNamespace(namespace).resource(service).create();
  }

  /** A LoadBalancer Service with one TCP port. */
  private ServiceBuilder loadBalancer(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withSelector(java.util.Map.of("app", name))
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .endPort()
        .endSpec();
  }

  private ServiceBuilder nodePort(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withType("NodePort")
        .withSelector(java.util.Map.of("app", name))
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .endPort()
        .addNewPort()
        .withName("dns")
        .withProtocol("UDP")
        .withPort(53)
        .endPort()
        .endSpec();
  }

  @Test
  void servesEveryNodePortOfAServiceAndStopsWhenItIsDeleted() throws Exception {
    SimulatedKubelet k1 = kubelet(1);
    SimulatedKubeProxy proxy = proxies.attach(k1);
    Service service = create(nodePort("web").build());
    int tcpNodePort = service.getSpec().getPorts().get(0).getNodePort();
    int udpNodePort = service.getSpec().getPorts().get(1).getNodePort();

    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .untilAsserted(
            () ->
                assertThat(http(ip(1), tcpNodePort, "/").body())
                    .isEqualTo(
                        "node=%s service=%s/web port=80 nodePort=%d\n"
                            .formatted(k1.nodeName(), namespace, tcpNodePort)));
    assertThat(udp(ip(1), udpNodePort, "hello"))
        .isEqualTo(
            "node=%s service=%s/web port=53 nodePort=%d echo=hello"
                .formatted(k1.nodeName(), namespace, udpNodePort));
    assertThat(proxy.requests(namespace, "web")).isEqualTo(2);

    client.services().inNamespace(namespace).withName("web").delete();
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> http(ip(1), tcpNodePort, "/"))
                    .isInstanceOf(ConnectException.class));
  }

  @Test
  void healthzDrainsWhileTheNodeIsTaintedToBeDeletedOrToldTo() throws Exception {
    SimulatedKubelet k2 = kubelet(2);
    SimulatedKubeProxy proxy = proxies.attach(k2);
    assertThat(http(ip(2), 10256, "/healthz").status()).isEqualTo(200);
    assertThat(http(ip(2), 10256, "/healthz").body()).contains("\"nodeEligible\": true");

    client
        .nodes()
        .withName(k2.nodeName())
        .edit(
            n -> {
              n.getSpec()
                  .getTaints()
                  .add(
                      new TaintBuilder()
                          .withKey(WellKnownTaints.TO_BE_DELETED_BY_CLUSTER_AUTOSCALER)
                          .withValue("1700000000")
                          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
                          .build());
              return n;
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(http(ip(2), 10256, "/healthz").status()).isEqualTo(503));
    assertThat(http(ip(2), 10256, "/healthz").body()).contains("\"nodeEligible\": false");
    assertThat(http(ip(2), 10256, "/livez").status()).isEqualTo(200);

    client
        .nodes()
        .withName(k2.nodeName())
        .edit(
            n -> {
              n.getSpec()
                  .getTaints()
                  .removeIf(
                      t -> t.getKey().equals(WellKnownTaints.TO_BE_DELETED_BY_CLUSTER_AUTOSCALER));
              return n;
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(http(ip(2), 10256, "/healthz").status()).isEqualTo(200));

    proxy.setDraining(true);
    assertThat(http(ip(2), 10256, "/healthz").status()).isEqualTo(503);
    proxy.setDraining(false);
    assertThat(http(ip(2), 10256, "/healthz").status()).isEqualTo(200);
  }

  @Test
  void aNodeBeingDeletedDrains() throws Exception {
    SimulatedKubelet k3 = kubelet(3);
    proxies.attach(k3);
    // A finalizer keeps the Node visible with its deletion timestamp, as while it drains.
    client
        .nodes()
        .withName(k3.nodeName())
        .edit(
            n -> {
              n.getMetadata().setFinalizers(List.of("ccm4j.io/test-hold"));
              return n;
            });
    client.nodes().withName(k3.nodeName()).delete();
    try {
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(http(ip(3), 10256, "/healthz").status()).isEqualTo(503));
    } finally {
      client
          .nodes()
          .withName(k3.nodeName())
          .edit(
              n -> {
                n.getMetadata().setFinalizers(List.of());
                return n;
              });
    }
  }

  @Test
  void localTrafficPolicyHealthCheckFollowsLocalEndpoints() throws Exception {
    SimulatedKubelet k4 = kubelet(4);
    SimulatedKubeProxy proxy = proxies.attach(k4);
    Service service =
        create(
            loadBalancer("local").editSpec().withExternalTrafficPolicy("Local").endSpec().build());
    int healthPort = service.getSpec().getHealthCheckNodePort();
    assertThat(healthPort).isPositive();

    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .untilAsserted(
            () -> assertThat(http(ip(4), healthPort, "/healthz").status()).isEqualTo(200));
    assertThat(http(ip(4), healthPort, "/healthz").body()).contains("\"localEndpoints\": 1");

    proxy.setLocalEndpoints(namespace, "local", false);
    Answer none = http(ip(4), healthPort, "/healthz");
    assertThat(none.status()).isEqualTo(503);
    assertThat(none.body()).contains("\"localEndpoints\": 0");

    // Switching to Cluster stops the per-service health check.
    client
        .services()
        .inNamespace(namespace)
        .withName("local")
        .edit(
            s -> {
              s.getSpec().setExternalTrafficPolicy("Cluster");
              s.getSpec().setHealthCheckNodePort(null);
              return s;
            });
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThatThrownBy(() -> http(ip(4), healthPort, "/healthz"))
                    .isInstanceOf(ConnectException.class));
  }

  @Test
  void closeLeavesNoThreadAndAKubeletWithoutIpIsRefused() {
    SimulatedKubelet k5 = kubelet(5);
    SimulatedKubeProxy proxy = proxies.attach(k5);
    create(nodePort("threads").build());
    await().atMost(Duration.ofSeconds(10)).until(() -> !proxy.servedPorts().isEmpty());

    proxies.stop(k5.nodeName());

    assertThat(proxy.liveThreads()).isZero();
    assertThatThrownBy(() -> http(ip(5), 10256, "/healthz")).isInstanceOf(ConnectException.class);
    SimulatedKubelet noIp = kubelets.register(NodeSpec.named("kp-" + suffix + "-noip"));
    assertThatThrownBy(() -> proxies.attach(noIp))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("without a node IP");
  }

  record Answer(int status, String body) {}

  private static Answer http(String ip, int port, String path) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(ip, port), 2000);
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      InputStream in = socket.getInputStream();
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(all.split(" ")[1]);
      return new Answer(status, all.substring(all.indexOf("\r\n\r\n") + 4));
    }
  }

  private static String udp(String ip, int port, String payload) throws IOException {
    try (DatagramSocket socket = new DatagramSocket()) {
      socket.setSoTimeout(3000);
      byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
      socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.getByName(ip), port));
      DatagramPacket reply = new DatagramPacket(new byte[2048], 2048);
      socket.receive(reply);
      return new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8);
    }
  }
}
