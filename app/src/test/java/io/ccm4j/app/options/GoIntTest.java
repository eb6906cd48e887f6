package io.ccm4j.app.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

/** The values are what Go's {@code strconv.ParseInt(value, 0, 32)} (pflag's int32) returns. */
class GoIntTest {

  @ParameterizedTest
  @CsvSource({
    "10, 10",
    "010, 8",
    "00, 0",
    "0, 0",
    "0_7, 7",
    "0x1F, 31",
    "0X1f, 31",
    "0x_1F, 31",
    "0o17, 15",
    "0O17, 15",
    "0b101, 5",
    "0B11, 3",
    "1_000, 1000",
    "+5, 5",
    "-0x10, -16",
    "-2147483648, -2147483648"
  })
  void readsWholeNumbersAsGo(String text, int value) {
    assertThat(new GoInt().convert(text)).isEqualTo(value);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"", "1__0", "_1", "1_", "08", "0x", "0b12", "abc", "1.5", "+-1", "2147483648"})
  void refusesWhatGoRefuses(String text) {
    assertThatThrownBy(() -> new GoInt().convert(text))
        .isInstanceOf(TypeConversionException.class)
        .hasMessage(
            "'%s' is not a whole number as Go reads it (10, 0x0a, 0o12, 012, 0b1010)"
                .formatted(text));
  }
}
