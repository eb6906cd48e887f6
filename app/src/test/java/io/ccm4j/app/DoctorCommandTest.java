package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DoctorCommandTest {

  private static final Path SCENARIOS =
      Path.of("..", "doctor", "src", "main", "resources", "io", "ccm4j", "doctor", "scenarios");
  private static final Path BROKEN =
      Path.of("..", "doctor", "src", "test", "resources", "broken.yaml");

  @TempDir Path temp;

  @Test
  void theShippedManifestsPassAndADeadlockIsAnErrorWhoseFixPasses() throws Exception {
    assertThat(Ccm4j.execute("doctor", "../deploy")).isZero();

    Path fixed = temp.resolve("fixed.yaml");
    assertThat(
            Ccm4j.execute(
                "doctor",
                SCENARIOS.resolve("missing-uninitialized-toleration.yaml").toString(),
                "--fix",
                fixed.toString()))
        .isEqualTo(1);
    assertThat(Files.readString(fixed)).contains("node.cloudprovider.kubernetes.io/uninitialized");
    assertThat(Ccm4j.execute("doctor", "-o", "json", fixed.toString())).isZero();
  }

  @Test
  void unreadableInputIsOneLineNamingFileAndLineWithExitCode2() {
    StringWriter err = new StringWriter();

    int exit = Ccm4j.execute(new PrintWriter(err, true), "doctor", BROKEN.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).containsPattern("broken.yaml:5: not valid YAML");
    assertThat(err.toString().lines()).hasSize(1);
  }
}
