package io.ccm4j.runtime.serving;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GoFloatsTest {

  /**
   * Each row's right side is what the Prometheus Go client's {@code expfmt} writes for it: {@code
   * 0}, {@code 1}, {@code -1} and the infinities and NaN by name, anything else (a negative zero is
   * 0) as {@code strconv.FormatFloat(f, 'g', -1, 64)} gives it (checked with Go 1.26).
   */
  @ParameterizedTest
  @CsvSource({
    "1.0, 1",
    "0.0, 0",
    "-0.0, 0",
    "-1.0, -1",
    "0.005, 0.005",
    "10.0, 10",
    "240.0, 240",
    "16.384, 16.384",
    "100000.0, 100000",
    "1000000.0, 1e+06",
    "1234567.0, 1.234567e+06",
    "0.0001, 0.0001",
    "1.0E-5, 1e-05",
    "2.5E-5, 2.5e-05",
    "1.0E-8, 1e-08",
    "-2.5, -2.5",
    "0.30000000000000004, 0.30000000000000004",
    "4.9E-324, 5e-324",
    "1.7976931348623157E308, 1.7976931348623157e+308",
    "+Inf, +Inf",
    "-Inf, -Inf",
    "NaN, NaN",
    "7, 7"
  })
  void writesANumberAsGoWritesIt(String javaText, String goText) {
    assertThat(GoFloats.format(javaText)).isEqualTo(goText);
  }
}
