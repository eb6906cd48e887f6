package io.ccm4j.runtime.serving;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RegistryCountersTest {

  /** The level and deprecation component-base puts before a help, as its counter labels them. */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "[ALPHA] Number of requests.                          | ALPHA    | ''",
        "[STABLE] Number of requests.                         | STABLE   | ''",
        "[INTERNAL] Number of duplicate validation errors.    | INTERNAL | ''",
        "[BETA] (Deprecated since 1.30.0) Number of requests. | BETA     | 1.30.0",
      })
  void readsTheLevelAndDeprecationOfAHelp(String help, String level, String deprecated) {
    assertThat(RegistryCounters.stability(help))
        .hasValue(new RegistryCounters.Stability(level, deprecated));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Total user and system CPU time spent in seconds.",
        "[GAMMA] x",
        "x [ALPHA] y",
        ""
      })
  void aHelpWithoutALevelHasNone(String help) {
    assertThat(RegistryCounters.stability(help)).isEmpty();
  }
}
