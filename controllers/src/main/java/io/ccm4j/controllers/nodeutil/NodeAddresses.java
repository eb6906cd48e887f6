package io.ccm4j.controllers.nodeutil;

import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.net.IpAddresses;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Pure address rules of the node controller (N11, N12) and conversions to the API's type. */
public final class NodeAddresses {

  private NodeAddresses() {}

  /**
   * Orders the cloud's addresses by the kubelet's {@code alpha.kubernetes.io/provided-node-ip}
   * (N12): each annotated IP goes first, with every cloud address equal to it, and is the only
   * address of its type; the cloud's other addresses follow in cloud order.
   *
   * @throws IllegalArgumentException when the annotation does not parse or an IP matches no cloud
   *     address
   */
  public static List<NodeAddress> pinToProvidedNodeIp(
      String annotation, List<NodeAddress> cloudAddresses) {
    List<InetAddress> nodeIps = parseProvidedNodeIps(annotation);
    List<NodeAddress> result = new ArrayList<>();
    Set<NodeAddress.Type> claimed = new HashSet<>();
    for (InetAddress nodeIp : nodeIps) {
      boolean found = false;
      for (NodeAddress address : cloudAddresses) {
        if (sameIp(address.address(), nodeIp)) {
          result.add(address);
          claimed.add(address.type());
          found = true;
        }
      }
      if (!found) {
        throw new IllegalArgumentException(
            "failed to get node address from cloud provider that matches ip: "
                + nodeIp.getHostAddress());
      }
    }
    for (NodeAddress address : cloudAddresses) {
      if (!claimed.contains(address.type())) {
        result.add(address);
      }
    }
    return result;
  }

  /**
   * One IP, or two of different families; neither unspecified in a pair (N12.1). Read strictly, as
   * upstream's {@code ParseNodeIPAnnotation}: no space is trimmed (the kubelet writes none).
   */
  static List<InetAddress> parseProvidedNodeIps(String annotation) {
    String[] tokens = annotation.split(",", -1);
    if (tokens.length > 2) {
      throw new IllegalArgumentException(
          "could not parse \"%s\": must contain at most one IPv4 and one IPv6 address"
              .formatted(annotation));
    }
    List<InetAddress> ips = new ArrayList<>();
    for (String token : tokens) {
      ips.add(parseIp(token, annotation));
    }
    if (ips.size() == 2) {
      if (ips.get(0).getClass() == ips.get(1).getClass()) {
        throw new IllegalArgumentException(
            "could not parse \"%s\": must contain at most one IPv4 and one IPv6 address"
                .formatted(annotation));
      }
      if (ips.stream().anyMatch(InetAddress::isAnyLocalAddress)) {
        throw new IllegalArgumentException(
            "could not parse \"%s\": cannot use \"0.0.0.0\" or \"::\" in dual-stack node IPs"
                .formatted(annotation));
      }
    }
    return ips;
  }

  private static InetAddress parseIp(String token, String annotation) {
    try {
      return IpAddresses.parse(token);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "could not parse \"%s\": %s".formatted(annotation, e.getMessage()), e);
    }
  }

  private static boolean sameIp(String address, InetAddress ip) {
    return IpAddresses.tryParse(address).map(ip::equals).orElse(false);
  }

  /**
   * Whether the addresses changed (N11.5): for some type, its addresses in their order differ. The
   * order between types does not matter, as upstream's check. Upstream compares a {@code type →
   * address} map where the last address of a type wins, so a node with two addresses of one type (a
   * dual-stack node's two InternalIPs) counted as changed at every pass and was patched for
   * nothing; here such a node is patched only when one of them changes or they swap places (the
   * first is the one consumers take for the node's IP).
   */
  public static boolean changed(List<NodeAddress> previous, List<NodeAddress> next) {
    return previous.size() != next.size() || !byType(previous).equals(byType(next));
  }

  private static Map<NodeAddress.Type, List<String>> byType(List<NodeAddress> addresses) {
    Map<NodeAddress.Type, List<String>> byType = new EnumMap<>(NodeAddress.Type.class);
    for (NodeAddress address : addresses) {
      byType.computeIfAbsent(address.type(), type -> new ArrayList<>()).add(address.address());
    }
    return byType;
  }

  /**
   * The addresses to write (N11.3, N11.4): the cloud's, with the kubelet's Hostname addresses added
   * when the cloud reports none, then pinned to the provided node IP when there is one.
   */
  public static List<NodeAddress> desired(
      List<NodeAddress> cloudAddresses, List<NodeAddress> current, String providedNodeIp) {
    List<NodeAddress> addresses = new ArrayList<>(cloudAddresses);
    if (addresses.stream().noneMatch(a -> a.type() == NodeAddress.Type.Hostname)) {
      current.stream().filter(a -> a.type() == NodeAddress.Type.Hostname).forEach(addresses::add);
    }
    if (providedNodeIp != null) {
      return pinToProvidedNodeIp(providedNodeIp, addresses);
    }
    return addresses;
  }

  /** From the API's representation; addresses of unknown types are skipped. */
  public static List<NodeAddress> fromApi(List<io.fabric8.kubernetes.api.model.NodeAddress> api) {
    List<NodeAddress> result = new ArrayList<>();
    if (api == null) {
      return result;
    }
    for (var address : api) {
      try {
        result.add(
            new NodeAddress(NodeAddress.Type.valueOf(address.getType()), address.getAddress()));
      } catch (IllegalArgumentException | NullPointerException e) {
        // A type this version does not know: leave it out of comparisons.
      }
    }
    return result;
  }
}
