package io.ccm4j.bench;

import io.ccm4j.app.options.GoDurationConverter;
import io.ccm4j.bench.NodeInitBenchmark.Peer;
import io.ccm4j.bench.SteadyStateReport.Run;
import io.ccm4j.bench.SteadyStateReport.Settings;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ccm4j bench steady-state}: {@link SteadyStateBenchmark}'s peers side by side. */
@Command(
    name = "steady-state",
    description = {
      "What a cluster costs the cloud's API quota while nothing changes, and under churn: each "
          + "peer (the upstream cloud-controller-manager tuned like ccm4j, and ccm4j) on a fresh "
          + "control plane with the same sim cloud (latency, an account-wide rate limit that "
          + "throttles), N initialised nodes and S LoadBalancer Services, the same address-sync "
          + "period; idle for --duration, then an address changed in the cloud, nodes joining and "
          + "leaving. Prints one table and writes it as JSON. The Go peer is built once from "
          + "bench/peers (needs Go and the module proxy)."
    },
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class SteadyStateCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--nodes",
      paramLabel = "<n>",
      defaultValue = "5000",
      description = "Initialised nodes. Default: ${DEFAULT-VALUE}.")
  int nodes;

  @Option(
      names = "--services",
      paramLabel = "<n>",
      defaultValue = "50",
      description = "LoadBalancer Services. Default: ${DEFAULT-VALUE}.")
  int services;

  @Option(
      names = "--churn-nodes",
      paramLabel = "<n>",
      defaultValue = "10",
      description = "Nodes that join, then leave, in the churn phase. Default: ${DEFAULT-VALUE}.")
  int churnNodes;

  @Option(
      names = "--peers",
      paramLabel = "<peer>",
      split = ",",
      defaultValue = "upstream-tuned,ccm4j",
      description =
          "Which to run, in this order, of upstream, upstream-tuned, ccm4j. Default: "
              + "${DEFAULT-VALUE}.")
  List<String> peers;

  @Option(
      names = "--duration",
      paramLabel = "<duration>",
      defaultValue = "5m",
      converter = GoDurationConverter.class,
      description = "How long the idle window lasts. Default: ${DEFAULT-VALUE}.")
  Duration duration;

  @Option(
      names = "--node-status-update-frequency",
      paramLabel = "<duration>",
      defaultValue = "30s",
      converter = GoDurationConverter.class,
      description =
          "The address-sync period of both peers (upstream's default is 5m; shortened so that a"
              + " run sees several passes). Default: ${DEFAULT-VALUE}.")
  Duration addressSyncPeriod;

  @Option(
      names = "--cloud-latency",
      paramLabel = "<duration>",
      defaultValue = "50ms",
      converter = GoDurationConverter.class,
      description = "Latency of every sim cloud call. Default: ${DEFAULT-VALUE}.")
  Duration cloudLatency;

  @Option(
      names = "--account-qps",
      paramLabel = "<qps>",
      defaultValue = "20",
      description =
          "The sim cloud's account-wide rate limit (calls beyond it are throttled), also ccm4j's"
              + " --cloud-api-qps. Default: ${DEFAULT-VALUE}.")
  double accountQps;

  @Option(
      names = "--account-burst",
      paramLabel = "<n>",
      defaultValue = "100",
      description =
          "The account limit's burst, also ccm4j's --cloud-api-burst. Default: "
              + "${DEFAULT-VALUE}.")
  int accountBurst;

  @Option(
      names = "--workers",
      paramLabel = "<n>",
      defaultValue = "64",
      description = "--concurrent-node-syncs of both peers. Default: ${DEFAULT-VALUE}.")
  int workers;

  @Option(
      names = "--kube-api-qps",
      paramLabel = "<qps>",
      defaultValue = "5000",
      description = "--kube-api-qps (and burst) of both peers. Default: ${DEFAULT-VALUE}.")
  double kubeApiQps;

  @Option(
      names = "--heap",
      converter = HeapSizeConverter.class,
      paramLabel = "<size>",
      defaultValue = "256m",
      description = "ccm4j's -Xmx. Default: ${DEFAULT-VALUE}.")
  String heap;

  @Option(
      names = "--timeout",
      paramLabel = "<duration>",
      defaultValue = "30m",
      converter = GoDurationConverter.class,
      description =
          "Give up on a peer's initialisation or load balancers after this long. Default:"
              + " ${DEFAULT-VALUE}.")
  Duration timeout;

  @Option(
      names = "--json",
      paramLabel = "<file>",
      description =
          "Where to write the results as JSON. Default: bench-results/steady-state-<time>.json.")
  Path json;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1 || services < 0 || churnNodes < 0 || workers < 1 || kubeApiQps <= 0) {
      throw new ParameterException(
          spec.commandLine(),
          "--nodes and --workers must be at least 1, --kube-api-qps positive, --services and"
              + " --churn-nodes not negative");
    }
    if (accountQps <= 0 || accountBurst < 1) {
      throw new ParameterException(
          spec.commandLine(), "--account-qps must be positive and --account-burst at least 1");
    }
    if (duration.isNegative() || duration.isZero() || addressSyncPeriod.toSeconds() < 1) {
      throw new ParameterException(
          spec.commandLine(),
          "--duration must be positive and --node-status-update-frequency at least 1s");
    }
    List<Peer> selected = new ArrayList<>();
    for (String id : peers) {
      Peer peer =
          Peer.byId(id.strip())
              .filter(p -> p != Peer.GO_FLOOR)
              .orElseThrow(
                  () ->
                      new ParameterException(
                          spec.commandLine(),
                          "--peers: unknown peer \"%s\"; known: upstream, upstream-tuned, ccm4j"
                              .formatted(id)));
      selected.add(peer);
    }
    Settings settings =
        new Settings(
            nodes,
            services,
            churnNodes,
            cloudLatency,
            accountQps,
            accountBurst,
            addressSyncPeriod,
            duration,
            workers,
            kubeApiQps,
            heap,
            timeout,
            selected);
    PrintStream out = System.out;
    out.printf(
        "steady-state: %d nodes, %d LoadBalancer Services, cloud latency %d ms, account limit %s"
            + " calls/s burst %d, address-sync period %d s, idle %d s, churn %d nodes, %d cores%n",
        nodes,
        services,
        cloudLatency.toMillis(),
        accountQps,
        accountBurst,
        addressSyncPeriod.toSeconds(),
        duration.toSeconds(),
        churnNodes,
        Runtime.getRuntime().availableProcessors());
    SteadyStateBenchmark benchmark = new SteadyStateBenchmark(settings, out);
    List<Run> runs = benchmark.run();
    out.println();
    SteadyStateReport.print(settings, benchmark.kubernetesVersion(), runs, out);
    Path file =
        json != null
            ? json
            : Path.of(
                "bench-results",
                "steady-state-%s.json"
                    .formatted(
                        LocalDateTime.now()
                            .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))));
    if (file.toAbsolutePath().getParent() != null) {
      Files.createDirectories(file.toAbsolutePath().getParent());
    }
    Files.writeString(
        file, SteadyStateReport.toJson(settings, benchmark.kubernetesVersion(), runs));
    out.printf("%nJSON: %s%n", file.toAbsolutePath());
    return 0;
  }
}
