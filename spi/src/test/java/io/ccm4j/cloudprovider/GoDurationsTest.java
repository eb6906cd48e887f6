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

  /** The rest of what Go's {@code time.ParseDuration} reads (published manifests write them). */
  @ParameterizedTest(name = "{0} -> {1} ns")
  @CsvSource({
    "1500us, 1500000",
    "2\u00b5s, 2000",
    "2\u03bcs, 2000",
    "100ns, 100",
    "+15s, 15000000000",
    ".5s, 500000000",
    "5.s, 5000000000",
    "1h1ms, 3600001000000",
    "+0, 0",
    "-0s, 0",
  })
  void readsEveryUnitAndSpellingGoReads(String text, long nanos) {
    assertThat(GoDurations.parse(text)).isEqualTo(Duration.ofNanos(nanos));
  }

  @ParameterizedTest
  @CsvSource({"soon", "15", "s", "15 s", "-5s", "15sx", ".s", "1.2.3s", "5d", "+", "--5s"})
  void refusesAnythingElseQuotingIt(String text) {
    assertThatThrownBy(() -> GoDurations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("\"" + text + "\" is not a duration");
  }

  /** Go's durations are int64 nanoseconds: time.ParseDuration refuses more, and so does ccm4j. */
  @ParameterizedTest
  @CsvSource({"99999999h", "2562048h", "9223372036854775808ns"})
  void refusesWhatGoCannotHold(String text) {
    assertThatThrownBy(() -> GoDurations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "\"" + text + "\" is longer than a duration can be (at most 2562047h47m16.854775807s)");
    assertThat(GoDurations.parse("2562047h")).isEqualTo(Duration.ofHours(2562047));
    assertThat(GoDurations.parse("9223372036854775807ns"))
        .isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
    assertThat(GoDurations.parse("2562047h47m16.854775807s"))
        .isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
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
