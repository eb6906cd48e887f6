package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.net.IpAddresses;
import io.fabric8.kubernetes.api.model.Node;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The pure decisions of {@link KubeVirtInstances}: addresses (K27, K28, K113) and shutdown (K24).
 */
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
   * without duplicates, but for two kinds (K113, ccm4j only; users saw Calico flap between them):
   *
   * <ul>
   *   <li>a link-local address (IPv6 {@code fe80::/10}, IPv4 {@code 169.254.0.0/16}): it routes on
   *       no other node's link, and the kubelet refuses one as its node IP;
   *   <li>an IPv6 address of the modified EUI-64 form (SLAAC from the MAC: {@code ff:fe} in the
   *       middle of the interface id), but only while the interface also has a unicast IPv6 address
   *       of another form (static, DHCPv6), and unless the kubelet names it as its node IP (the
   *       node controller requires that one among the cloud's, N12). It is routable, so it stays
   *       when it is the family's only one.
   * </ul>
   *
   * <p>K28: when that leaves nothing (no {@code default} interface, the guest agent silent, only
   * link-local addresses reported), the node's current InternalIPs, under the same two rules: the
   * node may still carry a link-local or EUI-64 address from before (the kubelet's first status,
   * upstream's provider), and the fallback must not bring back what the reported path leaves out.
   */
  static List<NodeAddress> addresses(VirtualMachineInstance vmi, Node node) {
    List<InetAddress> nodeIps = providedNodeIps(node);
    List<NodeAddress> reported = internalIps(vmi.defaultInterfaceIps(), nodeIps);
    if (!reported.isEmpty()
        || node.getStatus() == null
        || node.getStatus().getAddresses() == null) {
      return reported;
    }
    return internalIps(
        node.getStatus().getAddresses().stream()
            .filter(a -> NodeAddress.Type.InternalIP.name().equals(a.getType()))
            .map(io.fabric8.kubernetes.api.model.NodeAddress::getAddress)
            .toList(),
        nodeIps);
  }

  /** {@code ips} as InternalIPs, in order, without duplicates, but for K113's two kinds. */
  private static List<NodeAddress> internalIps(List<String> ips, List<InetAddress> nodeIps) {
    boolean otherIpv6 =
        ips.stream()
            .map(IpAddresses::tryParse)
            .flatMap(Optional::stream)
            .anyMatch(ip -> ip instanceof Inet6Address && usable(ip) && !eui64(ip));
    Set<NodeAddress> addresses = new LinkedHashSet<>();
    for (String ip : ips) {
      if (ip == null || ip.isEmpty()) {
        continue;
      }
      Optional<InetAddress> parsed = IpAddresses.tryParse(ip);
      boolean left =
          parsed.isPresent()
              && !nodeIps.contains(parsed.get())
              && (parsed.get().isLinkLocalAddress() || (otherIpv6 && eui64(parsed.get())));
      if (!left && !scopedLinkLocal(ip)) {
        addresses.add(NodeAddress.internalIp(ip));
      }
    }
    return new ArrayList<>(addresses);
  }

  /**
   * A link-local IPv6 address with its zone ({@code fe80::1%eth0}), which is no IP literal (the
   * kubelet could not name it as its node IP either), but still link-local; any other string that
   * is not an address is kept, as upstream keeps it.
   */
  private static boolean scopedLinkLocal(String ip) {
    int zone = ip.indexOf('%');
    return zone > 0
        && IpAddresses.tryParse(ip.substring(0, zone))
            .filter(InetAddress::isLinkLocalAddress)
            .isPresent();
  }

  /** An address another node may reach this one at: unicast, neither link-local nor loopback. */
  private static boolean usable(InetAddress ip) {
    return !ip.isLinkLocalAddress()
        && !ip.isLoopbackAddress()
        && !ip.isAnyLocalAddress()
        && !ip.isMulticastAddress();
  }

  /**
   * An IPv6 address whose interface id is a modified EUI-64 one, made from a MAC address by SLAAC
   * (RFC 4291 appendix A): {@code ff:fe} in its middle. Privacy and stable-privacy SLAAC addresses
   * (RFC 4941, RFC 7217) look like any other, and stay.
   */
  private static boolean eui64(InetAddress ip) {
    byte[] bytes = ip.getAddress();
    return ip instanceof Inet6Address && bytes[11] == (byte) 0xff && bytes[12] == (byte) 0xfe;
  }

  /** The IPs of the kubelet's {@code alpha.kubernetes.io/provided-node-ip}, if it says any. */
  private static List<InetAddress> providedNodeIps(Node node) {
    Map<String, String> annotations =
        node.getMetadata() == null ? null : node.getMetadata().getAnnotations();
    String value =
        annotations == null ? null : annotations.get(WellKnownAnnotations.PROVIDED_NODE_IP);
    if (value == null) {
      return List.of();
    }
    return Arrays.stream(value.split(","))
        .map(IpAddresses::tryParse)
        .flatMap(Optional::stream)
        .toList();
  }
}
