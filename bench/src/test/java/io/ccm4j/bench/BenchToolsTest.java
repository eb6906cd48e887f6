package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.app.Ccm4j;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
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

  @ParameterizedTest
  @ValueSource(strings = {"node-init", "steady-state"})
  void aHeapSizeTheJvmWouldRefuseStopsAtTheFlags(String benchmark) {
    StringWriter err = new StringWriter();
    CommandLine ccm4j = Ccm4j.commandLine().setErr(new PrintWriter(err));

    int exit = ccm4j.execute("bench", benchmark, "--heap=12q");

    // Refused with the flags, where the manager's JVM would refuse it only after a control plane
    // and the peers before it had run.
    assertThat(exit).isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "Invalid value for option '--heap': '12q' is not a heap size as -Xmx takes it"
                + " (examples: 256m, 1g)");
  }

  @Test
  void heapSizesAsTheJvmTakesThem() {
    HeapSizeConverter sizes = new HeapSizeConverter();

    assertThat(sizes.convert("256m")).isEqualTo("256m");
    assertThat(sizes.convert("1G")).isEqualTo("1G");
    assertThat(sizes.convert("268435456")).isEqualTo("268435456");
    for (String bad : List.of("", "0m", "-1g", "256 m", "256mb", "1.5g", "m")) {
      assertThatThrownBy(() -> sizes.convert(bad))
          .as(bad)
          .isInstanceOf(CommandLine.TypeConversionException.class);
    }
  }
}
