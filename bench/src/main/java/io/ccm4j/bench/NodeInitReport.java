package io.ccm4j.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ccm4j.bench.NodeInitBenchmark.Peer;
import io.ccm4j.bench.NodeInitBenchmark.Result;
import io.ccm4j.bench.NodeInitBenchmark.Run;
import io.ccm4j.bench.NodeInitBenchmark.Settings;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/** How a node-init {@link Result} prints itself: the table and the targets, and its JSON. */
final class NodeInitReport {

  private NodeInitReport() {}

  /** The table: a row per figure, a column per peer (the medians of its runs); then the targets. */
  static void print(Result result, PrintStream out) {
    List<Run> runs = result.medians();
    int count = result.settings().runs();
    StringBuilder header =
        new StringBuilder(
            "| %-46s |"
                .formatted(
                    "Kubernetes "
                        + result.kubernetesVersion()
                        + (count > 1 ? ", median of %d runs".formatted(count) : "")));
    StringBuilder rule = new StringBuilder("|" + "-".repeat(48) + "|");
    for (Run run : runs) {
      header.append(" %18s |".formatted(run.peer().id()));
      rule.append("-".repeat(20)).append("|");
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
    row(out, runs, "CPU of the API server, same run (s)", r -> fixed(r.apiServerCpuSeconds(), 1));
    row(out, runs, "CPU of etcd, same run (s)", r -> fixed(r.etcdCpuSeconds(), 1));
    row(out, runs, "peak RSS of the process (MiB)", r -> fixed(r.peakRssMiB(), 0));
    row(out, runs, "peak heap (MiB)", r -> fixed(r.peakHeapMiB(), 0));
    row(out, runs, "node writes per node", r -> fixed(r.nodeWritesPerNode(), 2));
    row(out, runs, "event writes per node", r -> fixed(r.eventWritesPerNode(), 2));
    row(out, runs, "API requests per node, all kinds", r -> fixed(r.apiRequestsPerNodeTotal(), 2));
    row(out, runs, "cloud calls per node", r -> fixed(r.cloudCallsPerNode(), 2));
    row(
        out,
        runs,
        "process start to first node initialised (s)",
        r -> fixed(r.startToFirstNodeSeconds(), 2));
    out.println();
    runs.forEach(r -> out.printf("%s: %s; %s%n", r.peer().id(), r.peer().title(), r.note()));
    out.println(
        "API requests per node, by kind (the harness's own registrations and watch alike in every run):");
    runs.forEach(r -> out.printf("  %s: %s%n", r.peer().id(), byKind(r)));
    out.println(
        "CPU: from the first registration until the API server has taken no node or event write"
            + " for 1.5 s after the last untaint (the peer's event queue drained); the API"
            + " server's includes this harness's own watch and metrics reads, alike in every run.");
    Optional<Run> ccm4j = result.median(Peer.CCM4J);
    if (ccm4j.isEmpty()) {
      return;
    }
    Run own = ccm4j.get();
    out.println();
    out.println("Targets:");
    result
        .median(Peer.UPSTREAM_TUNED)
        .ifPresent(
            upstream -> {
              target(
                  out,
                  "wall: ccm4j <= upstream CCM tuned",
                  own.wallSeconds() <= upstream.wallSeconds(),
                  "%.2f s against %.2f s".formatted(own.wallSeconds(), upstream.wallSeconds()));
              target(
                  out,
                  "CPU per node: ccm4j <= upstream CCM tuned",
                  own.cpuMillisPerNode() <= upstream.cpuMillisPerNode(),
                  "%.2f ms against %.2f ms"
                      .formatted(own.cpuMillisPerNode(), upstream.cpuMillisPerNode()));
              target(
                  out,
                  "peak RSS: ccm4j <= upstream CCM tuned",
                  own.peakRssMiB() <= upstream.peakRssMiB(),
                  "%.0f MiB against %.0f MiB".formatted(own.peakRssMiB(), upstream.peakRssMiB()));
              target(
                  out,
                  "API server CPU: in ccm4j's run <= in upstream's",
                  own.apiServerCpuSeconds() <= upstream.apiServerCpuSeconds(),
                  "%.1f s against %.1f s"
                      .formatted(own.apiServerCpuSeconds(), upstream.apiServerCpuSeconds()));
            });
    if (result.settings().nodes() <= 1000) {
      target(
          out,
          "peak RSS: ccm4j <= 100 MiB at up to 1,000 nodes",
          own.peakRssMiB() <= 100,
          "%.0f MiB".formatted(own.peakRssMiB()));
    }
    for (Run run : runs) {
      if (run.peer().isCcm4j()) {
        target(
            out,
            "start to first node: %s <= 0.5 s".formatted(run.peer().id()),
            run.startToFirstNodeSeconds() <= 0.5,
            "%.2f s".formatted(run.startToFirstNodeSeconds()));
      }
    }
    result
        .profile()
        .ifPresentOrElse(
            profile -> profile.print(out),
            () -> out.println("  (--profile shows where ccm4j's CPU and memory go)"));
  }

  /** The kinds of request a run made at least 0.01 of per node, the most first. */
  static String byKind(Run run) {
    String kinds =
        run.apiRequestsPerNode().entrySet().stream()
            .filter(kind -> kind.getValue() >= 0.005)
            .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
            .map(kind -> "%s %.2f".formatted(kind.getKey(), kind.getValue()))
            .collect(Collectors.joining(", "));
    return kinds.isEmpty() ? "-" : kinds;
  }

  private static void row(
      PrintStream out, List<Run> runs, String figure, Function<Run, String> value) {
    StringBuilder line = new StringBuilder("| %-46s |".formatted(figure));
    runs.forEach(run -> line.append(" %18s |".formatted(value.apply(run))));
    out.println(line);
  }

  private static void target(PrintStream out, String what, boolean met, String measured) {
    out.printf("  %-50s %-6s %s%n", what, met ? "met" : "MISSED", measured);
  }

  private static String fixed(double value, int decimals) {
    return Double.isNaN(value) ? "-" : ("%." + decimals + "f").formatted(value);
  }

  static String toJson(Result result) throws IOException {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("benchmark", "node-init");
    root.put("kubernetesVersion", result.kubernetesVersion());
    root.put("cores", Runtime.getRuntime().availableProcessors());
    Settings settings = result.settings();
    ObjectNode settingsNode = root.putObject("settings");
    settingsNode.put("nodes", settings.nodes());
    settingsNode.put("cloudLatencyMs", settings.cloudLatency().toMillis());
    settingsNode.put("cloudQps", settings.cloudQps());
    settingsNode.put("workers", settings.workers());
    settingsNode.put("kubeApiQps", settings.kubeApiQps());
    settingsNode.put("heap", settings.heap());
    settingsNode.put("runs", settings.runs());
    settings.jvmOptions().forEach(settingsNode.putArray("jvmOptions")::add);
    settings.ccm4jFlags().forEach(settingsNode.putArray("ccm4jFlags")::add);
    ObjectNode peers = root.putObject("peers");
    for (Run median : result.medians()) {
      ObjectNode peer = peers.putObject(median.peer().id());
      peer.put("title", median.peer().title());
      peer.put("runs", result.runs().stream().filter(r -> r.peer() == median.peer()).count());
      ObjectNode node = peer.putObject("median");
      node.put("initialised", median.initialised());
      put(node, "wallSeconds", median.wallSeconds());
      put(node, "cpuMsPerNode", median.cpuMillisPerNode());
      put(node, "peakRssMiB", median.peakRssMiB());
      put(node, "startToFirstNodeSeconds", median.startToFirstNodeSeconds());
      put(node, "apiServerCpuSeconds", median.apiServerCpuSeconds());
      put(node, "etcdCpuSeconds", median.etcdCpuSeconds());
      put(node, "cpuSeconds", median.cpuSeconds());
      put(node, "ratioToFloor", result.ratioToFloor(median));
      put(node, "p50DelaySeconds", median.p50DelaySeconds());
      put(node, "p99DelaySeconds", median.p99DelaySeconds());
      put(node, "peakHeapMiB", median.peakHeapMiB());
      put(node, "nodeWritesPerNode", median.nodeWritesPerNode());
      put(node, "eventWritesPerNode", median.eventWritesPerNode());
      put(node, "apiRequestsPerNode", median.apiRequestsPerNodeTotal());
      ObjectNode kinds = node.putObject("apiRequestsPerNodeByKind");
      median.apiRequestsPerNode().forEach((kind, perNode) -> put(kinds, kind, perNode));
      put(node, "cloudCallsPerNode", median.cloudCallsPerNode());
    }
    ArrayNode runs = root.putArray("runs");
    for (Run run : result.runs()) {
      ObjectNode node = runs.addObject();
      node.put("peer", run.peer().id());
      node.put("run", run.round() + 1);
      node.put("initialised", run.initialised());
      put(node, "wallSeconds", run.wallSeconds());
      put(node, "ratioToFloor", result.ratioToFloor(run));
      put(node, "nodesPerSecond", run.nodesPerSecond());
      put(node, "p50DelaySeconds", run.p50DelaySeconds());
      put(node, "p99DelaySeconds", run.p99DelaySeconds());
      put(node, "cpuSeconds", run.cpuSeconds());
      put(node, "cpuMillisPerNode", run.cpuMillisPerNode());
      put(node, "apiServerCpuSeconds", run.apiServerCpuSeconds());
      put(node, "etcdCpuSeconds", run.etcdCpuSeconds());
      put(node, "peakRssMiB", run.peakRssMiB());
      put(node, "peakHeapMiB", run.peakHeapMiB());
      put(node, "nodeWritesPerNode", run.nodeWritesPerNode());
      put(node, "eventWritesPerNode", run.eventWritesPerNode());
      put(node, "apiRequestsPerNode", run.apiRequestsPerNodeTotal());
      ObjectNode kinds = node.putObject("apiRequestsPerNodeByKind");
      run.apiRequestsPerNode().forEach((kind, perNode) -> put(kinds, kind, perNode));
      put(node, "cloudCallsPerNode", run.cloudCallsPerNode());
      put(node, "startToFirstNodeSeconds", run.startToFirstNodeSeconds());
      node.put("note", run.note());
    }
    result
        .profile()
        .ifPresent(
            profile -> {
              ObjectNode node = root.putObject("ccm4jProfile");
              ObjectNode threads = node.putObject("threadCpuSeconds");
              profile.threadCpu().forEach(threads::put);
              node.put("samples", profile.samples());
              ObjectNode code = node.putObject("codeSamplePercent");
              profile.code().forEach(share -> code.put(share.what(), share.percent()));
              ObjectNode memory = node.putObject("committedMiB");
              profile.memory().forEach(area -> memory.put(area.what(), area.committedMiB()));
            });
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
