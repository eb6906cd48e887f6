package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.app.Ccm4j;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** With the bench (and the lab it uses) on the class path, {@code ccm4j} has every command. */
class BenchToolsTest {

  @Test
  void ccm4jFindsTheBenchAndTheLab() {
    assertThat(Ccm4j.commandLine().getSubcommands().keySet())
        .containsExactly("run", "doctor", "bench", "control-plane", "lab", "nodes");
  }

  @Test
  void nodeInitsHelpNamesEveryPeer() {
    String help =
        Ccm4j.commandLine()
            .getSubcommands()
            .get("bench")
            .getSubcommands()
            .get("node-init")
            .getUsageMessage(CommandLine.Help.Ansi.OFF)
            .replaceAll("\\s+", " ");

    assertThat(help)
        .contains(
            "of go-floor, go-floor-no-events, upstream, upstream-tuned, ccm4j, ccm4j-image;"
                + " ccm4j-image runs the container image");
  }
}
