package io.ccm4j.tck;

import static io.ccm4j.tck.Contract.ERROR_NEVER_GONE;
import static io.ccm4j.tck.Contract.GONE_DOES_NOT_EXIST;
import static io.ccm4j.tck.Contract.INSTANCE_EXISTS;
import static io.ccm4j.tck.Contract.INSTANCE_METADATA;
import static io.ccm4j.tck.Contract.NODE_IP_AMONG_ADDRESSES;
import static io.ccm4j.tck.Contract.PROVIDER_ID_KEPT;
import static io.ccm4j.tck.Contract.SHUT_DOWN_EXISTS;
import static io.ccm4j.tck.Contract.THROTTLED_NEVER_GONE;
import static io.ccm4j.tck.Contract.UNINITIALISED_NODE_NOT_GONE;
import static io.ccm4j.tck.Contract.ZONE_AND_REGION;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Zones;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.net.IpAddresses;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * InstancesV2: existence, shutdown and metadata as the node and lifecycle controllers use them: the
 * providerID, the provided node IP among the addresses, the zone and region the node is labelled
 * with.
 */
public interface InstancesContract extends FacetContract {

  @Test
  @Holds(INSTANCE_EXISTS)
  default void l5_l7_aRunningInstanceExistsAndIsNotShutDown() throws Exception {
    InstancesV2 instances = session().instances();
    Node node = session().harness().runningInstance(session().provider());
    INSTANCE_EXISTS.require(
        instances.instanceExists(node), "instanceExists answered false for " + describe(node));
    INSTANCE_EXISTS.require(
        !instances.instanceShutdown(node),
        "instanceShutdown answered true for the running " + describe(node));
  }

  @Test
  @Holds(INSTANCE_METADATA)
  default void n6_aRegisteredNodeGetsItsProviderIdFromTheMetadata() throws Exception {
    InstancesV2 instances = session().instances();
    CloudProvider cloud = session().provider();
    Node node = session().harness().runningInstance(cloud);
    Node registered = ContractObjects.withoutProviderId(node);
    String providerId = providerIdOf(cloud, instances, registered, INSTANCE_METADATA);
    INSTANCE_METADATA.require(
        !providerId.isEmpty(), "the metadata of " + describe(registered) + " has no providerID");
    String own = ContractObjects.providerId(node);
    INSTANCE_METADATA.require(
        own.isEmpty() || own.equals(providerId),
        "the metadata of %s gives providerID %s, its instance is %s"
            .formatted(describe(registered), providerId, own));
  }

  @Test
  @Holds(PROVIDER_ID_KEPT)
  default void f2_theProviderIdOfAnInitialisedNodeIsKept() throws Exception {
    InstancesV2 instances = session().instances();
    CloudProvider cloud = session().provider();
    Node node = session().harness().runningInstance(cloud);
    String providerId = ContractObjects.providerId(node);
    if (providerId.isEmpty()) {
      providerId = providerIdOf(cloud, instances, node, PROVIDER_ID_KEPT);
    }
    Node initialised =
        new NodeBuilder(node).editOrNewSpec().withProviderID(providerId).endSpec().build();
    InstanceMetadata metadata =
        instances
            .instanceMetadata(initialised)
            .orElseThrow(
                () -> PROVIDER_ID_KEPT.broken("no metadata for the initialised " + describe(node)));
    PROVIDER_ID_KEPT.require(
        metadata.providerId().isEmpty() || metadata.providerId().equals(providerId),
        "the node has providerID %s, its metadata says %s"
            .formatted(providerId, metadata.providerId()));
  }

  @Test
  @Holds(UNINITIALISED_NODE_NOT_GONE)
  default void n6_aRegisteredNodeIsNeverGoneWhileItsInstanceRuns() throws Exception {
    InstancesV2 instances = session().instances();
    Node registered =
        ContractObjects.withoutProviderId(
            session().harness().runningInstance(session().provider()));
    try {
      UNINITIALISED_NODE_NOT_GONE.require(
          instances.instanceExists(registered),
          "instanceExists answered false for the running " + describe(registered));
    } catch (InstanceNotFoundException e) {
      throw UNINITIALISED_NODE_NOT_GONE.broken(
          "instanceExists threw InstanceNotFoundException for the running %s: %s"
              .formatted(describe(registered), e.getMessage()));
    } catch (CloudException e) {
      // An error is allowed: the lifecycle controller skips the node (L5).
    }
  }

