package io.ccm4j.controllers.cloudnodelifecycle;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.NotImplementedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.time.Duration;
import java.util.concurrent.CancellationException;

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
                "[ALPHA] A metric measuring the duration in seconds of a single MonitorNodes loop"
                    + " execution.")
            .serviceLevelObjectives(BUCKETS)
            .register(registry);
  }

  /**
   * One answer of the cloud about one node: {@code success}, {@code instance_not_found} (an
   * existence question answered "no", or that error), {@code not_implemented}, {@code canceled} or
   * {@code error}, as upstream labels each call; a bulk call counts once per node it answered or
   * failed.
   */
  void observe(String operation, CloudException failure, boolean notFound) {
    String result;
    if (failure instanceof NotImplementedException) {
      result = "not_implemented";
    } else if (failure instanceof InstanceNotFoundException || (failure == null && notFound)) {
      result = "instance_not_found";
    } else if (failure != null && cancelled(failure)) {
      result = "canceled";
    } else if (failure != null) {
      result = "error";
    } else {
      result = "success";
    }
    Counter.builder("cloud_node_lifecycle_controller_cloud_provider_calls")
        .description(
            "[ALPHA] The total number of cloud provider API calls, labeled by operation and result.")
        .tag("operation", operation)
        .tag("result", result)
        .register(registry)
        .increment();
  }

  /**
   * Whether a call failed because the controller stops: Java's counterpart of upstream's {@code
   * context.Canceled}, which a provider returns when the controller's context ends during a call.
   * The stop interrupts the pass, so the call failed on an interrupted thread, or from an
   * interruption (a provider that caught it and set the flag again, or one whose I/O the
   * interruption broke). A timeout is an error, not a cancellation.
   */
  static boolean cancelled(Throwable failure) {
    if (Thread.currentThread().isInterrupted()) {
      return true;
    }
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof InterruptedException
          || cause instanceof ClosedByInterruptException
          || cause instanceof CancellationException
          || (cause instanceof InterruptedIOException
              && !(cause instanceof SocketTimeoutException))) {
        return true;
      }
    }
    return false;
  }

  private static Duration[] buckets() {
    Duration[] buckets = new Duration[15];
    for (int k = 0; k < buckets.length; k++) {
      buckets[k] = Duration.ofMillis(1L << k);
    }
    return buckets;
  }
}
