package io.ccm4j.cloudprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GoDurationsTest {

  @ParameterizedTest(name = "{0} -> {1} ms")
  @CsvSource({
    "15s, 15000",
    "1m30s, 90000",
    "500ms, 500",
    "1.5h, 5400000",
    "' 2s ', 2000",
    "0, 0",
  })
  void parsesAsGoDoes(String text, long millis) {
    assertThat(GoDurations.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @CsvSource({"soon", "15", "s", "15 s", "-5s", "15sx"})
  void refusesAnythingElseQuotingIt(String text) {
    assertThatThrownBy(() -> GoDurations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("\"" + text + "\" is not a duration");
  }

  @ParameterizedTest(name = "{0} ns -> {1}")
  @CsvSource({
    "0, 0s",
    "999, 999ns",
    "1500, 1.5\u00b5s",
    "3000000, 3ms",
    "1234567, 1.234567ms",
    "1500000000, 1.5s",
    "60000000000, 1m0s",
    "62500000000, 1m2.5s",
    "3600000000000, 1h0m0s",
  })
  void printsAsGoDoes(long nanos, String printed) {
    assertThat(GoDurations.format(Duration.ofNanos(nanos))).isEqualTo(printed);
  }
}
