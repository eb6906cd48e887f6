package io.ccm4j.runtime.serving;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * component-base's counters of what its registries hold, which upstream's manager serves on {@code
 * /metrics} (its {@code RegisterMetaMetrics}):
 *
 * <ul>
 *   <li>{@code registered_metrics_total{deprecated_version,stability_level}}: the metrics
 *       registered, by the stability level and deprecation their help begins with ({@code [ALPHA]},
 *       {@code [BETA] (Deprecated since 1.30.0)}). Counted here as each family with a level first
 *       appears in what the manager serves, {@code /metrics/slis} and these four included, once per
 *       family; the series without a level (the process's, the JVM's, ccm4j's own) are the raw
 *       collectors component-base does not count. Micrometer makes a family with its first series,
 *       so a family is counted from then, where upstream counts its metric vectors when registered.
 *   <li>{@code disabled_metrics_total}, {@code hidden_metrics_total}, {@code
 *       cardinality_enforcement_unexpected_categorizations_total}: the metrics {@code
 *       --disabled-metrics} disabled, the deprecated ones hidden past their release window, the
 *       label values {@code --allow-metric-labels} recategorised. ccm4j has none of these flags and
 *       no deprecated metric, so they stay 0, as upstream's do without the flags.
 * </ul>
 */
final class RegistryCounters {

  /** {@code [BETA] (Deprecated since 1.30.0) …}: component-base's annotated help. */
  private static final Pattern ANNOTATED_HELP =
      Pattern.compile("^\\[(ALPHA|BETA|STABLE|INTERNAL)] (?:\\(Deprecated since ([^)]*)\\) )?");

  /** A metric's stability level and the version it was deprecated in (empty when it is not). */
  record Stability(String level, String deprecatedVersion) {}

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Set<String> counted = new HashSet<>();

  private final Counter registered =
      Counter.builder()
          .name("registered_metrics_total")
          .help(
              "[BETA] The count of registered metrics broken by stability level and deprecation"
                  + " version.")
          .labelNames("stability_level", "deprecated_version")
          .register(registry);

  RegistryCounters() {
    Counter.builder()
        .name("disabled_metrics_total")
        .help("[BETA] The count of disabled metrics.")
        .register(registry);
    Counter.builder()
        .name("hidden_metrics_total")
        .help("[BETA] The count of hidden metrics.")
        .register(registry);
    Counter.builder()
        .name("cardinality_enforcement_unexpected_categorizations_total")
        .help("[ALPHA] The count of unexpected categorizations during cardinality enforcement.")
        .register(registry);
    count(registry.scrape());
  }

  /**
   * {@code served} with these counters added, having counted the families of {@code served} and of
   * {@code others} (served elsewhere) not counted before.
   */
  synchronized MetricSnapshots addTo(MetricSnapshots served, MetricSnapshots... others) {
    count(served);
    for (MetricSnapshots more : others) {
      count(more);
    }
    List<MetricSnapshot> all = new ArrayList<>(served.stream().toList());
    registry.scrape().forEach(all::add);
    return new MetricSnapshots(all);
  }

  private void count(MetricSnapshots families) {
    for (MetricSnapshot family : families) {
      String name = family.getMetadata().getPrometheusName();
      stability(family.getMetadata().getHelp())
          .filter(s -> counted.add(name))
          .ifPresent(s -> registered.labelValues(s.level(), s.deprecatedVersion()).inc());
    }
  }

  /** The level and deprecation a help begins with, as component-base writes them; else none. */
  static Optional<Stability> stability(String help) {
    Matcher annotated = ANNOTATED_HELP.matcher(help == null ? "" : help);
    if (!annotated.find()) {
      return Optional.empty();
    }
    String deprecated = annotated.group(2);
    return Optional.of(new Stability(annotated.group(1), deprecated == null ? "" : deprecated));
  }
}
