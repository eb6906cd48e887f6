package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownServices;
import io.ccm4j.simulator.proxy.SimulatedKubeProxy;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code local} load balancer carrying real TCP and UDP traffic on loopback to simulated
 * kube-proxies, driven through the SPI as the service-lb controller drives it.
 */
class LocalLoadBalancerIT {

  private static final String CLUSTER = "kubernetes";
  private static final int NODE_PORT = 30080;
  private static final int UDP_NODE_PORT = 30053;
  private static final int HEALTH_NODE_PORT = 32000;

  // Per test class run: node and pool addresses nobody else uses.
  private final int net = ThreadLocalRandom.current().nextInt(1, 250);
  private final String pool = "127.52." + net + ".0/28";
  private final List<SimulatedKubeProxy> proxies = new ArrayList<>();
  private LocalCloud cloud;
  private LoadBalancer lbs;

  @BeforeEach
  void start() throws Exception {
    cloud = cloud("drainTimeout: 30s");
    lbs = cloud.loadBalancer().orElseThrow();
  }

  @AfterEach
  void stop() {
    cloud.close();
    proxies.forEach(SimulatedKubeProxy::close);
  }

  private LocalCloud cloud(String extra) throws Exception {
    return LocalCloudProviderFactory.fromYaml(
        """
        addressPool: %s
        healthCheck: {interval: 100ms, timeout: 1s, unhealthyThreshold: 2, healthyThreshold: 1}
        %s
        """
            .formatted(pool, extra));
  }

  private String nodeIp(int i) {
    return "127.51." + net + "." + i;
  }

  /** Node i with its kube-proxy serving the given services. */
  private Node node(int i, Service... services) throws IOException {
    SimulatedKubeProxy proxy = new SimulatedKubeProxy("node-" + i, nodeIp(i));
    for (Service service : services) {
      proxy.apply(service);
    }
    proxies.add(proxy);
    return nodeObject(i);
  }

