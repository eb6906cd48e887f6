package io.ccm4j.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ccm4j.app.bench.NodeInitBenchmark.Peer;
import io.ccm4j.app.bench.NodeInitBenchmark.Result;
import io.ccm4j.app.bench.NodeInitBenchmark.Run;
import io.ccm4j.app.options.GoDurationConverter;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ccm4j bench node-init}: {@link NodeInitBenchmark}'s peers side by side, as a table. */
@Command(
    name = "node-init",
    description = {
      "Register N nodes at once and time how long each peer takes to initialise them all, each on a",
      "fresh control plane with the same sim cloud: a Go floor (client-go, protobuf, exactly the",
      "writes a CCM does), the upstream cloud-controller-manager of the control plane's release (at",
      "its defaults and tuned like ccm4j) and ccm4j (its own JVM). Prints one table and writes it",
      "as JSON. The Go peers are built once from bench/peers (needs Go and the module proxy)."
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
      defaultValue = "go-floor,upstream,upstream-tuned,ccm4j",
      description = "Which to run, in this order, of ${DEFAULT-VALUE}.")
  List<String> peers;

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

  @Override
  public Integer call() throws Exception {
    if (nodes < 1 || workers < 1 || kubeApiQps <= 0 || cloudQps < 0) {
      throw new ParameterException(
          spec.commandLine(),
          "--nodes, --workers and --kube-api-qps must be positive; --cloud-qps not negative");
    }
    List<Peer> selected = new ArrayList<>();
    for (String id : peers) {
      selected.add(
          Peer.byId(id.strip())
              .orElseThrow(
                  () ->
                      new ParameterException(
                          spec.commandLine(),
                          "--peers: unknown peer \"%s\"; known: go-floor, upstream, upstream-tuned, ccm4j"
                              .formatted(id))));
    }
    PrintStream out = System.out;
    out.printf(
        "node-init: %d nodes, cloud latency %d ms, cloud qps %s, %d workers, kube-api-qps %s, heap %s,"
            + " %d cores%n",
        nodes,
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
                    timeout,
                    selected),
                out)
            .run();
    out.println();
    print(result, out);
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
    Files.writeString(file, toJson(result));
    out.printf("%nJSON: %s%n", file.toAbsolutePath());
    return result.allInitialised() ? 0 : 1;
  }

  /** The table: a row per figure, a column per peer; then the targets. */
  static void print(Result result, PrintStream out) {
    List<Run> runs = result.runs();
    StringBuilder header =
        new StringBuilder("| %-46s |".formatted("Kubernetes " + result.kubernetesVersion()));
    StringBuilder rule = new StringBuilder("|" + "-".repeat(48) + "|");
    for (Run run : runs) {
      header.append(" %16s |".formatted(run.peer().id()));
      rule.append("-".repeat(18)).append("|");
    }
    out.println(header);
    out.println(rule);
    row(out, runs, "nodes initialised", r -> r.initialised() + "/" + result.settings().nodes());
    row(out, runs, "wall, first registration to last untaint (s)", r -> fixed(r.wallSeconds(), 2));
    row(out, runs, "wall / Go floor", r -> fixed(result.ratioToFloor(r), 2));
    row(out, runs, "nodes/s", r -> fixed(r.nodesPerSecond(), 1));
    row(out, runs, "untaint delay p50 (s)", r -> fixed(r.p50DelaySeconds(), 2));
    row(out, runs, "untaint delay p99 (s)", r -> fixed(r.p99DelaySeconds(), 2));
    row(out, runs, "CPU of the peer, whole run (s)", r -> fixed(r.cpuSeconds(), 1));
    row(out, runs, "CPU per node (ms)", r -> fixed(r.cpuMillisPerNode(), 2));
    row(out, runs, "peak RSS of the process (MiB)", r -> fixed(r.peakRssMiB(), 0));
    row(out, runs, "peak heap (MiB)", r -> fixed(r.peakHeapMiB(), 0));
    row(out, runs, "node writes per node", r -> fixed(r.nodeWritesPerNode(), 2));
    row(out, runs, "event writes per node", r -> fixed(r.eventWritesPerNode(), 2));
    row(out, runs, "cloud calls per node", r -> fixed(r.cloudCallsPerNode(), 2));
    row(
        out,
        runs,
        "process start to first node initialised (s)",
        r -> fixed(r.startToFirstNodeSeconds(), 2));
    out.println();
    runs.forEach(r -> out.printf("%s: %s; %s%n", r.peer().id(), r.peer().title(), r.note()));
    Optional<Run> ccm4j = result.run(Peer.CCM4J);
    if (ccm4j.isEmpty()) {
      return;
    }
    Run own = ccm4j.get();
    out.println();
    out.println("Targets (issue 13):");
    result
        .run(Peer.GO_FLOOR)
        .ifPresent(
            floor ->
                target(
                    out,
                    "ccm4j wall <= 1.5 x the Go floor",
                    result.ratioToFloor(own) <= 1.5,
                    "%.2f x".formatted(result.ratioToFloor(own))));
    result
        .run(Peer.UPSTREAM_TUNED)
        .ifPresent(
            upstream ->
                target(
                    out,
                    "ccm4j CPU per node <= the tuned upstream CCM's",
                    own.cpuMillisPerNode() <= upstream.cpuMillisPerNode(),
                    "%.2f ms against %.2f ms"
                        .formatted(own.cpuMillisPerNode(), upstream.cpuMillisPerNode())));
    int rssTarget = result.settings().nodes() <= 1000 ? 160 : 256;
    target(
        out,
        "ccm4j peak RSS <= %d MiB".formatted(rssTarget),
        own.peakRssMiB() <= rssTarget,
        "%.0f MiB".formatted(own.peakRssMiB()));
    target(
        out,
        "ccm4j start to first node initialised <= 2 s",
        own.startToFirstNodeSeconds() <= 2,
        "%.2f s".formatted(own.startToFirstNodeSeconds()));
  }

  private static void row(
      PrintStream out, List<Run> runs, String figure, Function<Run, String> value) {
    StringBuilder line = new StringBuilder("| %-46s |".formatted(figure));
    runs.forEach(run -> line.append(" %16s |".formatted(value.apply(run))));
    out.println(line);
  }

  private static void target(PrintStream out, String what, boolean met, String measured) {
    out.printf("  %-48s %-6s %s%n", what, met ? "met" : "MISSED", measured);
  }

  private static String fixed(double value, int decimals) {
    return Double.isNaN(value) ? "-" : ("%." + decimals + "f").formatted(value);
  }

  static String toJson(Result result) throws Exception {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("benchmark", "node-init");
    root.put("kubernetesVersion", result.kubernetesVersion());
    root.put("cores", Runtime.getRuntime().availableProcessors());
    NodeInitBenchmark.Settings settings = result.settings();
    ObjectNode settingsNode = root.putObject("settings");
    settingsNode.put("nodes", settings.nodes());
    settingsNode.put("cloudLatencyMs", settings.cloudLatency().toMillis());
    settingsNode.put("cloudQps", settings.cloudQps());
    settingsNode.put("workers", settings.workers());
    settingsNode.put("kubeApiQps", settings.kubeApiQps());
    settingsNode.put("heap", settings.heap());
    settings.jvmOptions().forEach(settingsNode.putArray("jvmOptions")::add);
    ArrayNode runs = root.putArray("runs");
    for (Run run : result.runs()) {
      ObjectNode node = runs.addObject();
      node.put("peer", run.peer().id());
      node.put("initialised", run.initialised());
      put(node, "wallSeconds", run.wallSeconds());
      put(node, "ratioToFloor", result.ratioToFloor(run));
      put(node, "nodesPerSecond", run.nodesPerSecond());
      put(node, "p50DelaySeconds", run.p50DelaySeconds());
      put(node, "p99DelaySeconds", run.p99DelaySeconds());
      put(node, "cpuSeconds", run.cpuSeconds());
      put(node, "cpuMillisPerNode", run.cpuMillisPerNode());
      put(node, "peakRssMiB", run.peakRssMiB());
      put(node, "peakHeapMiB", run.peakHeapMiB());
      put(node, "nodeWritesPerNode", run.nodeWritesPerNode());
      put(node, "eventWritesPerNode", run.eventWritesPerNode());
      put(node, "cloudCallsPerNode", run.cloudCallsPerNode());
      put(node, "startToFirstNodeSeconds", run.startToFirstNodeSeconds());
      node.put("note", run.note());
    }
    return mapper.writeValueAsString(root);
  }

  /** JSON has no NaN: a figure a peer does not have is null. */
  private static void put(ObjectNode node, String field, double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      node.putNull(field);
    } else {
      node.put(field, value);
    }
  }
}
