package io.ccm4j.controllers.route;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The route controller's metrics (upstream's {@code controllers/route/metrics.go}). */
final class NodeRouteControllerMetrics {

  static final String ROUTE_SYNC_TOTAL = "route_controller_route_sync_total";

  /** {@code outcome}: the pass failed (the cloud's route list, say). */
  static final String OUTCOME_ERROR = "error";

  /** {@code outcome}: at least one route was created or deleted. */
  static final String OUTCOME_CHANGED = "changed";

  /** {@code outcome}: nothing was created or deleted. */
  static final String OUTCOME_NOOP = "noop";

  private final MeterRegistry registry;

  NodeRouteControllerMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * Upstream's recordRouteSync: one finished pass, by its outcome and trigger ({@code periodic} or
   * {@code node_change}).
   */
  void recordSync(boolean failed, boolean routesChanged, String trigger) {
    String outcome = failed ? OUTCOME_ERROR : routesChanged ? OUTCOME_CHANGED : OUTCOME_NOOP;
    Counter.builder(ROUTE_SYNC_TOTAL)
        .description(
            "[ALPHA] A metric counting the number of route reconciles with the cloud provider, labeled by"
                + " the trigger (periodic or node_change) and the outcome (error if the reconcile"
                + " failed, changed if at least one route was created or deleted, otherwise noop).")
        .tags("outcome", outcome, "trigger", trigger)
        .register(registry)
        .increment();
  }
}
