package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * app alone, as in the container image: {@code ccm4j} has the product's commands, run and doctor;
 * the tools' join them from the class path (lab's and bench's own tests check theirs).
 */
class Ccm4jTest {

  @Test
  void appAloneHasRunAndDoctor() {
    assertThat(Ccm4j.commandLine().getSubcommands().keySet()).containsExactly("run", "doctor");
  }

  @Test
  void helpListsRunAndDoctorAlone() {
    StringWriter out = new StringWriter();
    CommandLine line = Ccm4j.commandLine();
    line.setOut(new PrintWriter(out, true));

    assertThat(line.execute("--help")).isZero();

    assertThat(out.toString())
        .containsPattern("(?m)^ +run +")
        .containsPattern("(?m)^ +doctor +")
        .doesNotContainPattern("(?m)^ +(lab|bench|nodes|control-plane) +");
  }

  /** The lab runs a pod's {@code ccm4j run} arguments through this, the flags checked later. */
  @Test
  void parseReadsRunsArgumentsWithoutTheEntryPoint() {
    RunCommand run = RunCommand.parse(List.of("--cloud-provider=sim", "--kube-api-qps=5"));

    assertThat(run.cloudProviderName()).isEqualTo("sim");
    assertThatThrownBy(() -> RunCommand.parse(List.of("--no-such-flag")))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessageContaining("--no-such-flag");
  }
}
