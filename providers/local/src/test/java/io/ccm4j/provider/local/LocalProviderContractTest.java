package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.Zones;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.tck.ContractObjects;
import io.ccm4j.tck.ProviderContract;
import io.ccm4j.tck.ProviderHarness;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The local cloud keeps the provider contract (the kit's checks). Its instances are the Nodes
 * themselves, so it has no gone or shut-down instance and no API that fails: those checks skip.
 */
class LocalProviderContractTest extends ProviderContract {

  @Override
  protected ProviderHarness harness() {
    return new LocalHarness();
  }

  private static final class LocalHarness implements ProviderHarness {

    @Override
    public CloudProviderFactory factory() {
      return new LocalCloudProviderFactory();
    }

    /** A pool of its own, apart from the other local-cloud tests'. */
    @Override
    public Optional<String> cloudConfig() {
      return Optional.of("addressPool: 127.0.163.0/24\n");
    }

    private int instances = 7;

    /**
     * A Node of its own each time (the bulk checks ask for several in one call), as a kubelet
     * started with {@code --node-ip} registers it.
     */
    @Override
    public Node runningInstance(CloudProvider cloud) {
      Node node = ContractObjects.backendNode(LocalCloud.PROVIDER_NAME, instances++);
      String nodeIp = node.getStatus().getAddresses().getFirst().getAddress();
      return new NodeBuilder(node)
          .editMetadata()
          .addToAnnotations(WellKnownAnnotations.PROVIDED_NODE_IP, nodeIp)
          .endMetadata()
          .build();
    }

    /** The local cloud has no zones: one machine, or simulated kubelets on it. */
    @Override
    public Optional<Zones.Zone> runningInstanceZone(CloudProvider cloud, Node node) {
      return Optional.of(new Zones.Zone("", ""));
    }

    @Override
    public Optional<Set<String>> backendNodes(CloudProvider cloud, Service service) {
      return ((LocalCloud) cloud)
          .loadBalancers().snapshot().stream()
              .filter(view -> view.service().equals(LoadBalancer.serviceKey(service)))
              .findFirst()
              .map(
                  view ->
                      view.backends().stream()
                          .filter(LocalLoadBalancers.BackendView::member)
                          .map(LocalLoadBalancers.BackendView::node)
                          .collect(java.util.stream.Collectors.toCollection(TreeSet::new)));
    }

    @Override
    public Optional<String> cloudConfigChangingLoadBalancers() {
      return Optional.of("addressPool: 127.0.163.0/24\nbalancing: least-connections\n");
    }

    @Override
    public Map<String, String> invalidCloudConfigs() {
      return Map.of(
          "balancing", "balancing: random\n",
          "healthCheck.interval", "healthCheck: {interval: soon}\n");
    }
  }
}
