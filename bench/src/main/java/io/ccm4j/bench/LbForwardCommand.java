package io.ccm4j.bench;

import io.ccm4j.app.options.GoDurationConverter;
import java.time.Duration;
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
      "New TCP connections per second through a `local` load balancer to simulated kube-proxies "
          + "(wrk with Connection: close), draining one backend halfway; no API server needed."
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
        "Then run the same load through HAProxy, when it is installed (apt-get install haproxy), "
            + "as a reference for what this machine allows. Default: ${DEFAULT-VALUE}."
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
                    backends, duration, connections, threads, warmup, reference, target),
                System.out)
            .run();
    System.out.println();
    return result.print(System.out) ? 0 : 1;
  }
}
