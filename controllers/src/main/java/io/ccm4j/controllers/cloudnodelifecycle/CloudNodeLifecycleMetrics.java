package io.ccm4j.controllers.cloudnodelifecycle;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.NotImplementedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * The cloud-node-lifecycle controller's metrics, with upstream's names (§6.2): the duration of a
 * pass, buckets 0.001·2^k s for k = 0..14, and the answers the cloud gave, by operation and result.
 */
final class CloudNodeLifecycleMetrics {

  static final String OPERATION_EXISTS = "instance_exists";
  static final String OPERATION_SHUTDOWN = "instance_shutdown";

  private static final Duration[] BUCKETS = buckets();

  private final MeterRegistry registry;
  final Timer monitorNodesDuration;

  CloudNodeLifecycleMetrics(MeterRegistry registry) {
    this.registry = registry;
    monitorNodesDuration =
        Timer.builder("cloud_node_lifecycle_controller_monitor_nodes_duration")
            .description(
                "A metric measuring the duration in seconds of a single MonitorNodes loop execution.")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
  }

  /**
   * One answer of the cloud about one node: {@code success}, {@code instance_not_found} (an
   * existence question answered "no", or that error), {@code not_implemented} or {@code error}, as
   * upstream labels each call; a bulk call counts once per node it answered or failed.
   */
  void observe(String operation, CloudException failure, boolean notFound) {
    String result;
    if (failure instanceof NotImplementedException) {
      result = "not_implemented";
    } else if (failure instanceof InstanceNotFoundException || (failure == null && notFound)) {
      result = "instance_not_found";
    } else if (failure != null) {
      result = "error";
    } else {
      result = "success";
    }
    Counter.builder("cloud_node_lifecycle_controller_cloud_provider_calls")
        .description(
            "The total number of cloud provider API calls, labeled by operation and result.")
        .tag("operation", operation)
        .tag("result", result)
        .register(registry)
        .increment();
  }

  private static Duration[] buckets() {
    Duration[] buckets = new Duration[15];
    for (int k = 0; k < buckets.length; k++) {
      buckets[k] = Duration.ofMillis(1L << k);
    }
    return buckets;
  }
}
