package io.ccm4j.lab;

import static io.ccm4j.app.KubeProxyRequests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.proxy.ForwardingKubeProxy;
import io.ccm4j.simulator.proxy.KubeProxyFleet;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tenant cluster's LoadBalancer Service carries real traffic through the infrastructure cluster
 * (K40), on loopback:
 *
 * <pre>
 * client ─▶ infrastructure load balancer 127.0.112.x:8080     ccm4j --cloud-provider=local on the
 *             │                                              infrastructure cluster, serving the
 *             ▼                                              Service ccm4j --cloud-provider=kubevirt
 *           infrastructure node 127.62.R.n:&lt;infra nodePort&gt;  created there; a ForwardingKubeProxy
 *             │                                              per infrastructure node sends it to a
 *             ▼                                              virt-launcher pod the Service selects
 *           virt-launcher pod IP = VMI IP 127.63.R.m:&lt;tenant nodePort&gt;
 *             │                                              the tenant node's simulated kube-proxy
 *             ▼                                              on the VMI's address answers
 *           "node=&lt;tenant node&gt; service=&lt;namespace&gt;/web"
 * </pre>
 */
@WithControlPlane
class KubeVirtLoadBalancerTrafficIT {

  private static LocalControlPlane infraPlane;
  private static KubernetesClient infra;

  private final LocalControlPlane tenantPlane;
  private final KubernetesClient tenant;
  private final int subnet = ThreadLocalRandom.current().nextInt(1, 250);
  private KubeVirtTestbed bed;
  private KubeletFleet infraKubelets;
  private final List<ForwardingKubeProxy> infraProxies = new ArrayList<>();
  private KubeProxyFleet tenantProxies;

  @TempDir Path temp;

  KubeVirtLoadBalancerTrafficIT(LocalControlPlane tenantPlane, KubernetesClient tenant) {
    this.tenantPlane = tenantPlane;
    this.tenant = tenant;
  }

  @BeforeAll
  static void startInfrastructureCluster() {
    infraPlane = KubeVirtTestbed.infrastructurePlane();
    infra = KubeVirtTestbed.infrastructureClient();
  }

  @BeforeEach
  void start() {
    bed = new KubeVirtTestbed(tenantPlane, tenant, infraPlane, infra, temp);
    infraKubelets = new KubeletFleet(infra, KubeletFleet.Options.kubeletDefaults());
    tenantProxies = new KubeProxyFleet(tenant);
  }

  @AfterEach
  void stop() {
    bed.close();
    tenantProxies.close();
    infraProxies.forEach(ForwardingKubeProxy::close);
    infraKubelets.kubelets().forEach(k -> infra.nodes().withName(k.nodeName()).delete());
    infraKubelets.close();
  }

  /** An infrastructure node with its kubelet, zone labels and forwarding kube-proxy. */
  private String infraNode(int host, String zone) throws IOException {
    String name = "infra-" + host + "-" + bed.id;
    String ip = "127.62.%d.%d".formatted(subnet, host);
    infraKubelets.register(
        NodeSpec.named(name)
            .withNodeIp(ip)
            .withLabels(Map.of(WellKnownLabels.REGION, "eu-west", WellKnownLabels.ZONE, zone)));
    infraProxies.add(new ForwardingKubeProxy(infra, name, ip));
    return name;
  }

  /** A worker VM on {@code infraNode}; its tenant node runs a simulated kube-proxy on its IP. */
  private String vm(int host, String infraNode) {
    String name = "vm-" + host + "-" + bed.id;
    tenantProxies.attach(bed.worker(name, infraNode, "127.63.%d.%d".formatted(subnet, host)));
    return name;
  }

