package io.ccm4j.controllers.network;

import io.ccm4j.cloudprovider.net.Cidr;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The pod network as the route controller and node IPAM see it, already validated by the command
 * line.
 *
 * @param clusterCidrs {@code --cluster-cidr}: none, one, or one per family (R1, F18)
 * @param configureCloudRoutes {@code --configure-cloud-routes}: whether the route controller may
 *     run
 * @param routeReconciliationPeriod {@code --route-reconciliation-period} (R2)
 * @param allocateNodeCidrs {@code --allocate-node-cidrs}: whether node IPAM may run
 * @param nodeCidrMaskSizeIpv4 the prefix length of an IPv4 pod CIDR
 * @param nodeCidrMaskSizeIpv6 the prefix length of an IPv6 pod CIDR
 * @param serviceCidrs {@code --service-cluster-ip-range}: kept out of the pod CIDRs node IPAM hands
 *     out
 * @param watchBasedRoutes the alpha gate {@code
 *     CloudControllerManagerWatchBasedRoutesReconciliation}: reconcile routes on node changes, at
 *     most once per 10 s, instead of periodically (R3)
 */
public record NetworkSettings(
    List<Cidr> clusterCidrs,
    boolean configureCloudRoutes,
    Duration routeReconciliationPeriod,
    boolean allocateNodeCidrs,
    int nodeCidrMaskSizeIpv4,
    int nodeCidrMaskSizeIpv6,
    List<Cidr> serviceCidrs,
    boolean watchBasedRoutes) {

  /** The feature gate of R3, as upstream names it. */
  public static final String WATCH_BASED_ROUTES_GATE =
      "CloudControllerManagerWatchBasedRoutesReconciliation";

  public static final int DEFAULT_NODE_CIDR_MASK_SIZE_IPV4 = 24;
  public static final int DEFAULT_NODE_CIDR_MASK_SIZE_IPV6 = 64;

  /**
   * Upstream's cidrset caps an IPv6 cluster CIDR at 2^16 pod CIDRs ({@code clusterSubnetMaxDiff}).
   */
  public static final int MAX_NODE_CIDR_BITS_IPV6 = 16;

  /**
   * Upstream's cidrset does not cap an IPv4 cluster CIDR (its bitmap takes a bit per pod CIDR);
   * ccm4j's holds a reference per pod CIDR, so it stops at 2^20 (a /8 cut at /28, 4 MB).
   */
  public static final int MAX_NODE_CIDR_BITS_IPV4 = 20;

  /** The checks of the settings alone; the flags also check the mask sizes against the CIDRs. */
  public NetworkSettings {
    clusterCidrs = List.copyOf(clusterCidrs);
    serviceCidrs = List.copyOf(serviceCidrs);
    checkDualStack(clusterCidrs);
    if (!routeReconciliationPeriod.isPositive()) {
      throw new IllegalArgumentException("--route-reconciliation-period must be greater than 0");
    }
  }

  /**
   * Upstream's defaults, each written only here (the flags read them): no cluster CIDR, routes on,
   * every 10 s (not watch-based), no node IPAM, /24 and /64.
   */
  public static NetworkSettings defaults() {
    return new NetworkSettings(
        List.of(),
        true,
        Duration.ofSeconds(10),
        false,
        DEFAULT_NODE_CIDR_MASK_SIZE_IPV4,
        DEFAULT_NODE_CIDR_MASK_SIZE_IPV6,
        List.of(),
        false);
  }

  public NetworkSettings withClusterCidrs(List<Cidr> value) {
    return new NetworkSettings(
        value,
        configureCloudRoutes,
        routeReconciliationPeriod,
        allocateNodeCidrs,
        nodeCidrMaskSizeIpv4,
        nodeCidrMaskSizeIpv6,
        serviceCidrs,
        watchBasedRoutes);
  }

  public NetworkSettings withConfigureCloudRoutes(boolean value) {
    return new NetworkSettings(
        clusterCidrs,
        value,
        routeReconciliationPeriod,
        allocateNodeCidrs,
        nodeCidrMaskSizeIpv4,
        nodeCidrMaskSizeIpv6,
        serviceCidrs,
        watchBasedRoutes);
  }

  public NetworkSettings withRouteReconciliationPeriod(Duration value) {
    return new NetworkSettings(
        clusterCidrs,
        configureCloudRoutes,
        value,
        allocateNodeCidrs,
        nodeCidrMaskSizeIpv4,
        nodeCidrMaskSizeIpv6,
        serviceCidrs,
        watchBasedRoutes);
  }

  public NetworkSettings withAllocateNodeCidrs(boolean value) {
    return new NetworkSettings(
        clusterCidrs,
        configureCloudRoutes,
        routeReconciliationPeriod,
        value,
        nodeCidrMaskSizeIpv4,
        nodeCidrMaskSizeIpv6,
        serviceCidrs,
        watchBasedRoutes);
  }

  public NetworkSettings withNodeCidrMaskSizeIpv4(int value) {
    return new NetworkSettings(
        clusterCidrs,
        configureCloudRoutes,
        routeReconciliationPeriod,
        allocateNodeCidrs,
        value,
        nodeCidrMaskSizeIpv6,
        serviceCidrs,
        watchBasedRoutes);
  }

  public NetworkSettings withNodeCidrMaskSizeIpv6(int value) {
    return new NetworkSettings(
        clusterCidrs,
        configureCloudRoutes,
        routeReconciliationPeriod,
        allocateNodeCidrs,
        nodeCidrMaskSizeIpv4,
        value,
        serviceCidrs,
        watchBasedRoutes);
  }

  public NetworkSettings withServiceCidrs(List<Cidr> value) {
    return new NetworkSettings(
        clusterCidrs,
        configureCloudRoutes,
        routeReconciliationPeriod,
        allocateNodeCidrs,
        nodeCidrMaskSizeIpv4,
        nodeCidrMaskSizeIpv6,
        value,
        watchBasedRoutes);
  }

  public NetworkSettings withWatchBasedRoutes(boolean value) {
    return new NetworkSettings(
        clusterCidrs,
        configureCloudRoutes,
        routeReconciliationPeriod,
        allocateNodeCidrs,
        nodeCidrMaskSizeIpv4,
        nodeCidrMaskSizeIpv6,
        serviceCidrs,
        value);
  }

  /** The prefix length of the pod CIDRs handed out from a cluster CIDR of this family. */
  public int nodeCidrMaskSize(Cidr.Family family) {
    return family == Cidr.Family.IPv4 ? nodeCidrMaskSizeIpv4 : nodeCidrMaskSizeIpv6;
  }

  /**
   * What is wrong with cutting {@code clusterCidr} into pod CIDRs of prefix length {@code
   * maskSize}, or empty: the mask must lie between the cluster CIDR's prefix and the address width,
   * at most {@value #MAX_NODE_CIDR_BITS_IPV4} (IPv4) or {@value #MAX_NODE_CIDR_BITS_IPV6} (IPv6)
   * bits longer than the prefix.
   */
  public static Optional<String> maskSizeProblem(Cidr clusterCidr, int maskSize) {
    int bits = clusterCidr.family().bits();
    if (maskSize < clusterCidr.prefixLength() || maskSize > bits) {
      return Optional.of(
          "must be between the prefix length of cluster CIDR %s and %d, got %d"
              .formatted(clusterCidr, bits, maskSize));
    }
    int maxBits =
        clusterCidr.family() == Cidr.Family.IPv4
            ? MAX_NODE_CIDR_BITS_IPV4
            : MAX_NODE_CIDR_BITS_IPV6;
    if (maskSize - clusterCidr.prefixLength() > maxBits) {
      return Optional.of(
          "is too big for cluster CIDR %s: at most %d bits longer than its prefix (%d pod CIDRs),"
                  .formatted(clusterCidr, maxBits, 1 << maxBits)
              + " got "
              + maskSize);
    }
    return Optional.empty();
  }

  /**
   * Parses a comma-separated list of CIDRs as {@code --cluster-cidr} takes it: at most two, and two
   * only when one is IPv4 and the other IPv6 (R1).
   *
   * @throws IllegalArgumentException saying what is wrong
   */
  public static List<Cidr> parseDualStack(String value) {
    List<Cidr> cidrs = new ArrayList<>();
    for (String part : value.split(",", -1)) {
      cidrs.add(Cidr.parse(part));
    }
    checkDualStack(cidrs);
    return List.copyOf(cidrs);
  }

  private static void checkDualStack(List<Cidr> cidrs) {
    if (cidrs.size() > 2) {
      throw new IllegalArgumentException(
          "at most 2 CIDRs are allowed (one per IP family), got " + cidrs.size());
    }
    if (cidrs.size() == 2 && cidrs.get(0).family() == cidrs.get(1).family()) {
      throw new IllegalArgumentException(
          "two CIDRs must be dual-stack (one IPv4 and one IPv6), got two %s: %s, %s"
              .formatted(cidrs.get(0).family(), cidrs.get(0), cidrs.get(1)));
    }
  }
}
