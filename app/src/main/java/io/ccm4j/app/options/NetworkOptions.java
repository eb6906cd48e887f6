package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.controllers.network.NetworkSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The pod network: cluster CIDRs, cloud routes (node-route-controller) and node IPAM. */
public final class NetworkOptions {

  @Option(
      names = "--cluster-cidr",
      paramLabel = "<cidrs>",
      description =
          "CIDR range(s) of the pods, comma-separated: one, or one IPv4 and one IPv6 (dual-stack)."
              + " Needed by node-route-controller and node-ipam-controller; without it they do not"
              + " start.")
  String clusterCidr;

  @Option(
      names = "--configure-cloud-routes",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      paramLabel = "<bool>",
      description =
          "Create cloud routes for the nodes' pod CIDRs (node-route-controller), if the cloud"
              + " provider supports routes. Default: ${DEFAULT-VALUE}.")
  boolean configureCloudRoutes;

  @Option(
      names = "--route-reconciliation-period",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "How often the cloud routes are reconciled, counted from the start of each pass."
              + " Default: ${DEFAULT-VALUE}.")
  Duration routeReconciliationPeriod;

  @Option(
      names = "--allocate-node-cidrs",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      paramLabel = "<bool>",
      description =
          "Give each node pod CIDR(s) from --cluster-cidr (node-ipam-controller, range allocator)."
              + " Default: ${DEFAULT-VALUE}.")
  boolean allocateNodeCidrs;

  @Option(
      names = "--node-cidr-mask-size",
      converter = GoInt.class,
      paramLabel = "<bits>",
      description =
          "Prefix length of the pod CIDR of each node, single-stack clusters only; 0 means "
              + NetworkSettings.DEFAULT_NODE_CIDR_MASK_SIZE_IPV4
              + " for IPv4 and "
              + NetworkSettings.DEFAULT_NODE_CIDR_MASK_SIZE_IPV6
              + " for IPv6. Default: ${DEFAULT-VALUE}.")
  int nodeCidrMaskSize; // 0: not set, as upstream's (the per-family flags then apply)

  @Option(
      names = "--node-cidr-mask-size-ipv4",
      converter = GoInt.class,
      paramLabel = "<bits>",
      description =
          "Prefix length of the IPv4 pod CIDR of each node; 0 means "
              + NetworkSettings.DEFAULT_NODE_CIDR_MASK_SIZE_IPV4
              + ". Default: ${DEFAULT-VALUE}.")
  int nodeCidrMaskSizeIpv4; // 0: not set, so NetworkSettings.defaults()'s

  @Option(
      names = "--node-cidr-mask-size-ipv6",
      converter = GoInt.class,
      paramLabel = "<bits>",
      description =
          "Prefix length of the IPv6 pod CIDR of each node; 0 means "
              + NetworkSettings.DEFAULT_NODE_CIDR_MASK_SIZE_IPV6
              + ". Default: ${DEFAULT-VALUE}.")
  int nodeCidrMaskSizeIpv6; // 0: not set, so NetworkSettings.defaults()'s

  @Option(
      names = "--service-cluster-ip-range",
      paramLabel = "<cidrs>",
      description =
          "CIDR range(s) of the Services' cluster IPs, comma-separated (one per family); pod CIDRs"
              + " overlapping them are never handed out.")
  String serviceClusterIpRange;

  @Option(
      names = "--feature-gates",
      paramLabel = "<gate=bool>",
      description =
          "Feature gates, as Name=bool pairs separated by commas (the gates of upstream's manager;"
              + " those ccm4j does not implement only at their default). Implemented: "
              + NetworkSettings.WATCH_BASED_ROUTES_GATE
              + " (alpha, default false): reconcile routes when nodes change, at most once every"
              + " 10s, instead of every --route-reconciliation-period; "
              + FeatureGates.RELEASE_LEASE_ON_EXIT
              + " (ccm4j releases the Lease on every clean stop).")
  List<String> featureGates = List.of(); // each occurrence as given (FeatureGates reads them)

  /**
   * @return the problem, naming the flag, or empty
   */
  public Optional<String> validate() {
    try {
      Optional<String> gates = FeatureGates.problem(FeatureGates.parse(featureGates));
      if (gates.isPresent()) {
        return Optional.of("--feature-gates: " + gates.get());
      }
    } catch (IllegalArgumentException e) {
      return Optional.of("--feature-gates: " + e.getMessage());
    }
    List<Cidr> clusterCidrs;
    List<Cidr> serviceCidrs;
    try {
      clusterCidrs = clusterCidrs();
    } catch (IllegalArgumentException e) {
      return Optional.of("--cluster-cidr: " + e.getMessage());
    }
    try {
      serviceCidrs =
          isBlank(serviceClusterIpRange)
              ? List.of()
              : NetworkSettings.parseDualStack(serviceClusterIpRange);
    } catch (IllegalArgumentException e) {
      return Optional.of("--service-cluster-ip-range: " + e.getMessage());
    }
    if (routeReconciliationPeriod.toMillis() < 1) {
      // The loop is scheduled in milliseconds: less would be a period of 0, refused at start.
      return Optional.of(
          "--route-reconciliation-period must be at least 1ms, got "
              + GoDurations.format(routeReconciliationPeriod));
    }
    Optional<String> range =
        outOfRange("--node-cidr-mask-size", nodeCidrMaskSize, 128)
            .or(() -> outOfRange("--node-cidr-mask-size-ipv4", nodeCidrMaskSizeIpv4, 32))
            .or(() -> outOfRange("--node-cidr-mask-size-ipv6", nodeCidrMaskSizeIpv6, 128));
    if (range.isPresent()) {
      return range;
    }
    if (!allocateNodeCidrs) {
      return Optional.empty();
    }
    if (clusterCidrs.isEmpty()) {
      return Optional.of("--cluster-cidr must be set when --allocate-node-cidrs is true");
    }
    return maskSizeProblem(clusterCidrs);
  }

