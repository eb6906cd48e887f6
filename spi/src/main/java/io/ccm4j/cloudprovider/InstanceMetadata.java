package io.ccm4j.cloudprovider;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the cloud knows about an instance. Empty strings mean "unknown" and leave the node's field
 * alone.
 *
 * @param providerId the node's {@code spec.providerID}, {@code <provider>://<instance>}; required
 *     unless the node already has one
 * @param instanceType written to the instance-type labels
 * @param addresses the node's addresses as the cloud sees them
 * @param zone written to the zone labels
 * @param region written to the region labels
 * @param additionalLabels further labels; keys in the kubernetes.io and k8s.io namespaces are
 *     ignored
 */
public record InstanceMetadata(
    String providerId,
    String instanceType,
    List<NodeAddress> addresses,
    String zone,
    String region,
    Map<String, String> additionalLabels) {

  public InstanceMetadata {
    providerId = Objects.requireNonNullElse(providerId, "");
    instanceType = Objects.requireNonNullElse(instanceType, "");
    addresses = List.copyOf(Objects.requireNonNullElse(addresses, List.of()));
    zone = Objects.requireNonNullElse(zone, "");
    region = Objects.requireNonNullElse(region, "");
    additionalLabels = Map.copyOf(Objects.requireNonNullElse(additionalLabels, Map.of()));
  }
}
