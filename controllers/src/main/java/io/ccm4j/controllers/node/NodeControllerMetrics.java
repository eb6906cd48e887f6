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
            .description(
                "[ALPHA] Number of seconds after node creation when NodeController removed the"
                    + " cloud-provider taint of a single node.")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
    initialNodeSyncDelay =
        DistributionSummary.builder("node_controller_initial_node_sync_delay")
            .baseUnit("seconds")
            .description(
                "[ALPHA] Number of seconds after node creation when NodeController finished the"
                    + " initial synchronization of a single node.")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
  }
}
