package io.ccm4j.controllers.node;

import java.time.Duration;

/**
 * The cloud-node controller's tunables; their defaults are in {@link #defaults()}.
 *
 * @param concurrentNodeSyncs workers initialising nodes ({@code --concurrent-node-syncs})
 * @param concurrentNodeStatusUpdates parallelism of the periodic address refresh ({@code
 *     --concurrent-node-status-updates}; 0 means the same as {@code concurrentNodeSyncs})
 * @param nodeStatusUpdateFrequency period of the address refresh ({@code
 *     --node-status-update-frequency})
 */
public record CloudNodeSettings(
    int concurrentNodeSyncs, int concurrentNodeStatusUpdates, Duration nodeStatusUpdateFrequency) {

  /** The one check of each setting; its messages name the flag ({@code ccm4j run} prints them). */
  public CloudNodeSettings {
    // Upstream never validates this (§8.6): 0 silently starts no workers.
    if (concurrentNodeSyncs < 1) {
      throw new IllegalArgumentException(
          "--concurrent-node-syncs must be greater than 0, got " + concurrentNodeSyncs);
    }
    if (concurrentNodeStatusUpdates < 0) {
      throw new IllegalArgumentException(
          "--concurrent-node-status-updates must not be negative, got "
              + concurrentNodeStatusUpdates);
    }
    if (!nodeStatusUpdateFrequency.isPositive()) {
      throw new IllegalArgumentException("--node-status-update-frequency must be greater than 0");
    }
  }

  /**
   * ccm4j's defaults, each written only here (the flags read them): upstream's, except 10 node-init
   * workers where upstream has 1, which makes a 1,000-node scale-up wait minutes for its taints.
   */
  public static CloudNodeSettings defaults() {
    return new CloudNodeSettings(10, 0, Duration.ofMinutes(5));
  }

  public CloudNodeSettings withConcurrentNodeSyncs(int value) {
    return new CloudNodeSettings(value, concurrentNodeStatusUpdates, nodeStatusUpdateFrequency);
  }

  public CloudNodeSettings withConcurrentNodeStatusUpdates(int value) {
    return new CloudNodeSettings(concurrentNodeSyncs, value, nodeStatusUpdateFrequency);
  }

  public CloudNodeSettings withNodeStatusUpdateFrequency(Duration value) {
    return new CloudNodeSettings(concurrentNodeSyncs, concurrentNodeStatusUpdates, value);
  }

  /** The parallelism of the address refresh, with 0 resolved (N13). */
  public int nodeStatusUpdateWorkers() {
    return concurrentNodeStatusUpdates == 0 ? concurrentNodeSyncs : concurrentNodeStatusUpdates;
  }
}
