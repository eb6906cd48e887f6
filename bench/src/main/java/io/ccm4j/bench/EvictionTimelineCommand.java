package io.ccm4j.bench;

import io.ccm4j.app.options.GoDurationConverter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ccm4j bench eviction-timeline}. */
@Command(
    name = "eviction-timeline",
    description = {
      "A cluster of 3 zones loses one: when was each of its nodes tainted NoExecute and each "
          + "pod marked for deletion, and do the taint times keep the zone's configured rate?"
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
    return result.print(System.out) ? 0 : 1;
  }
}
