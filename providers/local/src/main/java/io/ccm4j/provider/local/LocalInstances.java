package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.net.IpAddresses;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Instances of the {@code local} cloud are the machines the Nodes describe: this machine, or
 * simulated kubelets on it. So everything comes from the Node object itself:
 *
 * <ul>
 *   <li>provider ID {@code local://<node name>};
 *   <li>addresses: the kubelet's {@code --node-ip} (annotation {@value
 *       WellKnownAnnotations#PROVIDED_NODE_IP}) and the InternalIP/ExternalIP addresses the node
 *       already reports, as they are, plus its Hostname (the node name when it reports none);
 *   <li>an instance always exists and is never shut down: there is no cloud inventory that could
 *       say otherwise, and answering "gone" would make the lifecycle controller delete the Node
 *       (L-rules). A node that really left is deleted by whoever removed it.
 * </ul>
 *
 * Nothing is asked of a cloud, so a bulk call answers any number of nodes at once.
 */
final class LocalInstances implements InstancesV2 {

  static final String INSTANCE_TYPE = "local";

  @Override
  public int maxNodesPerCall() {
    return Integer.MAX_VALUE;
  }

  @Override
  public BulkAnswers<Boolean> instancesExist(Collection<Node> nodes) {
    return BulkAnswers.oneByOne(nodes, InstancesV2::nodeName, this::instanceExists);
  }

  @Override
  public BulkAnswers<Boolean> instancesShutdown(Collection<Node> nodes) {
    return BulkAnswers.oneByOne(nodes, InstancesV2::nodeName, this::instanceShutdown);
  }

  @Override
  public BulkAnswers<Optional<InstanceMetadata>> instancesMetadata(Collection<Node> nodes) {
    return BulkAnswers.oneByOne(nodes, InstancesV2::nodeName, this::instanceMetadata);
  }

  @Override
  public boolean instanceExists(Node node) {
    return true;
  }

  @Override
  public boolean instanceShutdown(Node node) {
    return false;
  }

  @Override
  public Optional<InstanceMetadata> instanceMetadata(Node node) {
    String name = node.getMetadata().getName();
    return Optional.of(
        new InstanceMetadata(
            LocalCloud.PROVIDER_NAME + "://" + name,
            INSTANCE_TYPE,
            addresses(node),
            "",
            "",
            Map.of()));
  }

  /** Provided node IPs first (N7 checks them against this list), then the node's own. */
  static List<NodeAddress> addresses(Node node) {
    Set<NodeAddress> result = new LinkedHashSet<>();
    Map<String, String> annotations = node.getMetadata().getAnnotations();
    String provided =
        annotations == null ? null : annotations.get(WellKnownAnnotations.PROVIDED_NODE_IP);
    if (provided != null) {
      for (String ip : provided.split(",")) {
        if (IpAddresses.isIp(ip.trim())) {
          result.add(NodeAddress.internalIp(ip.trim()));
        }
      }
    }
    String hostname = null;
    if (node.getStatus() != null && node.getStatus().getAddresses() != null) {
      for (var address : node.getStatus().getAddresses()) {
        switch (String.valueOf(address.getType())) {
          case "InternalIP" -> result.add(NodeAddress.internalIp(address.getAddress()));
          case "ExternalIP" -> result.add(NodeAddress.externalIp(address.getAddress()));
          case "Hostname" -> hostname = hostname == null ? address.getAddress() : hostname;
          default -> {}
        }
      }
    }
    List<NodeAddress> list = new ArrayList<>(result);
    list.add(NodeAddress.hostname(hostname != null ? hostname : node.getMetadata().getName()));
    return list;
  }
}
