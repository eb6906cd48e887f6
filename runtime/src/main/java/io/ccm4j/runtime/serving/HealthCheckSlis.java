package io.ccm4j.runtime.serving;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.lang.management.ManagementFactory;

/**
 * What {@code /metrics/slis} serves: the health checks' SLIs of component-base's {@code
 * metrics/prometheus/slis}, which upstream's manager installs beside {@code /metrics}, in a
 * registry of their own. Each check an aggregate health path ran ({@code /healthz}, {@code /livez},
 * {@code /readyz}) is recorded under its name and that path ({@code type="healthz"}); {@code
 * /healthz/<check>} records nothing, as upstream's handler of one check does not.
 *
 * <ul>
 *   <li>{@code kubernetes_healthcheck{name,type}}: 1 when the check last passed, 0 when it failed;
 *   <li>{@code kubernetes_healthchecks_total{name,status,type}}: the checks run, by {@code success}
 *       or {@code error};
 *   <li>{@code process_start_time_seconds}, which component-base registers there too.
 * </ul>
 *
 * <p>{@link #reset} empties all three, as upstream's {@code DELETE /metrics/slis} does: the checks'
 * series come back as checks run again, the start time does not (upstream sets it once, in a gauge
 * vector the reset empties with the rest).
 */
final class HealthCheckSlis {

  private static final String SUCCESS = "success";
  private static final String ERROR = "error";

  private final PrometheusRegistry registry = new PrometheusRegistry();

  private final Gauge result =
      Gauge.builder()
          .name("kubernetes_healthcheck")
          .help("[STABLE] This metric records the result of a single healthcheck.")
          .labelNames("name", "type")
          .register(registry);

  private final Counter results =
      Counter.builder()
          .name("kubernetes_healthchecks_total")
          .help("[STABLE] This metric records the results of all healthcheck.")
          .labelNames("name", "type", "status")
          .register(registry);

  private final Gauge processStart =
      Gauge.builder()
          .name("process_start_time_seconds")
          .help("[ALPHA] Start time of the process since unix epoch in seconds.")
          .register(registry);

  HealthCheckSlis() {
    processStart.set(ManagementFactory.getRuntimeMXBean().getStartTime() / 1000.0);
  }

  /**
   * One check's result on an aggregate path.
   *
   * @param type the path's first segment, as upstream's {@code handleRootHealth} names it ({@code
   *     healthz})
   */
  void observe(String name, String type, boolean healthy) {
    result.labelValues(name, type).set(healthy ? 1 : 0);
    results.labelValues(name, type, healthy ? SUCCESS : ERROR).inc();
  }

  void reset() {
    result.clear();
    results.clear();
    registry.unregister(processStart); // an unlabelled gauge cleared would still read 0
  }

  MetricSnapshots scrape() {
    return registry.scrape();
  }
}