  @Test
  @Holds(NODE_IP_AMONG_ADDRESSES)
  default void n7_theProvidedNodeIpIsAmongTheAddresses() throws Exception {
    InstancesV2 instances = session().instances();
    Node node = session().harness().runningInstance(session().provider());
    Map<String, String> annotations = node.getMetadata().getAnnotations();
    String provided =
        annotations == null ? null : annotations.get(WellKnownAnnotations.PROVIDED_NODE_IP);
    Assumptions.assumeTrue(
        provided != null,
        "ProviderHarness.runningInstance gives a node without the "
            + WellKnownAnnotations.PROVIDED_NODE_IP
            + " annotation: annotate it with the instance's IP, as a kubelet started with"
            + " --node-ip does");
    List<InetAddress> ips = providedNodeIps(node, provided);
    InstanceMetadata metadata = metadataOf(instances, node, NODE_IP_AMONG_ADDRESSES);
    for (InetAddress ip : ips) {
      NODE_IP_AMONG_ADDRESSES.require(
          metadata.addresses().stream()
              .anyMatch(address -> IpAddresses.tryParse(address.address()).equals(Optional.of(ip))),
          "instanceMetadata of %s gives %s; none is its provided node IP %s (%s=\"%s\"): give the"
                  .formatted(
                      describe(node),
                      addressList(metadata.addresses()),
                      ip.getHostAddress(),
                      WellKnownAnnotations.PROVIDED_NODE_IP,
                      provided)
              + " instance's own addresses, the one its kubelet was started with among them");
    }
  }

  @Test
  @Holds(ZONE_AND_REGION)
  default void n8_theZoneAndRegionAreLabelValues() throws Exception {
    InstancesV2 instances = session().instances();
    Node node = session().harness().runningInstance(session().provider());
    CloudProvider cloud = session().provider();
    InstanceMetadata metadata = metadataOf(instances, node, ZONE_AND_REGION);
    Zones.Zone labelled = labelledZone(cloud, node, metadata);
    String source = zoneSource(cloud, node, metadata);
    requireLabelValue(source, "zone", labelled.failureDomain());
    requireLabelValue(source, "region", labelled.region());
  }

  @Test
  @Holds(ZONE_AND_REGION)
  default void n8_theZoneAndRegionAreWhereTheInstanceRuns() throws Exception {
    InstancesV2 instances = session().instances();
    CloudProvider cloud = session().provider();
    Node node = session().harness().runningInstance(cloud);
    Zones.Zone where =
        session()
            .hook(
                "runningInstanceZone", () -> session().harness().runningInstanceZone(cloud, node));
    InstanceMetadata metadata = metadataOf(instances, node, ZONE_AND_REGION);
    Zones.Zone labelled = labelledZone(cloud, node, metadata);
    boolean zoneless = where.failureDomain().isEmpty() && where.region().isEmpty();
    ZONE_AND_REGION.require(
        labelled.equals(where),
        "%s zone \"%s\" and region \"%s\"; %s"
            .formatted(
                zoneSource(cloud, node, metadata),
                labelled.failureDomain(),
                labelled.region(),
                zoneless
                    ? "ProviderHarness.runningInstanceZone says the cloud has no zones (both"
                        + " empty): give none, or say in the harness where the instance runs"
                    : "its instance runs in zone \"%s\" of region \"%s\""
                            .formatted(where.failureDomain(), where.region())
                        + " (ProviderHarness.runningInstanceZone): give the instance's zone and"
                        + " region as the cloud names them"));
  }