  private static Optional<String> outOfRange(String flag, int value, int max) {
    return value < 0 || value > max
        ? Optional.of(
            "%s must be between 1 and %d (0 for the default), got %d".formatted(flag, max, value))
        : Optional.empty();
  }

  /**
   * Upstream's setNodeCIDRMaskSizes: {@code --node-cidr-mask-size} is for single-stack clusters and
   * excludes the per-family flags, each per-family flag needs its family, and every mask must fit
   * its cluster CIDR.
   */
  private Optional<String> maskSizeProblem(List<Cidr> clusterCidrs) {
    boolean dualStack = clusterCidrs.size() == 2;
    if (nodeCidrMaskSize != 0 && dualStack) {
      return Optional.of(
          "--node-cidr-mask-size is not allowed with a dual-stack --cluster-cidr; use"
              + " --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6");
    }
    if (nodeCidrMaskSize != 0 && (nodeCidrMaskSizeIpv4 != 0 || nodeCidrMaskSizeIpv6 != 0)) {
      return Optional.of(
          "--node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 are not allowed with"
              + " --node-cidr-mask-size");
    }
    if (!dualStack) {
      Cidr.Family family = clusterCidrs.get(0).family();
      if (nodeCidrMaskSizeIpv4 != 0 && family == Cidr.Family.IPv6) {
        return Optional.of(
            "--node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 --cluster-cidr");
      }
      if (nodeCidrMaskSizeIpv6 != 0 && family == Cidr.Family.IPv4) {
        return Optional.of(
            "--node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 --cluster-cidr");
      }
    }
    NetworkSettings resolved = settings();
    for (Cidr cidr : clusterCidrs) {
      int mask = resolved.nodeCidrMaskSize(cidr.family());
      Optional<String> problem = NetworkSettings.maskSizeProblem(cidr, mask);
      if (problem.isPresent()) {
        return Optional.of(maskFlag(cidr.family()) + " " + problem.get());
      }
    }
    return Optional.empty();
  }

  /** The flag that set the mask of a family, as the user wrote it (or its default). */
  private String maskFlag(Cidr.Family family) {
    if (nodeCidrMaskSize != 0) {
      return "--node-cidr-mask-size";
    }
    boolean ipv4 = family == Cidr.Family.IPv4;
    String flag = ipv4 ? "--node-cidr-mask-size-ipv4" : "--node-cidr-mask-size-ipv6";
    boolean set = ipv4 ? nodeCidrMaskSizeIpv4 != 0 : nodeCidrMaskSizeIpv6 != 0;
    return set
        ? flag
        : flag + " (default " + NetworkSettings.defaults().nodeCidrMaskSize(family) + ")";
  }

  private List<Cidr> clusterCidrs() {
    // Blank counts as not set (upstream fails at start-up on an empty value when routes run).
    return isBlank(clusterCidr)
        ? NetworkSettings.defaults().clusterCidrs()
        : NetworkSettings.parseDualStack(clusterCidr);
  }

  /**
   * The route controller's and node IPAM's settings, as the flags say; what they leave unset is
   * {@link NetworkSettings#defaults()}'s. Call {@link #validate()} first.
   */
  public NetworkSettings settings() {
    NetworkSettings defaults = NetworkSettings.defaults();
    Boolean watchBased =
        FeatureGates.parse(featureGates).get(NetworkSettings.WATCH_BASED_ROUTES_GATE);
    return defaults
        .withClusterCidrs(clusterCidrs())
        .withConfigureCloudRoutes(configureCloudRoutes)
        .withRouteReconciliationPeriod(routeReconciliationPeriod)
        .withAllocateNodeCidrs(allocateNodeCidrs)
        .withNodeCidrMaskSizeIpv4(maskSize(nodeCidrMaskSizeIpv4, defaults.nodeCidrMaskSizeIpv4()))
        .withNodeCidrMaskSizeIpv6(maskSize(nodeCidrMaskSizeIpv6, defaults.nodeCidrMaskSizeIpv6()))
        .withServiceCidrs(
            isBlank(serviceClusterIpRange)
                ? defaults.serviceCidrs()
                : NetworkSettings.parseDualStack(serviceClusterIpRange))
        .withWatchBasedRoutes(watchBased == null ? defaults.watchBasedRoutes() : watchBased);
  }

  /** {@code --node-cidr-mask-size}, else the family's own flag, else the default (0 is unset). */
  private int maskSize(int familyFlag, int byDefault) {
    return nodeCidrMaskSize != 0 ? nodeCidrMaskSize : familyFlag != 0 ? familyFlag : byDefault;
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
