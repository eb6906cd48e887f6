package io.ccm4j.app.bench;

import io.ccm4j.app.options.GoDurationConverter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ccm4j bench eviction-timeline}. */
@Command(
    name = "eviction-timeline",
    description = {
      "A cluster of 3 zones loses one: when was each of its nodes tainted NoExecute and each pod",
      "marked for deletion, and do the taint times keep the zone's configured rate?"
    },
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class EvictionTimelineCommand implements Callable<Integer> {

  @Option(
      names = "--nodes-per-zone",
      paramLabel = "<n>",
      defaultValue = "50",
      description = "Default: ${DEFAULT-VALUE}.")
  int nodesPerZone;

  @Option(
      names = "--node-eviction-rate",
      paramLabel = "<qps>",
      defaultValue = "0.1",
      description = "Default: ${DEFAULT-VALUE}.")
  double rate;

  @Option(
      names = "--node-monitor-grace-period",
      paramLabel = "<duration>",
      defaultValue = "50s",
      converter = GoDurationConverter.class,
      description = "Default: ${DEFAULT-VALUE}.")
  Duration grace;

  @Option(
      names = "--toleration-seconds",
      paramLabel = "<s>",
      defaultValue = "30",
      description = "The pods' not-ready/unreachable tolerationSeconds. Default: ${DEFAULT-VALUE}.")
  long tolerationSeconds;

  @Override
  public Integer call() throws Exception {
    var settings =
        new io.ccm4j.controllers.nodelifecycle.NodeHealthSettings(
            Duration.ofSeconds(5), grace, Duration.ofSeconds(60), rate, 0.01, 0.55f, 50);
    var result =
        new EvictionTimelineBenchmark(3, nodesPerZone, settings, tolerationSeconds, System.out)
            .run();
    System.out.printf(
        "%neviction-timeline: zone-0 (%d nodes) silent at t=0; grace %ds, rate %s nodes/s, tolerationSeconds %d%n",
        nodesPerZone, grace.toSeconds(), rate, tolerationSeconds);
    System.out.printf(
        "| %-8s | %-18s | %-22s |%n", "node", "NoExecute taint (s)", "pod marked deleted (s)");
    System.out.printf("| %-8s | %-18s | %-22s |%n", "-".repeat(8), "-".repeat(18), "-".repeat(22));
    for (var row : result.rows()) {
      System.out.printf(
          "| %-8s | %18.1f | %22.1f |%n", row.node(), row.taintedAt(), row.podEvictedAt());
    }
    double expectedGap = 1 / rate;
    System.out.printf(
        "gap between taints: min %.2f s, mean %.2f s (rate %s/s allows one per %.2f s): %s%n",
        result.minGapSeconds(),
        result.meanGapSeconds(),
        rate,
        expectedGap,
        result.minGapSeconds() >= expectedGap * 0.9 ? "within the rate" : "FASTER THAN THE RATE");
    return result.minGapSeconds() >= expectedGap * 0.9 ? 0 : 1;
  }
}
