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

/** {@code ccm4j bench lb-forward}. */
@Command(
    name = "lb-forward",
    description = {
      "New TCP connections per second through a `local` load balancer to simulated kube-proxies",
      "(wrk with Connection: close), draining one backend halfway; no API server needed."
    },
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class LbForwardCommand implements Callable<Integer> {

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
        new LbForwardBenchmark(
                new LbForwardBenchmark.Settings(
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
        row, "CPU per connection: wrk (us)", "%.1f".formatted(result.wrkCpuMicrosPerConnection()));
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
