package io.ccm4j.app.bench;

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
      "Inject faults into a manager under load, each on a control plane of its own: kube-apiserver",
      "and etcd crash while N nodes initialise; the cloud fails 30% and hangs 5% of its calls; a",
      "flood reaches the serving port; a CNI marks every node NetworkUnavailable while routes run."
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
    List<String[]> rows = new ArrayList<>();
    boolean ok = true;
    for (String scenario : scenarios) {
      switch (scenario) {
        case "kube-apiserver", "etcd" -> {
          var crash = benchmark(2 * nodes).crash(scenario, Duration.ofSeconds(5));
          ok &= crash.ok();
          rows.add(
              row(
                  scenario + " killed (SIGKILL), back after",
                  "%.1f s".formatted(crash.outage().toMillis() / 1000.0),
                  "%d nodes, %d initialised before the kill"
                      .formatted(crash.nodes(), crash.initialisedBefore())));
          rows.add(
              row(
                  "  all initialised after it was back",
                  "%.1f s".formatted(crash.recoveredSeconds()),
                  "%d / %d initialised, %d without provider ID, %.1f s in all"
                      .formatted(
                          crash.initialised(),
                          crash.nodes(),
                          crash.withoutProviderId(),
                          crash.totalSeconds())));
          rows.add(
              row(
                  "  InstanceMetadata calls per node",
                  "%.3f".formatted(crash.metadataCalls() / (double) crash.nodes()),
                  "%.0f retries; Lease kept: %s".formatted(crash.retries(), crash.leaseKept())));
        }
        case "cloud" -> {
          var faults = benchmark(nodes).cloudFaults(20, 0.3, 0.05, Duration.ofSeconds(2));
          ok &= faults.ok();
          rows.add(
              row(
                  "cloud fails 30%, hangs 5% (2 s): converged",
                  "%.1f s".formatted(faults.convergedSeconds()),
                  "%d NotReady nodes initialised, %d load balancers, %d routes"
                      .formatted(
                          faults.initialised(), faults.loadBalancers(), faults.routesThen())));
          rows.add(
              row(
                  "  15 s later",
                  faults.ok() ? "nothing lost" : "LOST",
                  "%d nodes, %d routes; %d calls, %d failed, %d hung; Lease kept: %s"
                      .formatted(
                          faults.nodesLeft(),
                          faults.routesAfter(),
                          faults.calls(),
                          faults.failed(),
                          faults.hung(),
                          faults.leaseKept())));
        }
        case "flood" -> {
          var flood = benchmark(nodes).flood(32, Duration.ofSeconds(60));
          ok &= flood.ok();
          rows.add(
              row(
                  "flood (32 clients, random paths and tokens)",
                  "%.0f/s".formatted(flood.requests() / flood.floodSeconds()),
                  "%.0f s, answers %s".formatted(flood.floodSeconds(), flood.answers())));
          rows.add(
              row(
                  "  %d nodes initialised, quiet / flooded".formatted(flood.nodes()),
                  "%.2f / %.2f s".formatted(flood.quietSeconds(), flood.floodedSeconds()),
                  "target: within 10%%: %s"
                      .formatted(flood.floodedSeconds() <= flood.quietSeconds() * 1.1)));
          rows.add(
              row(
                  "  reviews sent to the API server",
                  "%.0f".formatted(flood.reviews()),
                  "bound %.0f; Lease kept: %s".formatted(flood.reviewBound(), flood.leaseKept())));
        }
        case "cni" -> {
          var cni = benchmark(nodes).cniConditions();
          ok &= cni.ok();
          rows.add(
              row(
                  "CNI marks %d nodes NetworkUnavailable".formatted(cni.nodes()),
                  "%.1f s".formatted(cni.routedSeconds()),
                  "until %d / %d written back by the route controller; Lease kept: %s"
                      .formatted(cni.routed(), cni.nodes(), cni.leaseKept())));
        }
        default -> throw new IllegalStateException(scenario);
      }
    }
    System.out.println();
    System.out.printf(
        "faults: kube-api-qps %s, %d workers, leader election 15s/10s/2s, clients per concern%n",
        kubeApiQps, workers);
    String format = "| %-46s | %-14s | %s |%n";
    System.out.printf(format, "fault", "figure", "detail");
    System.out.printf(format, "-".repeat(46), "-".repeat(14), "---");
    rows.forEach(row -> System.out.printf(format, (Object[]) row));
    System.out.println(ok ? "targets met" : "TARGET MISSED");
    return ok ? 0 : 1;
  }

  private FaultsBenchmark benchmark(int nodes) {
    return new FaultsBenchmark(
        new FaultsBenchmark.Settings(nodes, kubeApiQps, workers, timeout), System.out);
  }

  private static String[] row(String fault, String figure, String detail) {
    return new String[] {fault, figure, detail};
  }
}
