package io.ccm4j.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.app.Ccm4j;
import org.junit.jupiter.api.Test;

/** With the bench (and the lab it uses) on the class path, {@code ccm4j} has every command. */
class BenchToolsTest {

  @Test
  void ccm4jFindsTheBenchAndTheLab() {
    assertThat(Ccm4j.commandLine().getSubcommands().keySet())
        .containsExactly("run", "doctor", "bench", "control-plane", "lab", "nodes");
  }
}