  @Test
  @Holds(SHUT_DOWN_EXISTS)
  default void l7_aShutDownInstanceExistsAndIsShutDown() throws Exception {
    InstancesV2 instances = session().instances();
    CloudProvider cloud = session().provider();
    Node node =
        session().hook("shutDownInstance", () -> session().harness().shutDownInstance(cloud));
    SHUT_DOWN_EXISTS.require(
        instances.instanceExists(node),
        "instanceExists answered false for the shut-down " + describe(node));
    SHUT_DOWN_EXISTS.require(
        instances.instanceShutdown(node),
        "instanceShutdown answered false for the shut-down " + describe(node));
  }

  @Test
  @Holds(GONE_DOES_NOT_EXIST)
  default void l6_aGoneInstanceDoesNotExist() throws Exception {
    InstancesV2 instances = session().instances();
    CloudProvider cloud = session().provider();
    Node node = session().hook("goneInstance", () -> session().harness().goneInstance(cloud));
    GONE_DOES_NOT_EXIST.require(
        !instances.instanceExists(node),
        "instanceExists answered true for the gone " + describe(node));
    Optional<InstanceMetadata> metadata;
    try {
      metadata = instances.instanceMetadata(node);
    } catch (InstanceNotFoundException expected) {
      return;
    } catch (CloudException e) {
      throw GONE_DOES_NOT_EXIST.broken(
          "instanceMetadata of the gone %s threw %s, not InstanceNotFoundException"
              .formatted(describe(node), e));
    }
    GONE_DOES_NOT_EXIST.require(
        metadata.isEmpty(), "instanceMetadata described the gone " + describe(node));
  }

  @Test
  @Holds(ERROR_NEVER_GONE)
  default void l5_anApiErrorIsNeverGone() throws Exception {
    CloudProvider cloud = session().provider();
    Node node = session().harness().runningInstance(cloud);
    CloudProvider failing =
        session()
            .initialised(
                session().hook("failingCloud", () -> session().harness().failingCloud(cloud)));
    neverGone(ERROR_NEVER_GONE, failing, node, "failing");
  }

  @Test
  @Holds(THROTTLED_NEVER_GONE)
  default void l5_aThrottledApiIsNeverGone() throws Exception {
    CloudProvider cloud = session().provider();
    Node node = session().harness().runningInstance(cloud);
    CloudProvider throttled =
        session()
            .initialised(
                session().hook("throttledCloud", () -> session().harness().throttledCloud(cloud)));
    neverGone(THROTTLED_NEVER_GONE, throttled, node, "throttled");
  }

  private static void neverGone(Contract contract, CloudProvider cloud, Node node, String api)
      throws Exception {
    InstancesV2 instances = ContractSession.facet(cloud.instancesV2(), "InstancesV2");
    boolean exists;
    try {
      exists = instances.instanceExists(node);
    } catch (InstanceNotFoundException e) {
      throw contract.broken(
          "instanceExists threw InstanceNotFoundException with the %s API: %s"
              .formatted(api, e.getMessage()));
    } catch (CloudException expected) {
      exists = true;
    }
    contract.require(
        exists,
        "instanceExists answered false for %s with the %s API".formatted(describe(node), api));
    try {
      instances.instanceMetadata(node);
    } catch (InstanceNotFoundException e) {
      throw contract.broken(
          "instanceMetadata threw InstanceNotFoundException with the %s API: %s"
              .formatted(api, e.getMessage()));
    } catch (CloudException expected) {
      // an error: the node controller retries
    }
  }

  /** The providerID the node's metadata gives, else the node's own; in the provider's scheme. */
  private static String providerIdOf(
      CloudProvider cloud, InstancesV2 instances, Node node, Contract contract) throws Exception {
    InstanceMetadata metadata = metadataOf(instances, node, contract);
    String own = ContractObjects.providerId(node);
    String providerId = metadata.providerId().isEmpty() ? own : metadata.providerId();
    String scheme = cloud.providerName() + "://";
    INSTANCE_METADATA.require(
        providerId.isEmpty()
            || (providerId.startsWith(scheme) && providerId.length() > scheme.length()),
        "providerID \"%s\" of %s is not %s<id>".formatted(providerId, describe(node), scheme));
    return providerId;
  }

