package io.ccm4j.controllers.node;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/** The cloud-node controller's metrics (§6.2), buckets 1·4^k s for k = 0..5. */
final class NodeControllerMetrics {

  private static final double[] BUCKETS = {1, 4, 16, 64, 256, 1024};

  final DistributionSummary taintRemovalDelay;
  final DistributionSummary initialNodeSyncDelay;

  NodeControllerMetrics(MeterRegistry registry) {
    taintRemovalDelay =
        DistributionSummary.builder("node_controller_cloud_provider_taint_removal_delay")
            .baseUnit("seconds")
            .description("Time from a node's creation to the removal of the uninitialized taint")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
    initialNodeSyncDelay =
        DistributionSummary.builder("node_controller_initial_node_sync_delay")
            .baseUnit("seconds")
            .description("Time from a node's creation to its first successful sync")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
  }
}
