package io.ccm4j.bench;

import io.ccm4j.app.options.GoDurationConverter;
import io.ccm4j.bench.NodeInitBenchmark.Peer;
import io.ccm4j.bench.NodeInitBenchmark.Result;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ccm4j bench node-init}: {@link NodeInitBenchmark}'s peers side by side, as a table. */
@Command(
    name = "node-init",
    description = {
      "Register N nodes at once and time how long each peer takes to initialise them all, each "
          + "on a fresh control plane with the same sim cloud and the same kubelet-shaped Nodes: a "
          + "Go floor (client-go, protobuf, a Node informer, exactly the writes a CCM does, with "
          + "and without its events), the upstream cloud-controller-manager of the control plane's "
          + "release (at its defaults and tuned like ccm4j) and ccm4j (its own JVM). Beside each "
          + "peer's CPU, the API server's and etcd's during its run. With --runs, the peers' order "
          + "moves each run and the table holds medians. Prints one table and writes it as JSON. "
          + "The Go peers are built once from bench/peers (needs Go and the module proxy)."
    },
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class NodeInitCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--nodes",
      paramLabel = "<n>",
      defaultValue = "1000",
      description = "Nodes to register. Default: ${DEFAULT-VALUE}.")
  int nodes;

  @Option(
      names = "--peers",
      paramLabel = "<peer>",
      split = ",",
      defaultValue = "go-floor,go-floor-no-events,upstream,upstream-tuned,ccm4j",
      completionCandidates = PeerIds.class,
      description =
          "Which to run, in this order (the first run), of ${COMPLETION-CANDIDATES}; ccm4j-image"
              + " runs the container image the build makes (./mvnw package without"
              + " -Djib.skip). Default: ${DEFAULT-VALUE}.")
  List<String> peers;

  /** Every peer's name, for the help. */
  static final class PeerIds implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return ids().iterator();
    }
  }

  private static List<String> ids() {
    return Arrays.stream(Peer.values()).map(Peer::id).toList();
  }

  @Option(
      names = "--runs",
      paramLabel = "<n>",
      defaultValue = "1",
      description =
          "Runs of every peer in one sitting, the peers' order rotated by one each run; the table"
              + " and the JSON's \"median\" hold each figure's median. Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(
      names = "--cloud-latency",
      paramLabel = "<duration>",
      defaultValue = "50ms",
      converter = GoDurationConverter.class,
      description = "Latency of every sim cloud call. Default: ${DEFAULT-VALUE}.")
  Duration cloudLatency;

  @Option(
      names = "--cloud-qps",
      paramLabel = "<qps>",
      defaultValue = "0",
      description =
          "The sim cloud's API rate limit, also given to ccm4j as --cloud-api-qps; 0 for none."
              + " Default: ${DEFAULT-VALUE}.")
  double cloudQps;

  @Option(
      names = "--workers",
      paramLabel = "<n>",
      defaultValue = "64",
      description =
          "--concurrent-node-syncs of ccm4j and of the tuned upstream CCM, and the floor's"
              + " parallelism. Default: ${DEFAULT-VALUE}.")
  int workers;

  @Option(
      names = "--kube-api-qps",
      paramLabel = "<qps>",
      defaultValue = "5000",
      description =
          "--kube-api-qps (and burst) of ccm4j and of the tuned upstream CCM, and the floor's."
              + " Default: ${DEFAULT-VALUE}.")
  double kubeApiQps;

  @Option(
      names = "--heap",
      converter = HeapSizeConverter.class,
      paramLabel = "<size>",
      defaultValue = "256m",
      description = "ccm4j's -Xmx. Default: ${DEFAULT-VALUE}.")
  String heap;

  @Option(
      names = "--jvm-option",
      paramLabel = "<option>",
      description =
          "An extra JVM option for ccm4j (repeat for more), e.g. --jvm-option=-XX:+UseSerialGC.")
  List<String> jvmOptions = new ArrayList<>();

  @Option(
      names = "--ccm4j-flag",
      paramLabel = "<flag>",
      description =
          "An extra flag of ccm4j run (repeat for more), e.g."
              + " --ccm4j-flag=--kube-api-content-type=application/json.")
  List<String> ccm4jFlags = new ArrayList<>();

  @Option(
      names = "--timeout",
      paramLabel = "<duration>",
      defaultValue = "15m",
      converter = GoDurationConverter.class,
      description = "Give up on a peer after this long. Default: ${DEFAULT-VALUE}.")
  Duration timeout;

  @Option(
      names = "--json",
      paramLabel = "<file>",
      description =
          "Where to write the results as JSON. Default: bench-results/node-init-<time>.json.")
  Path json;

  @Option(
      names = "--profile",
      description =
          "Record ccm4j with the Java Flight Recorder and native memory tracking and print where "
              + "its"
              + " CPU and memory go (a little overhead: compare figures without it).")
  boolean profile;

  @Override
  public Integer call() throws Exception {
    if (nodes < 1 || workers < 1 || runs < 1 || kubeApiQps <= 0 || cloudQps < 0) {
      throw new ParameterException(
          spec.commandLine(),
          "--nodes, --workers, --runs and --kube-api-qps must be positive; --cloud-qps not"
              + " negative");
    }
    List<Peer> selected = new ArrayList<>();
    for (String id : peers) {
      selected.add(
          Peer.byId(id.strip())
              .orElseThrow(
                  () ->
                      new ParameterException(
                          spec.commandLine(),
                          "--peers: unknown peer \"%s\"; known: %s"
                              .formatted(id, String.join(", ", ids())))));
    }
    PrintStream out = System.out;
    out.printf(
        "node-init: %d nodes, %d run(s), cloud latency %d ms, cloud qps %s, %d workers,"
            + " kube-api-qps %s, heap %s, %d cores%n",
        nodes,
        runs,
        cloudLatency.toMillis(),
        cloudQps > 0 ? String.valueOf(cloudQps) : "unlimited",
        workers,
        kubeApiQps,
        heap,
        Runtime.getRuntime().availableProcessors());
    Result result =
        new NodeInitBenchmark(
                new NodeInitBenchmark.Settings(
                    nodes,
                    cloudLatency,
                    cloudQps,
                    workers,
                    kubeApiQps,
                    heap,
                    jvmOptions,
                    ccm4jFlags,
                    timeout,
                    selected,
                    profile,
                    runs),
                out)
            .run();
    out.println();
    result.print(out);
    Path file =
        json != null
            ? json
            : Path.of(
                "bench-results",
                "node-init-%s.json"
                    .formatted(
                        LocalDateTime.now()
                            .format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))));
    if (file.toAbsolutePath().getParent() != null) {
      Files.createDirectories(file.toAbsolutePath().getParent());
    }
    Files.writeString(file, result.toJson());
    out.printf("%nJSON: %s%n", file.toAbsolutePath());
    return result.allInitialised() ? 0 : 1;
  }
}
