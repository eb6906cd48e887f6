package io.ccm4j.app.bench;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ccm4j bench node-health-pass}. */
@Command(
    name = "node-health-pass",
    description =
        "CPU time of one node-lifecycle health pass over N healthy nodes (cache reads and decisions).",
    mixinStandardHelpOptions = true)
public final class NodeHealthPassCommand implements Callable<Integer> {

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
    var result = new NodeHealthPassBenchmark(nodes, passes, System.out).run();
    double[] cpu = result.cpuMillis().clone();
    java.util.Arrays.sort(cpu);
    System.out.printf(
        "%nnode-health-pass: %d nodes, %d passes: CPU per pass p50 %.1f ms, p90 %.1f ms, max %.1f ms%n",
        nodes, passes, result.percentile(0.5), result.percentile(0.9), cpu[cpu.length - 1]);
    return 0;
  }
}
