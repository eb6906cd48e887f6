package io.ccm4j.controllers.nodeipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.controllers.network.NetworkSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeIpamControllerMetricsTest {

  /** Upstream's help, after its stability level (cidrset/metrics.go). */
  @Test
  void theUsageGaugeHasUpstreamsHelp() {
    PrometheusMeterRegistry served = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    NetworkSettings defaults = NetworkSettings.defaults();

    new NodeIpamControllerMetrics(
        served,
        new RangeAllocator(
            NetworkSettings.parseDualStack("10.244.0.0/16"),
            defaults::nodeCidrMaskSize,
            List.of()));

    assertThat(served.scrape())
        .contains(
            "# HELP node_ipam_controller_cidrset_usage_cidrs [ALPHA] Gauge measuring percentage of"
                + " allocated CIDRs.\n");
  }
}
