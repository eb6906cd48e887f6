package ${package};

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.fabric8.kubernetes.api.model.Node;
import java.util.Optional;

/**
 * The ${providerName} cloud's instances, asked by node. The rule that matters most: when the cloud
 * cannot tell (an API error, a timeout, throttling), throw a {@link CloudException}; never answer
 * "does not exist", or ccm4j deletes the Node.
 */
final class ${classPrefix}Instances implements InstancesV2 {

  private final ${classPrefix}CloudConfig config;

  ${classPrefix}Instances(${classPrefix}CloudConfig config) {
    this.config = config;
  }

  @Override
  public boolean instanceExists(Node node) throws CloudException {
    throw new UnsupportedOperationException(
        "InstancesV2.instanceExists: ask the cloud whether the node's instance exists (by"
            + " spec.providerID, else by the node's name); a stopped instance exists; throw"
            + " CloudException when the cloud cannot tell");
  }

  @Override
  public boolean instanceShutdown(Node node) throws CloudException {
    throw new UnsupportedOperationException(
        "InstancesV2.instanceShutdown: answer whether the node's instance is stopped");
  }

  @Override
  public Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException {
    throw new UnsupportedOperationException(
        "InstancesV2.instanceMetadata: describe the node's instance: providerID"
            + " ${providerName}://<instance id>, instance type, addresses, zone, region; throw"
            + " InstanceNotFoundException when it is gone");
  }
}
