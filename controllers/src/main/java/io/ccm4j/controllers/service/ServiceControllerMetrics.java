package io.ccm4j.controllers.service;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;

/** The service controller's metrics (§6.2), with upstream's names; buckets 1·2^k s, k = 0..14. */
final class ServiceControllerMetrics {

  private static final double[] BUCKETS = buckets();

  /** {@code service_controller_loadbalancer_sync_total}: UpdateLoadBalancer calls (S15). */
  final Counter loadBalancerSync;

  /** {@code service_controller_nodesync_error_total}: failed backend updates (S15). */
  final Counter nodeSyncErrors;

  /** {@code service_controller_nodesync_latency_seconds}: one node-sync pass over all services. */
  final DistributionSummary nodeSyncLatency;

  /**
   * {@code service_controller_update_loadbalancer_host_latency_seconds}: one UpdateLoadBalancer.
   */
  final DistributionSummary updateLoadBalancerHostLatency;

  ServiceControllerMetrics(MeterRegistry registry) {
    loadBalancerSync =
        Counter.builder("service_controller_loadbalancer_sync")
            .description(
                "[ALPHA] A metric counting the amount of times any load balancer has been configured, as an effect of service/node changes on the cluster")
            .register(registry);
    nodeSyncErrors =
        Counter.builder("service_controller_nodesync_error")
            .description(
                "[ALPHA] A metric counting the amount of times any load balancer has been configured and errored, as an effect of node changes on the cluster")
            .register(registry);
    nodeSyncLatency =
        DistributionSummary.builder("service_controller_nodesync_latency")
            .baseUnit("seconds")
            .description(
                "[ALPHA] A metric measuring the latency for nodesync which updates loadbalancer hosts on cluster node updates.")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
    updateLoadBalancerHostLatency =
        DistributionSummary.builder("service_controller_update_loadbalancer_host_latency")
            .baseUnit("seconds")
            .description(
                "[ALPHA] A metric measuring the latency for updating each load balancer hosts.")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
  }

  private static double[] buckets() {
    double[] buckets = new double[15];
    for (int k = 0; k < buckets.length; k++) {
      buckets[k] = Math.pow(2, k);
    }
    return buckets;
  }
}
