package io.ccm4j.provider.sim;

import io.ccm4j.cloudprovider.NodeAddress;
import java.util.List;
import java.util.Map;

/** An instance of the simulated cloud. */
public record SimInstance(
    String name,
    String region,
    String zone,
    String instanceType,
    List<NodeAddress> addresses,
    Map<String, String> labels,
    State state) {

  public enum State {
    RUNNING,
    SHUTDOWN
  }

  public SimInstance {
    addresses = List.copyOf(addresses);
    labels = Map.copyOf(labels);
  }

  public String providerId() {
    return SimCloud.PROVIDER_NAME + "://" + name;
  }

  SimInstance withState(State newState) {
    return new SimInstance(name, region, zone, instanceType, addresses, labels, newState);
  }

  /** The first address of a type, for a kubelet's {@code --node-ip}; null when none. */
  public String firstAddress(NodeAddress.Type type) {
    return addresses.stream()
        .filter(a -> a.type() == type)
        .map(NodeAddress::address)
        .findFirst()
        .orElse(null);
  }
}
