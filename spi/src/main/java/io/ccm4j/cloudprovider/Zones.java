package io.ccm4j.cloudprovider;

/**
 * Zone lookup by provider ID or node name (deprecated upstream, kept for clouds whose instance
 * metadata lacks the zone): the node controller asks it only when {@link
 * InstancesV2#instanceMetadata} leaves zone and region empty.
 */
public interface Zones {

  Zone zoneByProviderId(String providerId) throws CloudException;

  Zone zoneByNodeName(String nodeName) throws CloudException;

  /** A failure domain and the region it lies in. */
  record Zone(String failureDomain, String region) {}
}