  /** The metadata of the node's running instance; none, or "not found", breaks the contract. */
  private static InstanceMetadata metadataOf(InstancesV2 instances, Node node, Contract contract)
      throws Exception {
    Optional<InstanceMetadata> metadata;
    try {
      metadata = instances.instanceMetadata(node);
    } catch (InstanceNotFoundException e) {
      throw contract.broken(
          "instanceMetadata threw InstanceNotFoundException for the running %s%s: %s"
              .formatted(
                  describe(node),
                  ContractObjects.providerId(node).isEmpty()
                      ? ", registered without a providerID (look its instance up by the node's"
                          + " name, labels or annotations)"
                      : "",
                  e.getMessage()));
    }
    contract.require(
        metadata.isPresent(), "instanceMetadata is empty for the running " + describe(node));
    return metadata.get();
  }

  /** The IPs of the node's provided-node-ip annotation, read as the kubelet writes them. */
  private static List<InetAddress> providedNodeIps(Node node, String annotation) {
    List<InetAddress> ips = new ArrayList<>();
    for (String token : annotation.split(",", -1)) {
      try {
        ips.add(IpAddresses.parse(token));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "ProviderHarness.runningInstance annotates %s %s=\"%s\", which is not the kubelet's"
                    .formatted(describe(node), WellKnownAnnotations.PROVIDED_NODE_IP, annotation)
                + " --node-ip (one IP, or an IPv4 and an IPv6 one, comma-separated): "
                + e.getMessage(),
            e);
      }
    }
    return ips;
  }

  /**
   * The zone and region the node controller labels the node with: the metadata's, or, when it has
   * neither, the Zones facet's, by providerID (the metadata's, else the node's), else by node name,
   * as ccm4j's node controller asks it (N6).
   */
  private static Zones.Zone labelledZone(CloudProvider cloud, Node node, InstanceMetadata metadata)
      throws Exception {
    Optional<Zones> zones = cloud.zones();
    if (!metadata.zone().isEmpty() || !metadata.region().isEmpty() || zones.isEmpty()) {
      return new Zones.Zone(metadata.zone(), metadata.region());
    }
    String providerId =
        metadata.providerId().isEmpty() ? ContractObjects.providerId(node) : metadata.providerId();
    Zones.Zone zone =
        providerId.isEmpty()
            ? zones.get().zoneByNodeName(node.getMetadata().getName())
            : zones.get().zoneByProviderId(providerId);
    return zone == null ? new Zones.Zone("", "") : zone;
  }

  /** Who gives the zone {@link #labelledZone} finds, as a message says it. */
  private static String zoneSource(CloudProvider cloud, Node node, InstanceMetadata metadata) {
    return metadata.zone().isEmpty() && metadata.region().isEmpty() && cloud.zones().isPresent()
        ? "instanceMetadata of %s gives neither zone nor region, and the Zones facet (which ccm4j"
                .formatted(describe(node))
            + " asks then) gives"
        : "instanceMetadata of %s gives".formatted(describe(node));
  }

  /** Fails the contract when a zone or region the node would be labelled with is no label value. */
  private static void requireLabelValue(String source, String field, String value) {
    LabelValues.problem(value)
        .ifPresent(
            problem -> {
              throw ZONE_AND_REGION.broken(
                  "%s %s \"%s\", which is no label value: %s"
                      .formatted(source, field, value, problem));
            });
  }

  /** {@code InternalIP 10.0.0.1, Hostname node-1}: the addresses as a message shows them. */
  private static String addressList(List<NodeAddress> addresses) {
    return addresses.isEmpty()
        ? "no address"
        : "the addresses "
            + addresses.stream()
                .map(address -> address.type() + " " + address.address())
                .collect(Collectors.joining(", "));
  }

  private static String describe(Node node) {
    String providerId = ContractObjects.providerId(node);
    return "node "
        + node.getMetadata().getName()
        + (providerId.isEmpty() ? "" : " (" + providerId + ")");
  }
}
