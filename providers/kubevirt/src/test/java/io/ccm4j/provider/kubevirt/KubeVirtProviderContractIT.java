package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.Zones;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.simulator.virt.SimulatedVirt;
import io.ccm4j.simulator.virt.VirtualMachineSpec;
import io.ccm4j.tck.ProviderContract;
import io.ccm4j.tck.ProviderHarness;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The kubevirt provider keeps the provider contract (the kit's checks) against a real
 * infrastructure API server with the KubeVirt CRDs and the simulated virt layer. Its load balancers
 * select the tenant cluster's VMIs themselves, so the backend check skips; it has no Routes or
 * Zones facet (K90), and the infrastructure API server does not throttle.
 */
@WithControlPlane
class KubeVirtProviderContractIT extends ProviderContract {

  private final LocalControlPlane infraPlane;
  private final KubernetesClient infra;

  KubeVirtProviderContractIT(LocalControlPlane infraPlane, KubernetesClient infra) {
    this.infraPlane = infraPlane;
    this.infra = infra;
  }

  @Override
  protected ProviderHarness harness() throws Exception {
    return new KubeVirtHarness(infraPlane, infra);
  }

  private static final class KubeVirtHarness implements ProviderHarness {

    private static final String REGION = "eu-west";
    private static final String ZONE = "eu-west-a";

    private final LocalControlPlane infraPlane;
    private final KubernetesClient infra;
    private final String id = UUID.randomUUID().toString().substring(0, 6);
    private final String namespace = "kv-" + id;
    private final SimulatedVirt virt;
    private final AtomicInteger instances = new AtomicInteger();

    KubeVirtHarness(LocalControlPlane infraPlane, KubernetesClient infra) {
      this.infraPlane = infraPlane;
      this.infra = infra;
      infra
          .namespaces()
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .create();
      virt = new SimulatedVirt(infra, namespace);
      SimulatedVirt.addNode(infra, "infra-" + id, REGION, ZONE);
    }

    /** The infrastructure node's zone and region, where every VMI runs (K25). */
    @Override
    public Optional<Zones.Zone> runningInstanceZone(CloudProvider cloud, Node node) {
      return Optional.of(new Zones.Zone(ZONE, REGION));
    }

    @Override
    public CloudProviderFactory factory() {
      return new KubeVirtCloudProviderFactory();
    }

    @Override
    public Optional<String> cloudConfig() {
      return Optional.of(config(infraPlane.kubeconfigPath()));
    }

    private String config(Path kubeconfig) {
      return "kubeconfig: %s\nnamespace: %s\nloadBalancer: {creationPollInterval: 1, creationPollTimeout: 30}\n"
          .formatted(kubeconfig, namespace);
    }

    @Override
    public String clusterName() {
      return "tenant-" + id;
    }

    @Override
    public Node runningInstance(CloudProvider cloud) {
      return instance();
    }

    @Override
    public Optional<Node> shutDownInstance(CloudProvider cloud) {
      Node node = instance();
      virt.stop(node.getMetadata().getName());
      return Optional.of(node);
    }

    @Override
    public Optional<Node> goneInstance(CloudProvider cloud) {
      Node node = instance();
      virt.delete(node.getMetadata().getName());
      return Optional.of(node);
    }

    /**
     * A VMI on the infrastructure node, its node as a kubelet started with --node-ip registers it.
     */
    private Node instance() {
      int n = instances.incrementAndGet();
      String name = "worker-" + n;
      String ip = "127.61.0." + (n + 10);
      virt.start(VirtualMachineSpec.worker(name, clusterName(), "infra-" + id, ip));
      return new NodeBuilder()
          .withNewMetadata()
          .withName(name)
          .addToAnnotations(WellKnownAnnotations.PROVIDED_NODE_IP, ip)
          .endMetadata()
          .withNewSpec()
          .withProviderID("kubevirt://" + name)
          .endSpec()
          .build();
    }

    /** The infrastructure cluster's address, with nothing listening there. */
    @Override
    public Optional<CloudProvider> failingCloud(CloudProvider cloud) throws Exception {
      Path kubeconfig = Files.createTempFile("unreachable-", ".kubeconfig");
      try {
        Files.writeString(
            kubeconfig,
            infraPlane
                .kubeconfig("admin", "token")
                .replace(infraPlane.serverUrl(), "https://127.0.0.1:1"));
        Path config = Files.createTempFile("cloud-config-", ".yaml");
        try {
          Files.writeString(config, config(kubeconfig));
          return Optional.of(factory().create(Optional.of(config)));
        } finally {
          Files.delete(config);
        }
      } finally {
        // The provider reads the kubeconfig when it is made.
        Files.delete(kubeconfig);
      }
    }

    /** The infrastructure cluster's load balancer assigns an address (K48, K49). */
    @Override
    public void finishProvisioning(CloudProvider cloud, Service service) {
      Service infraService =
          infra.services().inNamespace(namespace).withName(LoadBalancer.defaultName(service)).get();
      if (infraService == null) {
        return;
      }
      infraService.setStatus(
          new ServiceStatusBuilder()
              .withNewLoadBalancer()
              .addNewIngress()
              .withIp("203.0.113.10")
              .endIngress()
              .endLoadBalancer()
              .build());
      infra.services().resource(infraService).updateStatus();
    }

    @Override
    public Optional<String> cloudConfigChangingLoadBalancers() {
      return Optional.of(config(infraPlane.kubeconfigPath()) + "infraLabels: {team: contract}\n");
    }

    @Override
    public Map<String, String> invalidCloudConfigs() {
      return Map.of(
          "namespace",
          "kubeconfig: %s\nnamespace: Not_A_Namespace\n".formatted(infraPlane.kubeconfigPath()));
    }

    @Override
    public void close() {
      infra.namespaces().withName(namespace).delete();
      infra.nodes().withName("infra-" + id).delete();
    }
  }
}
