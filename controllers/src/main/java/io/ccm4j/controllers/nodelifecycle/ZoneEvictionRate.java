package io.ccm4j.controllers.nodelifecycle;

/**
 * A zone's NoExecute tainting rate from its state and size (node-lifecycle spec §3.3 {@code
 * setLimiterInZone}, examples in §3.4): the normal rate when Normal or fully disrupted, the
 * secondary rate when a large zone is partially disrupted, none when a small one is.
 *
 * @param normal nodes/s ({@code --node-eviction-rate})
 * @param secondary nodes/s in a partially disrupted large zone ({@code
 *     --secondary-node-eviction-rate})
 * @param largeClusterSizeThreshold zones with more nodes than this are large ({@code
 *     --large-cluster-size-threshold})
 */
record ZoneEvictionRate(double normal, double secondary, int largeClusterSizeThreshold) {

  static ZoneEvictionRate of(NodeHealthSettings settings) {
    return new ZoneEvictionRate(
        settings.evictionRate(),
        settings.secondaryEvictionRate(),
        settings.largeClusterSizeThreshold());
  }

  /**
   * The rate for a zone of {@code zoneSize} nodes that count (§3.6) in {@code state}. Full
   * disruption keeps the normal rate (upstream's HealthyQPSFunc); the case where every zone is
   * fully disrupted is {@link ZoneDisruption}'s, not this rule's.
   */
  double forZone(ZoneState state, int zoneSize) {
    return switch (state) {
      case NORMAL, FULL_DISRUPTION, INITIAL -> normal;
      case PARTIAL_DISRUPTION -> zoneSize > largeClusterSizeThreshold ? secondary : 0;
    };
  }
}
