package io.ccm4j.tck;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import io.ccm4j.cloudprovider.Zones.Zone;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.tck.ReferenceCloud.Breakage;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The kit run against {@link ReferenceCloud}, broken as {@link #breakages} says. Not a test of its
 * own (no {@code Test} suffix): {@link ProviderContractTest} runs it through the JUnit engine.
 */
class ReferenceContract extends ProviderContract {

  /** Set by {@link ProviderContractTest} before each engine run; runs are sequential. */
  static volatile Set<Breakage> breakages = EnumSet.noneOf(Breakage.class);

  @Override
  protected ProviderHarness harness() {
    return new Harness(new ReferenceCloud.Factory(breakages));
  }

  private record Harness(ReferenceCloud.Factory reference) implements ProviderHarness {

    @Override
    public CloudProviderFactory factory() {
      return reference;
    }

    @Override
    public Optional<String> cloudConfig() {
      return Optional.of("pool: 10.0.0.0/24\n");
    }

    @Override
    public Node runningInstance(CloudProvider cloud) {
      return instance(cloud, true);
    }

    @Override
    public Optional<Node> shutDownInstance(CloudProvider cloud) {
      return Optional.of(instance(cloud, false));
    }

    @Override
    public Optional<Node> goneInstance(CloudProvider cloud) {
      Node node = instance(cloud, true);
      ((ReferenceCloud) cloud).remove(node.getMetadata().getName());
      return Optional.of(node);
    }

    /** Where the reference cloud runs its instances; nowhere in particular without zones. */
    @Override
    public Optional<Zone> runningInstanceZone(CloudProvider cloud, Node node) {
      return Optional.of(
          breakages.contains(Breakage.NO_ZONES) ? new Zone("", "") : ReferenceCloud.PLACEMENT);
    }

    /** As its kubelet registers it, started with --node-ip. */
    private static Node instance(CloudProvider cloud, boolean running) {
      String name = ReferenceCloud.freshName("node");
      ((ReferenceCloud) cloud).add(name, running);
      return new NodeBuilder()
          .withNewMetadata()
          .withName(name)
          .addToAnnotations(WellKnownAnnotations.PROVIDED_NODE_IP, ReferenceCloud.INSTANCE_IP)
          .endMetadata()
          .withNewSpec()
          .withProviderID(ReferenceCloud.NAME + "://" + name)
          .endSpec()
          .build();
    }

    @Override
    public Optional<CloudProvider> failingCloud(CloudProvider cloud) throws Exception {
      return Optional.of(withApi("failing"));
    }

    @Override
    public Optional<CloudProvider> throttledCloud(CloudProvider cloud) throws Exception {
      return Optional.of(withApi("throttled"));
    }

    private CloudProvider withApi(String api) throws Exception {
      java.nio.file.Path file = java.nio.file.Files.createTempFile("reference-", ".yaml");
      try {
        java.nio.file.Files.writeString(file, "pool: 10.0.0.0/24\napi: " + api + "\n");
        return reference.create(Optional.of(file));
      } finally {
        java.nio.file.Files.delete(file);
      }
    }

    @Override
    public Optional<Set<String>> backendNodes(CloudProvider cloud, Service service) {
      return ((ReferenceCloud) cloud).backends(service);
    }

    @Override
    public Optional<String> cloudConfigChangingLoadBalancers() {
      return Optional.of("pool: 10.9.0.0/24\n");
    }

    @Override
    public Map<String, String> invalidCloudConfigs() {
      return Map.of("pool", "pool: not-a-cidr\n");
    }

    @Override
    public Duration closeWithin() {
      return Duration.ofMillis(200);
    }
  }
}
