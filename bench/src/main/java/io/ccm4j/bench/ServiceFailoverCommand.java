package io.ccm4j.bench;

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
      "Give N LoadBalancer Services load balancers from the sim cloud, then hand leadership to "
          + "a second manager and count the cloud calls it makes per Service (the start-up storm, "
          + "§8.8)."
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
        "Hand over a second time after stripping ccm4j's applied record from every Service: the "
            + "new leader then ensures every one, as upstream does at every start. Default: "
            + "${DEFAULT-VALUE}."
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
    return result.print(System.out) ? 0 : 1;
  }
}
