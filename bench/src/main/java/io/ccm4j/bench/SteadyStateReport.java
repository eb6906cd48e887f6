package io.ccm4j.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ccm4j.bench.NodeInitBenchmark.Peer;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/** The steady-state benchmark's settings, one peer's figures, and how they print and serialise. */
final class SteadyStateReport {

  private SteadyStateReport() {}

  /** What to run. */
  record Settings(
      int nodes,
      int services,
      int churnNodes,
      Duration cloudLatency,
      double accountQps,
      int accountBurst,
      Duration addressSyncPeriod,
      Duration duration,
      int workers,
      double kubeApiQps,
      String heap,
      Duration timeout,
      List<Peer> peers) {}

  /**
   * One peer's figures. Idle figures are over the idle window ({@code idleSeconds}), with nothing
   * changing in the cluster or the cloud; NaN where a figure could not be taken.
   */
  record Run(
      Peer peer,
      double initialiseSeconds,
      double idleSeconds,
      long idleCloudCalls,
      long throttledCalls,
      Map<String, Long> idleCallsByMethod,
      Map<String, Double> idleApiWrites,
      List<Double> addressSyncPasses,
      double addressChangeToNodeSeconds,
      double loadBalancerCallsPerJoiningNode,
      double loadBalancerCallsPerLeavingNode,
      double idleCpuSeconds,
      String note) {

    double cloudCallsPerNodeHour(int nodes) {
      return SteadyStateFigures.perNodeHour(idleCloudCalls, nodes, idleSeconds);
    }

    double idleApiWritesPerHour() {
      return SteadyStateFigures.perHour(SteadyStateFigures.total(idleApiWrites), idleSeconds);
    }

    double addressSyncPassSeconds() {
      return SteadyStateFigures.median(addressSyncPasses);
    }

    double cpuSecondsPerHour() {
      return SteadyStateFigures.perHour(idleCpuSeconds, idleSeconds);
    }
  }

  /** The table, a row per figure and a column per peer, then the targets. */
  static void print(Settings settings, String kubernetesVersion, List<Run> runs, PrintStream out) {
    StringBuilder header =
        new StringBuilder("| %-50s |".formatted("Kubernetes " + kubernetesVersion));
    StringBuilder rule = new StringBuilder("|" + "-".repeat(52) + "|");
    for (Run run : runs) {
      header.append(" %16s |".formatted(run.peer().id()));
      rule.append("-".repeat(18)).append("|");
    }
    out.println(header);
    out.println(rule);
    int nodes = settings.nodes();
    row(
        out,
        runs,
        "manager start to N nodes initialised, limited (s)",
        r -> fixed(r.initialiseSeconds(), 1));
    row(
        out,
        runs,
        "cloud calls per node-hour, idle (throttled incl.)",
        r -> fixed(r.cloudCallsPerNodeHour(nodes), 2));
    row(out, runs, "throttled cloud calls, idle", r -> Long.toString(r.throttledCalls()));
    row(out, runs, "API writes per hour, idle", r -> fixed(r.idleApiWritesPerHour(), 0));
    row(out, runs, "one address-sync pass, median (s)", r -> fixed(r.addressSyncPassSeconds(), 2));
    row(out, runs, "address-sync passes seen", r -> Integer.toString(r.addressSyncPasses().size()));
    row(
        out,
        runs,
        "address changed in the cloud to the Node (s)",
        r -> fixed(r.addressChangeToNodeSeconds(), 1));
    row(
        out,
        runs,
        "load-balancer calls per node joining",
        r -> fixed(r.loadBalancerCallsPerJoiningNode(), 2));
    row(
        out,
        runs,
        "load-balancer calls per node leaving",
        r -> fixed(r.loadBalancerCallsPerLeavingNode(), 2));
    row(out, runs, "manager CPU per hour, idle (s)", r -> fixed(r.cpuSecondsPerHour(), 1));
    out.println();
    runs.forEach(
        r -> {
          out.printf("%s: %s; %s%n", r.peer().id(), r.peer().title(), r.note());
          out.printf("  idle cloud calls by method: %s%n", r.idleCallsByMethod());
          out.printf("  idle API writes: %s%n", r.idleApiWrites());
        });
    Optional<Run> own = runs.stream().filter(r -> r.peer() == Peer.CCM4J).findFirst();
    if (own.isEmpty()) {
      return;
    }
    Run ccm4j = own.get();
    out.println();
    out.println("Targets:");
    runs.stream()
        .filter(r -> r.peer() == Peer.UPSTREAM_TUNED)
        .findFirst()
        .ifPresent(
            upstream -> {
              double ratio =
                  ccm4j.cloudCallsPerNodeHour(nodes) / upstream.cloudCallsPerNodeHour(nodes);
              target(
                  out,
                  "ccm4j cloud calls per node-hour <= 1 % of the tuned upstream CCM's",
                  ratio <= 0.01,
                  "%.2f %%".formatted(ratio * 100));
              target(
                  out,
                  "ccm4j throttled calls 0 (the tuned upstream CCM's counted)",
                  ccm4j.throttledCalls() == 0,
                  "%d against %d".formatted(ccm4j.throttledCalls(), upstream.throttledCalls()));
            });
    target(
        out,
        "ccm4j one address-sync pass over %d nodes <= 10 s".formatted(nodes),
        ccm4j.addressSyncPassSeconds() <= 10,
        "%s s".formatted(fixed(ccm4j.addressSyncPassSeconds(), 2)));
    target(
        out,
        "ccm4j API writes per hour while nothing changes = 0",
        ccm4j.idleApiWritesPerHour() == 0,
        fixed(ccm4j.idleApiWritesPerHour(), 0));
  }

