package io.ccm4j.controllers.route;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

class NodeRouteControllerMetricsTest {

  /** Upstream's help, after its stability level (route/metrics.go). */
  @Test
  void theSyncCounterHasUpstreamsHelp() {
    PrometheusMeterRegistry served = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    new NodeRouteControllerMetrics(served).recordSync(false, true, "periodic");

    assertThat(served.scrape())
        .contains(
            "# HELP route_controller_route_sync_total [ALPHA] A metric counting the number of"
                + " route reconciles with the cloud provider, labeled by the trigger (periodic or"
                + " node_change) and the outcome (error if the reconcile failed, changed if at"
                + " least one route was created or deleted, otherwise noop).\n",
            "route_controller_route_sync_total{outcome=\"changed\",trigger=\"periodic\"} 1.0\n");
  }
}