  private Node nodeObject(int i) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("node-" + i)
        .endMetadata()
        .withNewStatus()
        .addNewAddress()
        .withType("InternalIP")
        .withAddress(nodeIp(i))
        .endAddress()
        .addNewAddress()
        .withType("Hostname")
        .withAddress("node-" + i)
        .endAddress()
        .endStatus()
        .build();
  }

  private SimulatedKubeProxy proxy(int i) {
    return proxies.stream().filter(p -> p.nodeName().equals("node-" + i)).findFirst().orElseThrow();
  }

  private static ServicePort tcp(int port, int nodePort) {
    return new ServicePortBuilder()
        .withName("tcp-" + port)
        .withProtocol("TCP")
        .withPort(port)
        .withNodePort(nodePort)
        .build();
  }

  private static ServicePort udp(int port, int nodePort) {
    return new ServicePortBuilder()
        .withName("udp-" + port)
        .withProtocol("UDP")
        .withPort(port)
        .withNodePort(nodePort)
        .build();
  }

  private static ServiceBuilder service(String name, ServicePort... ports) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .withUid(UUID.randomUUID().toString())
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withExternalTrafficPolicy("Cluster")
        .withPorts(ports)
        .endSpec();
  }

  /** Ensures, then waits until every backend node passes its health check (slow CI machines). */
  private String ensure(Service service, Node... nodes) throws CloudException {
    String ip = ensureNoWait(service, nodes);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                cloud.loadBalancers().snapshot().stream()
                    .filter(lb -> lb.address().equals(ip))
                    .flatMap(lb -> lb.backends().stream())
                    .filter(LocalLoadBalancers.BackendView::member)
                    .allMatch(LocalLoadBalancers.BackendView::healthy));
    return ip;
  }

  private String ensureNoWait(Service service, Node... nodes) throws CloudException {
    LoadBalancerStatus status = lbs.ensureLoadBalancer(CLUSTER, service, List.of(nodes));
    assertThat(status.ingress()).hasSize(1);
    return status.ingress().get(0).ip();
  }

  private static Set<String> nodesAnswering(String ip, int port, int requests) throws IOException {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < requests; i++) {
      seen.add(Traffic.node(Traffic.get(ip, port)));
    }
    return seen;
  }

  @Test
  void tcpAndUdpReachANodeAndTheAnswerNamesIt() throws Exception {
    Service service = service("web", tcp(80, NODE_PORT), udp(53, UDP_NODE_PORT)).build();
    Node n1 = node(1, service);
    Node n2 = node(2, service);

    String ip = ensure(service, n1, n2);

    assertThat(pool).startsWith(ip.substring(0, ip.lastIndexOf('.')));
    String answer = Traffic.get(ip, 80);
    assertThat(answer).matches("node=node-[12] service=default/web port=80 nodePort=30080\\n");
    assertThat(nodesAnswering(ip, 80, 10)).containsExactlyInAnyOrder("node-1", "node-2");

    String udpAnswer = Traffic.udp(ip, 53, "ping", null, 2000);
    assertThat(udpAnswer)
        .matches("node=node-[12] service=default/web port=53 nodePort=30053 echo=ping");
    assertThat(lbs.getLoadBalancer(CLUSTER, service))
        .contains(
            // a proxy: a real kube-proxy leaves the address alone
            new LoadBalancerStatus(
                List.of(new LoadBalancerStatus.Ingress(ip, "", WellKnownServices.IP_MODE_PROXY))));
  }

  @Test
  void afterTheBackendsChangeNewConnectionsGoOnlyToTheNewSet() throws Exception {
    Service service = service("moving", tcp(80, NODE_PORT), udp(53, UDP_NODE_PORT)).build();
    Node n1 = node(1, service);
    Node n2 = node(2, service);
    Node n3 = node(3, service);
    String ip = ensure(service, n1, n2);
    assertThat(nodesAnswering(ip, 80, 10)).containsExactlyInAnyOrder("node-1", "node-2");

    lbs.updateLoadBalancer(CLUSTER, service, List.of(n3));
    await().atMost(Duration.ofSeconds(10)).until(() -> backend("node-3").orElseThrow().healthy());

    assertThat(nodesAnswering(ip, 80, 20)).containsExactly("node-3");
    // A new UDP client gets a session to the new set too.
    assertThat(Traffic.node(Traffic.udp(ip, 53, "x", null, 2000))).isEqualTo("node-3");
  }

  @Test
  void localTrafficPolicySendsOnlyToNodesWhoseHealthCheckPasses() throws Exception {
    Service service =
        service("local-etp", tcp(80, NODE_PORT))
            .editSpec()
            .withExternalTrafficPolicy("Local")
            .withHealthCheckNodePort(HEALTH_NODE_PORT)
            .endSpec()
            .build();
    Node n1 = node(1, service);
    Node n2 = node(2, service);
    Node n3 = node(3, service);
    proxy(1).setLocalEndpoints("default", "local-etp", false);
    proxy(3).setLocalEndpoints("default", "local-etp", false);

    String ip = ensureNoWait(service, n1, n2, n3);
    await().atMost(Duration.ofSeconds(10)).until(() -> backend("node-2").orElseThrow().healthy());

    assertThat(nodesAnswering(ip, 80, 20)).containsExactly("node-2");

    proxy(3).setLocalEndpoints("default", "local-etp", true);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(nodesAnswering(ip, 80, 10))
                    .containsExactlyInAnyOrder("node-2", "node-3"));
  }

  @Test
  void aDrainingNodeGetsNoNewConnectionsWhileAnEstablishedOneKeepsWorking() throws Exception {
    Service service = service("drain", tcp(80, NODE_PORT)).build();
    Node n1 = node(1, service);
    Node n2 = node(2, service);
    String ip = ensure(service, n1, n2);

    try (Traffic.KeptAlive established = Traffic.KeptAlive.open(ip, 80, null)) {
      String first = Traffic.node(established.get(true));
      int drained = first.equals("node-1") ? 1 : 2;
      String other = drained == 1 ? "node-2" : "node-1";

      // KEP-3836: kube-proxy answers 503 on :10256/healthz, the node ports keep working.
      proxy(drained).setDraining(true);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> backend(first).map(b -> !b.healthy()).orElse(false));

      assertThat(nodesAnswering(ip, 80, 20)).containsExactly(other);
      assertThat(Traffic.node(established.get(true))).isEqualTo(first);
    }
  }

  @Test
  void connectionsToALeavingNodeLastAtMostTheDrainTimeout() throws Exception {
    cloud.close();
    cloud = cloud("drainTimeout: 1s");
    lbs = cloud.loadBalancer().orElseThrow();
    Service service = service("short-drain", tcp(80, NODE_PORT)).build();
    Node n1 = node(1, service);

    String ip = ensure(service, n1);
    try (Traffic.KeptAlive established = Traffic.KeptAlive.open(ip, 80, null)) {
      assertThat(Traffic.node(established.get(true))).isEqualTo("node-1");
      lbs.updateLoadBalancer(CLUSTER, service, List.of());

      // Not cut at once...
      assertThat(Traffic.node(established.get(true))).isEqualTo("node-1");
      // ...but within the drain timeout.
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(100))
          .until(established::closedByPeer);
    }
    // With no backend left, new connections are reset.
    assertThatThrownBy(() -> Traffic.get(ip, 80)).isInstanceOf(IOException.class);
  }

  @Test
  void sourceRangesRefuseOtherClients() throws Exception {
    Service service =
        service("ranges", tcp(80, NODE_PORT), udp(53, UDP_NODE_PORT))
            .editSpec()
            .withLoadBalancerSourceRanges("127.0.0.2/32")
            .endSpec()
            .build();
    Node n1 = node(1, service);
    String ip = ensure(service, n1);

    assertThat(Traffic.node(Traffic.get(ip, 80, "127.0.0.2"))).isEqualTo("node-1");
    assertThatThrownBy(() -> Traffic.get(ip, 80, "127.0.0.3")).isInstanceOf(IOException.class);
    assertThat(Traffic.node(Traffic.udp(ip, 53, "a", "127.0.0.2", 2000))).isEqualTo("node-1");
    assertThatThrownBy(() -> Traffic.udp(ip, 53, "a", "127.0.0.3", 300))
        .isInstanceOf(SocketTimeoutException.class);
    assertThat(cloud.loadBalancers().snapshot().get(0).refused()).isEqualTo(2);

    // The annotation is read when the field is empty.
    Service annotated =
        service("ranges", tcp(80, NODE_PORT), udp(53, UDP_NODE_PORT))
            .editMetadata()
            .withUid(service.getMetadata().getUid())
            .addToAnnotations(
                WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES, "127.0.0.3/32, 10.0.0.0/8")
            .endMetadata()
            .build();
    ensure(annotated, n1);
    assertThat(Traffic.node(Traffic.get(ip, 80, "127.0.0.3"))).isEqualTo("node-1");
    assertThatThrownBy(() -> Traffic.get(ip, 80, "127.0.0.2")).isInstanceOf(IOException.class);
  }

  @Test
  void portsAreAddedAndRemovedOnALiveLoadBalancer() throws Exception {
    Service one = service("ports", tcp(80, NODE_PORT)).build();
    Service two =
        service("ports", tcp(80, NODE_PORT), tcp(81, 30081), udp(53, UDP_NODE_PORT))
            .editMetadata()
            .withUid(one.getMetadata().getUid())
            .endMetadata()
            .build();
    Service onlyNew =
        service("ports", tcp(81, 30081))
            .editMetadata()
            .withUid(one.getMetadata().getUid())
            .endMetadata()
            .build();
    Node n1 = node(1, two);
    String ip = ensure(one, n1);
    assertThatThrownBy(() -> Traffic.get(ip, 81)).isInstanceOf(ConnectException.class);

    assertThat(ensure(two, n1)).isEqualTo(ip);
    assertThat(Traffic.get(ip, 81)).contains("port=81 nodePort=30081");
    assertThat(Traffic.udp(ip, 53, "u", null, 2000)).contains("port=53");

    assertThat(ensure(onlyNew, n1)).isEqualTo(ip);
    assertThatThrownBy(() -> Traffic.get(ip, 80)).isInstanceOf(ConnectException.class);
    assertThat(Traffic.get(ip, 81)).contains("port=81");
    assertThat(cloud.loadBalancers().snapshot().get(0).ports()).containsExactly("81/TCP");
  }

  @Test
  void deleteClosesTheListenersAndFreesTheAddress() throws Exception {
    Service service = service("gone", tcp(80, NODE_PORT)).build();
    Node n1 = node(1, service);
    String ip = ensure(service, n1);
    assertThat(Traffic.get(ip, 80)).contains("node=node-1");

    lbs.ensureLoadBalancerDeleted(CLUSTER, service);

    assertThatThrownBy(() -> Traffic.get(ip, 80)).isInstanceOf(ConnectException.class);
    assertThat(lbs.getLoadBalancer(CLUSTER, service)).isEmpty();
    lbs.ensureLoadBalancerDeleted(CLUSTER, service); // idempotent
    // The lowest free address is handed out again.
    assertThat(ensure(service("next", tcp(80, NODE_PORT)).build(), n1)).isEqualTo(ip);
  }

  @Test
  void anAddressAndPortAnotherListenerHoldsIsRefusedNotShared() throws Exception {
    String base = "127.52." + net + ".";
    Service service =
        service("shared", tcp(80, NODE_PORT))
            .editSpec()
            .withLoadBalancerIP(base + "12")
            .endSpec()
            .build();
    Node n1 = node(1, service);
    // Another process's load balancer (a second ccm4j) on the same address and port, with
    // SO_REUSEPORT as ours has: the kernel would let both listen and split the connections.
    try (java.nio.channels.ServerSocketChannel other =
        java.nio.channels.ServerSocketChannel.open()) {
      other.setOption(java.net.StandardSocketOptions.SO_REUSEPORT, true);
      other.bind(new java.net.InetSocketAddress(base + "12", 80));

      assertThatThrownBy(() -> lbs.ensureLoadBalancer(CLUSTER, service, List.of(n1)))
          .isInstanceOf(CloudException.class)
          .hasMessageContaining(base + "12:80 is already in use by another listener");
      assertThat(lbs.getLoadBalancer(CLUSTER, service)).isEmpty();
    }

    assertThat(ensure(service, n1)).isEqualTo(base + "12");
    assertThat(Traffic.get(base + "12", 80)).contains("node=node-1");
  }

  @Test
  void loadBalancerIpIsHonouredWhenInThePoolAndFree() throws Exception {
    String base = "127.52." + net + ".";
    Service wanted =
        service("pinned", tcp(80, NODE_PORT))
            .editSpec()
            .withLoadBalancerIP(base + "9")
            .endSpec()
            .build();
    Node n1 = node(1, wanted);

    assertThat(ensure(wanted, n1)).isEqualTo(base + "9");
    assertThat(Traffic.get(base + "9", 80)).contains("node=node-1");

    Service taken =
        service("thief", tcp(80, NODE_PORT))
            .editSpec()
            .withLoadBalancerIP(base + "9")
            .endSpec()
            .build();
    assertThatThrownBy(() -> lbs.ensureLoadBalancer(CLUSTER, taken, List.of(n1)))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("spec.loadBalancerIP")
        .hasMessageContaining("default/pinned");
    Service outside =
        service("outside", tcp(80, NODE_PORT))
            .editSpec()
            .withLoadBalancerIP("127.0.0.77")
            .endSpec()
            .build();
    assertThatThrownBy(() -> lbs.ensureLoadBalancer(CLUSTER, outside, List.of(n1)))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("spec.loadBalancerIP")
        .hasMessageContaining("not in the load balancer address pool");
    assertThat(lbs.getLoadBalancer(CLUSTER, outside)).isEmpty();

    // Changing the field moves the load balancer.
    Service moved =
        service("pinned", tcp(80, NODE_PORT))
            .editMetadata()
            .withUid(wanted.getMetadata().getUid())
            .endMetadata()
            .editSpec()
            .withLoadBalancerIP(base + "10")
            .endSpec()
            .build();
    assertThat(ensure(moved, n1)).isEqualTo(base + "10");
    assertThatThrownBy(() -> Traffic.get(base + "9", 80)).isInstanceOf(ConnectException.class);

    // A move the new address refuses (its port is taken there) leaves the old one serving.
    try (var squatter = new java.net.ServerSocket()) {
      squatter.bind(new java.net.InetSocketAddress(base + "11", 80));
      Service blocked =
          new ServiceBuilder(moved).editSpec().withLoadBalancerIP(base + "11").endSpec().build();
      assertThatThrownBy(() -> lbs.ensureLoadBalancer(CLUSTER, blocked, List.of(n1)))
          .isInstanceOf(CloudException.class)
          .hasMessageContaining(base + "11");
      assertThat(Traffic.get(base + "10", 80)).contains("node=node-1");
      assertThat(lbs.getLoadBalancer(CLUSTER, moved))
          .contains(
              new LoadBalancerStatus(
                  List.of(
                      new LoadBalancerStatus.Ingress(
                          base + "10", "", WellKnownServices.IP_MODE_PROXY))));
    }
  }

  @Test
  void invalidServiceFieldsAreNamedInTheError() throws Exception {
    Node n1 = node(1);
    Service badRange =
        service("bad", tcp(80, NODE_PORT))
            .editSpec()
            .withLoadBalancerSourceRanges("127.0.0.0/8", "10.0.0/8")
            .endSpec()
            .build();
    assertThatThrownBy(() -> lbs.ensureLoadBalancer(CLUSTER, badRange, List.of(n1)))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("spec.loadBalancerSourceRanges[1]");
    assertThat(lbs.getLoadBalancer(CLUSTER, badRange)).isEmpty();
  }

  @Test
  void aNewUdpClientOverTheSessionLimitEndsTheLeastRecentlyActiveSession() throws Exception {
    cloud.close();
    cloud = cloud("udpMaxSessions: 3");
    lbs = cloud.loadBalancer().orElseThrow();
    Service service = service("udp-limit", udp(53, UDP_NODE_PORT)).build();
    String ip = ensure(service, node(1, service));

    // Each request from a new source port, as a DNS resolver sends them.
    for (int i = 0; i < 10; i++) {
      assertThat(Traffic.udp(ip, 53, "q" + i, null, 2000)).contains("echo=q" + i);
      assertThat(cloud.loadBalancers().snapshot().get(0).openFlows()).isLessThanOrEqualTo(3);
    }
    assertThat(backend("node-1").orElseThrow().active()).isEqualTo(3);
    assertThat(backend("node-1").orElseThrow().total()).isEqualTo(10);
  }

  @Test
  void idleUdpSessionsEndAndNodesOffThisMachineAreNeverBackends() throws Exception {
    cloud.close();
    cloud = cloud("udpIdleTimeout: 300ms");
    lbs = cloud.loadBalancer().orElseThrow();
    Service service = service("udp-idle", udp(53, UDP_NODE_PORT)).build();
    Node n1 = node(1, service);
    Node remote =
        new NodeBuilder()
            .withNewMetadata()
            .withName("elsewhere")
            .endMetadata()
            .withNewStatus()
            .addNewAddress()
            .withType("InternalIP")
            .withAddress("198.51.100.10") // TEST-NET-2: never contacted
            .endAddress()
            .endStatus()
            .build();
    // Checked first, so that a broken filter fails here instead of sending anything off the host.
    assertThat(LocalLoadBalancers.onThisMachine(java.net.InetAddress.getByName("198.51.100.10")))
        .isFalse();
    String ip = ensure(service, n1, remote);
    assertThat(cloud.loadBalancers().snapshot().get(0).backends())
        .extracting(LocalLoadBalancers.BackendView::node)
        .containsExactly("node-1");

    assertThat(Traffic.udp(ip, 53, "a", null, 2000)).contains("node=node-1");
    assertThat(cloud.loadBalancers().snapshot().get(0).openFlows()).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> cloud.loadBalancers().snapshot().get(0).openFlows() == 0);
    // A new datagram from the same client opens a new session.
    assertThat(Traffic.udp(ip, 53, "b", null, 2000)).contains("echo=b");
  }

  @Test
  void closeEndsEveryThread() throws Exception {
    Service service = service("threads", tcp(80, NODE_PORT), udp(53, UDP_NODE_PORT)).build();
    Node n1 = node(1, service);
    String ip = ensure(service, n1);
    Traffic.udp(ip, 53, "x", null, 2000);
    try (Traffic.KeptAlive open = Traffic.KeptAlive.open(ip, 80, null)) {
      open.get(true);
      assertThat(cloud.liveThreads()).isPositive();

      cloud.close();

      assertThat(cloud.liveThreads()).isZero();
      assertThat(Thread.getAllStackTraces().keySet())
          .noneMatch(t -> t.getName().startsWith("local-cloud"));
      assertThat(open.closedByPeer()).isTrue();
    }
  }

  private java.util.Optional<LocalLoadBalancers.BackendView> backend(String node) {
    return cloud.loadBalancers().snapshot().stream()
        .flatMap(lb -> lb.backends().stream())
        .filter(b -> b.node().equals(node))
        .findFirst();
  }
}
