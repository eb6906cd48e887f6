package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.app.Ccm4j;
import org.junit.jupiter.api.Test;

/** With the lab on the class path, {@code ccm4j} has its commands (META-INF/services). */
class LabToolsTest {

  @Test
  void ccm4jFindsTheLabsCommands() {
    assertThat(Ccm4j.commandLine().getSubcommands().keySet())
        .containsExactly("run", "doctor", "control-plane", "lab", "nodes");
  }

  @Test
  void theProductsCommandsRunWithoutTheToolsModels() {
    assertThat(Ccm4j.commandLine("run", "--cloud-provider=sim").getSubcommands().keySet())
        .containsExactly("run", "doctor");
    assertThat(Ccm4j.commandLine("doctor").getSubcommands().keySet())
        .containsExactly("run", "doctor");
    assertThat(Ccm4j.commandLine("lab", "--help").getSubcommands()).containsKey("lab");
    assertThat(Ccm4j.commandLine("--help").getSubcommands()).containsKey("lab");
    assertThat(Ccm4j.commandLine().getSubcommands()).containsKey("nodes");
  }
}
