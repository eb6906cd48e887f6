package ${package};

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.tck.ProviderContract;
import io.ccm4j.tck.ProviderHarness;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.Map;
import java.util.Optional;

/**
 * The ${providerName} provider against ccm4j's provider contract kit: every check names the contract
 * it holds and why ccm4j's controllers rely on it. Until a facet is filled in, its checks fail as
 * "not implemented"; hooks left empty skip the checks that need them (the test report says which).
 */
class ${classPrefix}ProviderContractTest extends ProviderContract {

  @Override
  protected ProviderHarness harness() {
    return new ${classPrefix}Harness();
  }

  private static final class ${classPrefix}Harness implements ProviderHarness {

    @Override
    public CloudProviderFactory factory() {
      return new ${classPrefix}CloudProviderFactory();
    }

    /** Fill in: a config that reaches your test cloud (or a fake of its API). */
    @Override
    public Optional<String> cloudConfig() {
      return Optional.of("region: example-1\nloadBalancer: {network: default}\n");
    }

    /**
     * Fill in: create an instance in the test cloud and answer its Node, annotated with the
     * instance's IP as a kubelet started with --node-ip annotates it (N7: that IP must be among the
     * addresses your metadata gives).
     */
    @Override
    public Node runningInstance(CloudProvider cloud) {
      return new NodeBuilder()
          .withNewMetadata()
          .withName("node-1")
          .addToAnnotations(WellKnownAnnotations.PROVIDED_NODE_IP, "10.0.0.10")
          .endMetadata()
          .withNewSpec()
          .withProviderID("${providerName}://node-1")
          .endSpec()
          .build();
    }

    // Fill in as your test cloud allows; each enables the checks that need it:
    // runningInstanceZone (where runningInstance's instance runs; new Zone("", "") for a cloud
    // without zones), goneInstance, shutDownInstance, failingCloud, throttledCloud, backendNodes,
    // finishProvisioning.

    @Override
    public Optional<String> cloudConfigChangingLoadBalancers() {
      return Optional.of("region: example-1\nloadBalancer: {network: other}\n");
    }

    @Override
    public Map<String, String> invalidCloudConfigs() {
      return Map.of(
          "region", "endpoint: https://api.example.com\n",
          "endpoint", "region: example-1\nendpoint: not a url\n");
    }
  }
}
