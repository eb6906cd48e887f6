package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.NodeAddress;
import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The pure decisions of {@link KubeVirtInstances}: addresses (K27, K28) and shutdown (K24). */
final class InstanceDecisions {

  private InstanceDecisions() {}

  /** What a VMI's phase says about shutdown (K24). */
  enum Shutdown {
    RUNNING,
    SHUT_DOWN,
    /** Phase {@code Unknown}: the host is probably down; never taint on it (#70, L7). */
    UNKNOWN
  }

  static Shutdown shutdown(String phase) {
    return switch (phase) {
      case KubeVirtApi.PHASE_SUCCEEDED, KubeVirtApi.PHASE_FAILED -> Shutdown.SHUT_DOWN;
      case KubeVirtApi.PHASE_UNKNOWN -> Shutdown.UNKNOWN;
      default -> Shutdown.RUNNING;
    };
  }

  /**
   * The first DNS label of a node name: the VMI's {@code spec.hostname} of a node named by its FQDN
   * ({@code worker-1.tenant.example.com} is {@code worker-1}); a name without a dot is itself.
   */
  static String hostLabel(String nodeName) {
    int dot = nodeName.indexOf('.');
    return dot < 0 ? nodeName : nodeName.substring(0, dot);
  }

  /**
   * K27: every non-empty IP of the first {@code default} interface, as InternalIP, in order,
   * without duplicates; K28: when that gives nothing, the node's current InternalIPs.
   */
  static List<NodeAddress> addresses(VirtualMachineInstance vmi, Node node) {
    Set<NodeAddress> addresses = new LinkedHashSet<>();
    vmi.defaultInterfaceIps().forEach(ip -> addresses.add(NodeAddress.internalIp(ip)));
    if (addresses.isEmpty()
        && node.getStatus() != null
        && node.getStatus().getAddresses() != null) {
      node.getStatus().getAddresses().stream()
          .filter(a -> NodeAddress.Type.InternalIP.name().equals(a.getType()))
          .forEach(a -> addresses.add(NodeAddress.internalIp(a.getAddress())));
    }
    return new ArrayList<>(addresses);
  }
}
