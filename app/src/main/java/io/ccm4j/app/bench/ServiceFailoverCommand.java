package io.ccm4j.app.bench;

import io.ccm4j.app.options.GoDurationConverter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code ccm4j bench service-failover}. */
@Command(
    name = "service-failover",
    description = {
      "Give N LoadBalancer Services load balancers from the sim cloud, then hand leadership to a",
      "second manager and count the cloud calls it makes per Service (the start-up storm, §8.8)."
    },
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class ServiceFailoverCommand implements Callable<Integer> {

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
        new ServiceFailoverBenchmark(
                new ServiceFailoverBenchmark.Settings(
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
    System.out.printf(row, "services with an ingress", result.withIngress() + " / " + services, "");
    System.out.printf(
        row, "creating the services (s)", "%.2f".formatted(result.createSeconds()), "");
    System.out.printf(
        row, "first create → last ingress (s)", "%.2f".formatted(result.toAllIngressSeconds()), "");
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
