package io.ccm4j.bench;

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
    new NodeHealthPassBenchmark(nodes, passes, System.out).run().print(System.out);
    return 0;
  }
}
