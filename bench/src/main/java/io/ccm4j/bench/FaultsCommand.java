package io.ccm4j.bench;

import io.ccm4j.app.options.GoDurationConverter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ccm4j bench faults}: {@link FaultsBenchmark}'s scenarios at full size, as a table. */
@Command(
    name = "faults",
    description = {
      "Inject faults into a manager under load, each on a control plane of its own: "
          + "kube-apiserver and etcd crash while N nodes initialise; the cloud fails 30% and hangs 5% "
          + "of its calls; a flood reaches the serving port; a CNI marks every node "
          + "NetworkUnavailable while routes run."
    },
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class FaultsCommand implements Callable<Integer> {

  private static final List<String> SCENARIOS =
      List.of("kube-apiserver", "etcd", "cloud", "flood", "cni");

  @Spec CommandSpec spec;

  @Option(
      names = "--nodes",
      paramLabel = "<n>",
      defaultValue = "1000",
      description =
          "Nodes per scenario (the crashes use twice as many). Default: ${DEFAULT-VALUE}.")
  int nodes;

  @Option(
      names = "--scenarios",
      paramLabel = "<name>",
      split = ",",
      defaultValue = "kube-apiserver,etcd,cloud,flood,cni",
      description = "Which to run, of ${DEFAULT-VALUE}.")
  List<String> scenarios;

  @Option(
      names = "--kube-api-qps",
      paramLabel = "<qps>",
      defaultValue = "100",
      description =
          "The manager's --kube-api-qps (burst 1.5 times that). Default: ${DEFAULT-VALUE}.")
  double kubeApiQps;

  @Option(
      names = "--workers",
      paramLabel = "<n>",
      defaultValue = "10",
      description =
          "The manager's --concurrent-node-syncs and --concurrent-service-syncs."
              + " Default: ${DEFAULT-VALUE}.")
  int workers;

  @Option(
      names = "--timeout",
      paramLabel = "<duration>",
      defaultValue = "10m",
      converter = GoDurationConverter.class,
      description = "Give up on a phase after this long. Default: ${DEFAULT-VALUE}.")
  Duration timeout;

  @Override
  public Integer call() throws Exception {
    if (nodes < 3 || nodes > 20000 || kubeApiQps <= 0 || workers < 1) {
      throw new ParameterException(
          spec.commandLine(), "--nodes must be 3..20000, --kube-api-qps and --workers positive");
    }
    for (String scenario : scenarios) {
      if (!SCENARIOS.contains(scenario)) {
        throw new ParameterException(
            spec.commandLine(),
            "--scenarios: unknown scenario \"%s\"; known: %s"
                .formatted(scenario, String.join(", ", SCENARIOS)));
      }
    }
    List<FaultOutcome> outcomes = new ArrayList<>();
    for (String scenario : scenarios) {
      outcomes.add(
          switch (scenario) {
            case "kube-apiserver", "etcd" ->
                benchmark(2 * nodes).crash(scenario, Duration.ofSeconds(5));
            case "cloud" -> benchmark(nodes).cloudFaults(20, 0.3, 0.05, Duration.ofSeconds(2));
            case "flood" -> benchmark(nodes).flood(32, Duration.ofSeconds(60));
            case "cni" -> benchmark(nodes).cniConditions();
            default -> throw new IllegalStateException(scenario);
          });
    }
    return FaultOutcome.print(System.out, kubeApiQps, workers, outcomes) ? 0 : 1;
  }

  private FaultsBenchmark.Settings settings(int nodes) {
    // upstream's default route reconciliation period
    return new FaultsBenchmark.Settings(
        nodes, kubeApiQps, workers, timeout, Duration.ofSeconds(10));
  }

  private FaultsBenchmark benchmark(int nodes) {
    return new FaultsBenchmark(settings(nodes), System.out);
  }
}