  @Test
  void k40_aRequestTravelsFromTheInfrastructureLoadBalancerThroughTheVmToTheTenantService()
      throws Exception {
    // The infrastructure cluster: two nodes, its own load balancers served by ccm4j's local
    // cloud; the tenant cluster: one worker VM on each infrastructure node, ccm4j's kubevirt cloud.
    String infraA = infraNode(1, "eu-west-a");
    String infraB = infraNode(2, "eu-west-b");
    String first = vm(1, infraA);
    String second = vm(2, infraB);
    startManagers();

    String shop = bed.tenantNamespace();
    Service web = bed.createLoadBalancer(shop, "http", 8080, null);

    // The infrastructure load balancer's address reaches the tenant Service's status (K49).
    await().atMost(Duration.ofSeconds(90)).until(() -> ingress(shop).isPresent());
    String address = ingress(shop).orElseThrow();
    assertThat(address).startsWith("127.0.112.");

    // Requests to it are answered by both VMs' tenant nodes, for the tenant Service.
    Set<String> seen = new HashSet<>();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              Map<String, String> answer = request(address, 8080);
              answer.forEach(
                  (node, service) -> {
                    assertThat(service).isEqualTo(shop + "/web");
                    seen.add(node);
                  });
              return seen.containsAll(Set.of(first, second));
            });
    assertThat(seen).containsExactlyInAnyOrder(first, second);

    // Deleted: the infrastructure Service goes, and with it the infrastructure load balancer.
    String infraName = LoadBalancer.defaultName(web);
    tenant.services().inNamespace(shop).withName("web").delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> infra.services().inNamespace(bed.namespace).withName(infraName).get() == null);
    await().atMost(Duration.ofSeconds(30)).until(() -> request(address, 8080).isEmpty());
    tenant.namespaces().withName(shop).delete();
  }

  /** Both managers: the infrastructure cluster's with the local cloud, the tenant's kubevirt. */
  private void startManagers() throws Exception {
    Path localConfig = temp.resolve("local.yaml");
    Files.writeString(
        localConfig,
        """
        addressPool: 127.0.112.0/24
        healthCheck: {interval: 300ms, timeout: 1s, unhealthyThreshold: 1}
        """);
    bed.startManager(
        infra,
        "--cloud-provider=local",
        "--cloud-config=" + localConfig,
        "--kubeconfig=" + infraPlane.kubeconfigPath(),
        "--controllers=cloud-node,service");
    bed.startManager(bed.cloudConfig(bed.infraAdminKubeconfig(), ""), "cloud-node,service");
  }

  private ForwardingKubeProxy infraProxy(String node) {
    return infraProxies.stream().filter(p -> p.nodeName().equals(node)).findFirst().orElseThrow();
  }

  @Test
  void k44_externalTrafficPolicyLocalReachesOnlyInfrastructureNodesThatHostAWorkerVm()
      throws Exception {
    String infraA = infraNode(1, "eu-west-a");
    String infraB = infraNode(2, "eu-west-b");
    String empty = infraNode(3, "eu-west-c");
    String first = vm(1, infraA);
    String second = vm(2, infraB);
    startManagers();
    String shop = bed.tenantNamespace();
    Service web = bed.createLoadBalancer(shop, null, 8080, "Cluster");
    await().atMost(Duration.ofSeconds(90)).until(() -> ingress(shop).isPresent());
    String address = ingress(shop).orElseThrow();

    // Cluster: every infrastructure node is a backend, the one without a VM forwards to the others.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              request(address, 8080);
              return infraProxy(empty).forwardedConnections() > 0;
            });

    // Local, on the tenant Service: the infrastructure Service follows (K44, K47), gets a health
    // check node port, and the node without a virt-launcher pod fails it.
    tenant
        .services()
        .inNamespace(shop)
        .withName("web")
        .edit(
            s -> {
              s.getSpec().setExternalTrafficPolicy("Local");
              return s;
            });
    String infraName = LoadBalancer.defaultName(web);
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              Service mirrored =
                  infra.services().inNamespace(bed.namespace).withName(infraName).get();
              return "Local".equals(mirrored.getSpec().getExternalTrafficPolicy())
                  && mirrored.getSpec().getHealthCheckNodePort() != null;
            });
    // Once the load balancer's checks have seen it, the empty node forwards nothing more.
    await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () -> {
              long before = infraProxy(empty).forwardedConnections();
              Set<String> answered = new HashSet<>();
              for (int i = 0; i < 12; i++) {
                answered.addAll(request(address, 8080).keySet());
              }
              return infraProxy(empty).forwardedConnections() == before
                  && answered.equals(Set.of(first, second));
            });
    long emptyCount = infraProxy(empty).forwardedConnections();
    long a = infraProxy(infraA).forwardedConnections();
    long b = infraProxy(infraB).forwardedConnections();
    for (int i = 0; i < 12; i++) {
      assertThat(request(address, 8080)).isNotEmpty();
    }
    assertThat(infraProxy(empty).forwardedConnections()).isEqualTo(emptyCount);
    assertThat(infraProxy(infraA).forwardedConnections()).isGreaterThan(a);
    assertThat(infraProxy(infraB).forwardedConnections()).isGreaterThan(b);
    tenant.services().inNamespace(shop).withName("web").delete();
    await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> infra.services().inNamespace(bed.namespace).withName(infraName).get() == null);
    tenant.namespaces().withName(shop).delete();
  }

  private Optional<String> ingress(String namespace) {
    Service service = tenant.services().inNamespace(namespace).withName("web").get();
    if (service == null
        || service.getStatus() == null
        || service.getStatus().getLoadBalancer() == null
        || service.getStatus().getLoadBalancer().getIngress() == null
        || service.getStatus().getLoadBalancer().getIngress().isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(service.getStatus().getLoadBalancer().getIngress().get(0).getIp());
  }
}
