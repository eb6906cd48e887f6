package io.ccm4j.controllers.route;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The route controller's metrics (upstream's {@code controllers/route/metrics.go}). */
final class NodeRouteControllerMetrics {

  final Counter routeSyncs;

  NodeRouteControllerMetrics(MeterRegistry registry) {
    routeSyncs =
        Counter.builder("route_controller_route_sync_total")
            .description("A metric counting the amount of times routes have been synced")
            .register(registry);
  }
}