  private static void row(
      PrintStream out, List<Run> runs, String figure, Function<Run, String> value) {
    StringBuilder line = new StringBuilder("| %-50s |".formatted(figure));
    runs.forEach(run -> line.append(" %16s |".formatted(value.apply(run))));
    out.println(line);
  }

  private static void target(PrintStream out, String what, boolean met, String measured) {
    out.printf("  %-68s %-6s %s%n", what, met ? "met" : "MISSED", measured);
  }

  static String fixed(double value, int decimals) {
    return Double.isNaN(value) ? "-" : ("%." + decimals + "f").formatted(value);
  }

  /** The settings and, per peer, its figures under the keys the issue names. */
  static String toJson(Settings settings, String kubernetesVersion, List<Run> runs)
      throws IOException {
    ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    ObjectNode root = mapper.createObjectNode();
    root.put("benchmark", "steady-state");
    root.put("kubernetesVersion", kubernetesVersion);
    root.put("cores", Runtime.getRuntime().availableProcessors());
    ObjectNode s = root.putObject("settings");
    s.put("nodes", settings.nodes());
    s.put("services", settings.services());
    s.put("churnNodes", settings.churnNodes());
    s.put("cloudLatencyMs", settings.cloudLatency().toMillis());
    s.put("accountQps", settings.accountQps());
    s.put("accountBurst", settings.accountBurst());
    s.put("addressSyncPeriodSeconds", settings.addressSyncPeriod().toSeconds());
    s.put("durationSeconds", settings.duration().toSeconds());
    s.put("workers", settings.workers());
    s.put("kubeApiQps", settings.kubeApiQps());
    ObjectNode peers = root.putObject("peers");
    for (Run run : runs) {
      ObjectNode p = peers.putObject(run.peer().id());
      number(p, "cloudCallsPerNodeHour", run.cloudCallsPerNodeHour(settings.nodes()));
      p.put("throttledCalls", run.throttledCalls());
      number(p, "idleApiWritesPerHour", run.idleApiWritesPerHour());
      number(p, "addressSyncPassSeconds", run.addressSyncPassSeconds());
      number(p, "addressChangeToNodeSeconds", run.addressChangeToNodeSeconds());
      number(p, "loadBalancerCallsPerJoiningNode", run.loadBalancerCallsPerJoiningNode());
      number(p, "loadBalancerCallsPerLeavingNode", run.loadBalancerCallsPerLeavingNode());
      number(p, "cpuSecondsPerHour", run.cpuSecondsPerHour());
      number(p, "initialiseSeconds", run.initialiseSeconds());
      number(p, "idleSeconds", run.idleSeconds());
      p.put("idleCloudCalls", run.idleCloudCalls());
      ArrayNode passes = p.putArray("addressSyncPasses");
      run.addressSyncPasses().forEach(passes::add);
      ObjectNode calls = p.putObject("idleCallsByMethod");
      run.idleCallsByMethod().forEach(calls::put);
      ObjectNode writes = p.putObject("idleApiWrites");
      run.idleApiWrites().forEach(writes::put);
      p.put("note", run.note());
    }
    return mapper.writeValueAsString(root);
  }

  /** JSON has no NaN: a figure not taken is null. */
  private static void number(ObjectNode node, String key, double value) {
    if (Double.isNaN(value) || Double.isInfinite(value)) {
      node.putNull(key);
    } else {
      node.put(key, value);
    }
  }
}
