package io.ccm4j.provider.sim;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Zones;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.tck.ProviderContract;
import io.ccm4j.tck.ProviderHarness;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/** The sim cloud keeps the provider contract (the kit's checks). */
class SimProviderContractTest extends ProviderContract {

  @Override
  protected ProviderHarness harness() {
    return new SimHarness();
  }

  private static final class SimHarness implements ProviderHarness {

    private static final String REGION = "r1";
    private static final String ZONE = "r1-a";
    private static final String INSTANCE_IP = "10.0.0.10";

    @Override
    public CloudProviderFactory factory() {
      return new SimCloudProviderFactory();
    }

    /**
     * Bulk calls of 3 nodes and 2 Services, so the kit's bulk checks ask in several calls; no
     * instances at first ({@code instances: []}), the kit's are added as it asks.
     */
    @Override
    public Optional<String> cloudConfig() {
      return Optional.of(
          "instances: []\ninstancesPerCall: 3\n"
              + "loadBalancers: {ingressPool: 127.0.200.0/24, servicesPerCall: 2}\n");
    }

    @Override
    public Node runningInstance(CloudProvider cloud) {
      return instance((SimCloud) cloud);
    }

    @Override
    public Optional<Node> goneInstance(CloudProvider cloud) {
      Node node = instance((SimCloud) cloud);
      ((SimCloud) cloud).delete(node.getMetadata().getName());
      return Optional.of(node);
    }

    @Override
    public Optional<Node> shutDownInstance(CloudProvider cloud) {
      Node node = instance((SimCloud) cloud);
      ((SimCloud) cloud).shutdown(node.getMetadata().getName());
      return Optional.of(node);
    }

    /** Where {@link #instance} places every instance. */
    @Override
    public Optional<Zones.Zone> runningInstanceZone(CloudProvider cloud, Node node) {
      return Optional.of(new Zones.Zone(ZONE, REGION));
    }

    /** An instance in r1-a, its node as a kubelet started with --node-ip registers it. */
    private static Node instance(SimCloud cloud) {
      String name = "worker-" + UUID.randomUUID().toString().substring(0, 8);
      cloud.add(
          new SimInstance(
              name,
              REGION,
              ZONE,
              "sim.small",
              List.of(NodeAddress.internalIp(INSTANCE_IP)),
              Map.of(),
              SimInstance.State.RUNNING));
      return new NodeBuilder()
          .withNewMetadata()
          .withName(name)
          .addToAnnotations(WellKnownAnnotations.PROVIDED_NODE_IP, INSTANCE_IP)
          .endMetadata()
          .withNewSpec()
          .withProviderID(SimCloud.PROVIDER_NAME + "://" + name)
          .endSpec()
          .build();
    }

    /** Every call fails with a cloud error. */
    @Override
    public Optional<CloudProvider> failingCloud(CloudProvider cloud) throws Exception {
      return Optional.of(
          SimCloudProviderFactory.fromYaml("instances: []\nerrorRate: 1\ninstancesPerCall: 3\n"));
    }

    /** A quota of one call in a thousand seconds, used up. */
    @Override
    public Optional<CloudProvider> throttledCloud(CloudProvider cloud) throws Exception {
      SimCloud throttled =
          SimCloudProviderFactory.fromYaml(
              "instances: []\nqps: 0.001\nburst: 1\ninstancesPerCall: 3\n");
      throttled.instanceExists(
          new NodeBuilder().withNewMetadata().withName("x").endMetadata().build());
      return Optional.of(throttled);
    }

    @Override
    public Optional<Set<String>> backendNodes(CloudProvider cloud, Service service) {
      return ((SimCloud) cloud)
          .loadBalancers()
          .loadBalancerOf(LoadBalancer.serviceKey(service))
          .map(balancer -> new TreeSet<>(balancer.backends().keySet()));
    }

    @Override
    public Optional<String> cloudConfigChangingLoadBalancers() {
      return Optional.of(
          "instancesPerCall: 3\nloadBalancers: {ingressPool: 127.0.201.0/24, servicesPerCall: 2}\n");
    }

    @Override
    public Map<String, String> invalidCloudConfigs() {
      return Map.of(
          "errorRate", "errorRate: 2\n",
          "loadBalancers.ingressPool", "loadBalancers: {ingressPool: nowhere}\n");
    }
  }
}
