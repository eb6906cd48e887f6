package io.ccm4j.bench;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code ccm4j bench}: runnable benchmarks that print their figures. */
@Command(
    name = "bench",
    description = "Benchmarks against a real local control plane; each prints a table.",
    mixinStandardHelpOptions = true,
    subcommands = {
      NodeInitCommand.class,
      NodeHealthPassCommand.class,
      EvictionTimelineCommand.class,
      ServiceFailoverCommand.class,
      LbForwardCommand.class,
      FaultsCommand.class,
      SteadyStateCommand.class
    })
public final class BenchCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
