package io.ccm4j.app.options;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.ccm4j.app.Ccm4j;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

class LoggingOptionsTest {

  private final Logger ccm4j = (Logger) LoggerFactory.getLogger("io.ccm4j");
  private final Logger fabric8 = (Logger) LoggerFactory.getLogger("io.fabric8");
  private final Level ccm4jBefore = ccm4j.getLevel();
  private final Level fabric8Before = fabric8.getLevel();

  @AfterEach
  void restore() {
    ccm4j.setLevel(ccm4jBefore);
    fabric8.setLevel(fabric8Before);
  }

  @Test
  void klogVerbositiesMapOntoLogLevels() {
    Map<Integer, Level> expected = Map.of(4, Level.DEBUG, 5, Level.DEBUG, 6, Level.TRACE);
    expected.forEach(
        (verbosity, level) -> {
          LoggingOptions.apply(verbosity);
          assertThat(ccm4j.getLevel()).as("--v=%d", verbosity).isEqualTo(level);
        });
    assertThat(fabric8.getEffectiveLevel()).isEqualTo(Level.WARN);
    var requests =
        (ch.qos.logback.classic.Logger)
            org.slf4j.LoggerFactory.getLogger(LoggingOptions.HTTP_LOGGING);
    try {
      LoggingOptions.apply(8);
      assertThat(fabric8.getLevel()).isEqualTo(Level.DEBUG);
      assertThat(requests.getLevel())
          .as("the client's requests and answers")
          .isEqualTo(Level.TRACE);
    } finally {
      requests.setLevel(null);
    }
  }

  @Test
  void upToThreeLeavesTheConfiguredLevels() {
    LoggingOptions.apply(3);

    assertThat(ccm4j.getLevel()).isEqualTo(ccm4jBefore);
    assertThat(fabric8.getLevel()).isEqualTo(fabric8Before);
  }

  @Test
  void bothSpellingsThatManifestsUseParse() {
    for (String flag : new String[] {"--v=2", "-v=2", "--v", "-v"}) {
      CommandLine.ParseResult result =
          new CommandLine(new Ccm4j())
              .parseArgs(
                  flag.endsWith("=2")
                      ? new String[] {"run", flag}
                      : new String[] {"run", flag, "2"});
      assertThat(result.subcommand().matchedOptionValue("--v", -1)).as(flag).isEqualTo(2);
    }
  }
}
