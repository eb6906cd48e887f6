package io.ccm4j.app;

import io.ccm4j.app.bench.FaultsCommand;
import io.ccm4j.app.bench.NodeInitCommand;
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

/** {@code ccm4j bench}: runnable benchmarks that print their figures. */
@Command(
    name = "bench",
    description = "Benchmarks against a real local control plane; each prints a table.",
    mixinStandardHelpOptions = true,
    subcommands = {
      NodeInitCommand.class,
      BenchCommand.NodeHealthPass.class,
      BenchCommand.EvictionTimeline.class,
      BenchCommand.ServiceFailover.class,
      BenchCommand.LbForward.class,
      FaultsCommand.class
    })
public final class BenchCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** {@code ccm4j bench node-health-pass}. */
  @Command(
      name = "node-health-pass",
      description =
          "CPU time of one node-lifecycle health pass over N healthy nodes (cache reads and decisions).",
      mixinStandardHelpOptions = true)
  static final class NodeHealthPass implements Callable<Integer> {

    @Option(
        names = "--nodes",
        paramLabel = "<n>",
        defaultValue = "5000",
        description = "Default: ${DEFAULT-VALUE}.")
    int nodes;

    @Option(
        names = "--passes",
        paramLabel = "<n>",
        defaultValue = "50",
        description = "Timed passes. Default: ${DEFAULT-VALUE}.")
    int passes;

    @Override
    public Integer call() throws Exception {
      var result = new io.ccm4j.app.bench.NodeHealthPassBenchmark(nodes, passes, System.out).run();
      double[] cpu = result.cpuMillis().clone();
      java.util.Arrays.sort(cpu);
      System.out.printf(
          "%nnode-health-pass: %d nodes, %d passes: CPU per pass p50 %.1f ms, p90 %.1f ms, max %.1f ms%n",
          nodes, passes, result.percentile(0.5), result.percentile(0.9), cpu[cpu.length - 1]);
      return 0;
    }
  }

  /** {@code ccm4j bench eviction-timeline}. */
  @Command(
      name = "eviction-timeline",
      description = {
        "A cluster of 3 zones loses one: when was each of its nodes tainted NoExecute and each pod",
        "marked for deletion, and do the taint times keep the zone's configured rate?"
      },
      mixinStandardHelpOptions = true,
      sortOptions = false)
  static final class EvictionTimeline implements Callable<Integer> {

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
        description =
            "The pods' not-ready/unreachable tolerationSeconds. Default: ${DEFAULT-VALUE}.")
    long tolerationSeconds;

    @Override
    public Integer call() throws Exception {
      var settings =
          new io.ccm4j.controllers.nodelifecycle.NodeHealthSettings(
              Duration.ofSeconds(5), grace, Duration.ofSeconds(60), rate, 0.01, 0.55f, 50);
      var result =
          new io.ccm4j.app.bench.EvictionTimelineBenchmark(
                  3, nodesPerZone, settings, tolerationSeconds, System.out)
              .run();
      System.out.printf(
          "%neviction-timeline: zone-0 (%d nodes) silent at t=0; grace %ds, rate %s nodes/s, tolerationSeconds %d%n",
          nodesPerZone, grace.toSeconds(), rate, tolerationSeconds);
      System.out.printf(
          "| %-8s | %-18s | %-22s |%n", "node", "NoExecute taint (s)", "pod marked deleted (s)");
      System.out.printf(
          "| %-8s | %-18s | %-22s |%n", "-".repeat(8), "-".repeat(18), "-".repeat(22));
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

  /** {@code ccm4j bench service-failover}. */
  @Command(
      name = "service-failover",
      description = {
        "Give N LoadBalancer Services load balancers from the sim cloud, then hand leadership to a",
        "second manager and count the cloud calls it makes per Service (the start-up storm, §8.8)."
      },
      mixinStandardHelpOptions = true,
      sortOptions = false)
  static final class ServiceFailover implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
        names = "--services",
        paramLabel = "<n>",
        defaultValue = "1000",
        description = "LoadBalancer Services to create. Default: ${DEFAULT-VALUE}.")
    int services;

    @Option(
        names = "--nodes",
        paramLabel = "<n>",
        defaultValue = "3",
        description = "Nodes backing every load balancer. Default: ${DEFAULT-VALUE}.")
    int nodes;

    @Option(
        names = "--cloud-latency",
        paramLabel = "<duration>",
        defaultValue = "20ms",
        converter = GoDurationConverter.class,
        description = "Latency of every sim cloud call. Default: ${DEFAULT-VALUE}.")
    Duration cloudLatency;

    @Option(
        names = "--concurrent-service-syncs",
        paramLabel = "<n>",
        defaultValue = "10",
        description = "The managers' service workers. Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(
        names = "--kube-api-qps",
        paramLabel = "<qps>",
        defaultValue = "100",
        description =
            "The managers' --kube-api-qps (burst 1.5 times that). Default: ${DEFAULT-VALUE}.")
    double kubeApiQps;

    @Option(
        names = "--compare-upstream",
        negatable = true,
        defaultValue = "true",
        description = {
          "Hand over a second time after stripping ccm4j's applied record from every Service:",
          "the new leader then ensures every one, as upstream does at every start.",
          "Default: ${DEFAULT-VALUE}."
        })
    boolean compareUpstream;

    @Option(
        names = "--timeout",
        paramLabel = "<duration>",
        defaultValue = "10m",
        converter = GoDurationConverter.class,
        description = "Give up on each phase after this long. Default: ${DEFAULT-VALUE}.")
    Duration timeout;

    @Override
    public Integer call() throws Exception {
      if (services < 1 || services > 30000 || nodes < 0 || workers < 1 || kubeApiQps <= 0) {
        throw new ParameterException(
            spec.commandLine(),
            "--services must be 1..30000, --concurrent-service-syncs and --kube-api-qps positive, --nodes not negative");
      }
      var result =
          new io.ccm4j.app.bench.ServiceFailoverBenchmark(
                  new io.ccm4j.app.bench.ServiceFailoverBenchmark.Settings(
                      services, nodes, cloudLatency, workers, kubeApiQps, compareUpstream, timeout),
                  System.out)
              .run();
      System.out.println();
      System.out.printf(
          "service-failover: %d services, %d nodes, cloud latency %d ms, %d service workers, kube-api-qps %s%n",
          services, nodes, cloudLatency.toMillis(), workers, kubeApiQps);
      String row = "| %-53s | %12s | %14s |%n";
      System.out.printf(row, "figure", "ccm4j", "without record");
      System.out.printf(row, "-".repeat(53), "-".repeat(12), "-".repeat(14));
      System.out.printf(
          row, "services with an ingress", result.withIngress() + " / " + services, "");
      System.out.printf(
          row, "creating the services (s)", "%.2f".formatted(result.createSeconds()), "");
      System.out.printf(
          row,
          "first create → last ingress (s)",
          "%.2f".formatted(result.toAllIngressSeconds()),
          "");
      System.out.printf(
          row,
          "cloud calls per service until then",
          "%.3f"
              .formatted(
                  result.initialCalls().values().stream().mapToLong(Long::longValue).sum()
                      / (double) services),
          "");
      var upstream = result.upstream();
      System.out.printf(
          row,
          "stop → new leader (s)",
          "%.2f".formatted(result.ccm4j().toNewLeaderSeconds()),
          upstream.map(f -> "%.2f".formatted(f.toNewLeaderSeconds())).orElse("-"));
      System.out.printf(
          row,
          "stop → last cloud call of the new leader (s)",
          "%.2f".formatted(result.ccm4j().toSteadySeconds()),
          upstream.map(f -> "%.2f".formatted(f.toSteadySeconds())).orElse("-"));
      for (String method :
          java.util.List.of(
              "GetLoadBalancer",
              "EnsureLoadBalancer",
              "UpdateLoadBalancer",
              "EnsureLoadBalancerDeleted")) {
        System.out.printf(
            row,
            method + " per service, hand-over",
            "%.3f".formatted(result.ccm4j().perService(method, services)),
            upstream.map(f -> "%.3f".formatted(f.perService(method, services))).orElse("-"));
      }
      System.out.printf(
          row,
          "Service writes per service, hand-over",
          "%.3f".formatted(result.ccm4j().apiWrites() / services),
          upstream.map(f -> "%.3f".formatted(f.apiWrites() / services)).orElse("-"));
      boolean ok =
          result.withIngress() == services
              && result.ccm4j().perService("GetLoadBalancer", services) <= 1
              && result.ccm4j().perService("EnsureLoadBalancer", services) == 0;
      System.out.println(
          ok
              ? "target met: ≤ 1 read and 0 ensures per unchanged service"
              : "TARGET MISSED: ≤ 1 read and 0 ensures per unchanged service");
      return ok ? 0 : 1;
    }
  }

  /** {@code ccm4j bench lb-forward}. */
  @Command(
      name = "lb-forward",
      description = {
        "New TCP connections per second through a `local` load balancer to simulated kube-proxies",
        "(wrk with Connection: close), draining one backend halfway; no API server needed."
      },
      mixinStandardHelpOptions = true,
      sortOptions = false)
  static final class LbForward implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Option(
        names = "--backends",
        paramLabel = "<n>",
        defaultValue = "3",
        description =
            "Simulated nodes behind the load balancer (127.0.50.1..n). Default: ${DEFAULT-VALUE}.")
    int backends;

    @Option(
        names = "--duration",
        paramLabel = "<duration>",
        defaultValue = "20s",
        converter = GoDurationConverter.class,
        description = "Measured run. Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Option(
        names = "--warmup",
        paramLabel = "<duration>",
        defaultValue = "5s",
        converter = GoDurationConverter.class,
        description = "Unmeasured run first. Default: ${DEFAULT-VALUE}.")
    Duration warmup;

    @Option(
        names = "--connections",
        paramLabel = "<n>",
        defaultValue = "64",
        description = "wrk -c. Default: ${DEFAULT-VALUE}.")
    int connections;

    @Option(
        names = "--threads",
        paramLabel = "<n>",
        defaultValue = "2",
        description = "wrk -t. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(
        names = "--target",
        paramLabel = "<per-second>",
        defaultValue = "10000",
        description = "New connections per second to meet. Default: ${DEFAULT-VALUE}.")
    double target;

    @Option(
        names = "--reference",
        negatable = true,
        defaultValue = "true",
        description = {
          "Then run the same load through HAProxy, when it is installed (apt-get install haproxy),",
          "as a reference for what this machine allows. Default: ${DEFAULT-VALUE}."
        })
    boolean reference;

    @Override
    public Integer call() throws Exception {
      if (backends < 2
          || backends > 250
          || connections < 1
          || threads < 1
          || duration.toSeconds() < 2) {
        throw new ParameterException(
            spec.commandLine(),
            "--backends must be 2..250, --connections and --threads positive, --duration at least 2s");
      }
      var result =
          new io.ccm4j.app.bench.LbForwardBenchmark(
                  new io.ccm4j.app.bench.LbForwardBenchmark.Settings(
                      backends, duration, connections, threads, warmup, reference),
                  System.out)
              .run();
      System.out.println();
      System.out.printf(
          "lb-forward: %d backends, wrk -t%d -c%d -d%ds, Connection: close%n",
          backends, threads, connections, duration.toSeconds());
      String row = "| %-52s | %24s |%n";
      System.out.printf(row, "figure", "value");
      System.out.printf(row, "-".repeat(52), "-".repeat(24));
      System.out.printf(
          row,
          "new connections/s (wrk Requests/sec)",
          "%.0f".formatted(result.connectionsPerSecond()));
      System.out.printf(row, "requests (= connections)", result.requests());
      System.out.printf(row, "failed (socket errors + non-2xx)", result.errors());
      System.out.printf(row, "latency", result.latency());
      result
          .perBackend()
          .forEach((node, count) -> System.out.printf(row, "answered by " + node, count));
      System.out.printf(row, "drain detected after (ms)", result.detectionMillis());
      System.out.printf(
          row,
          "answered by " + result.drainedNode() + " after detection (already on their way)",
          result.drainedAfterDetection());
      System.out.printf(
          row,
          "new connections given to " + result.drainedNode() + " after detection",
          result.assignedAfterDetection());
      System.out.printf(row, "dropped by the LB (no serving backend)", result.unserved());
      System.out.printf(
          row,
          "ceiling: wrk straight at one node port (conn/s)",
          "%.0f".formatted(result.directPerSecond()));
      System.out.printf(
          row,
          "CPU per connection: LB + kube-proxies JVM (us)",
          "%.1f".formatted(result.jvmCpuMicrosPerConnection()));
      System.out.printf(
          row,
          "  of which the load balancer's event loops (us)",
          "%.1f".formatted(result.loadBalancerCpuMicrosPerConnection()));
      System.out.printf(
          row,
          "  of which the kube-proxies' servers (us)",
          "%.1f".formatted(result.kubeProxyCpuMicrosPerConnection()));
      System.out.printf(
          row,
          "CPU per connection: wrk (us)",
          "%.1f".formatted(result.wrkCpuMicrosPerConnection()));
      System.out.printf(
          row,
          "conn/s per core given to the load balancer alone",
          "%.0f".formatted(1e6 / result.loadBalancerCpuMicrosPerConnection()));
      double cores = Runtime.getRuntime().availableProcessors();
      System.out.printf(
          row,
          "rate %d idle cores could carry (conn/s)".formatted((int) cores),
          "%.0f"
              .formatted(
                  cores
                      * 1e6
                      / (result.jvmCpuMicrosPerConnection() + result.wrkCpuMicrosPerConnection())));
      if (result.reference() != null) {
        System.out.printf(
            row,
            "reference: HAProxy, same load and backends (conn/s)",
            "%.0f".formatted(result.reference().connectionsPerSecond()));
        System.out.printf(row, "reference: HAProxy failed", result.reference().errors());
      }
      boolean fast = result.connectionsPerSecond() >= target;
      List<String> missed = new ArrayList<>();
      if (!fast) {
        missed.add("%.0f%% of the rate".formatted(100 * result.connectionsPerSecond() / target));
      }
      if (result.errors() > 0) {
        missed.add(result.errors() + " failures: " + result.errorDetail());
      }
      if (result.assignedAfterDetection() > 0) {
        missed.add(
            "%d new connections to the drained node".formatted(result.assignedAfterDetection()));
      }
      System.out.printf(
          "target %.0f new connections/s, no failure, none to the drained node: %s%n",
          target, missed.isEmpty() ? "met" : "NOT met (" + String.join(", ", missed) + ")");
      return missed.isEmpty() ? 0 : 1;
    }
  }
}
