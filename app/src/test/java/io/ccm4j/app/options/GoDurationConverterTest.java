package io.ccm4j.app.options;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine.TypeConversionException;

class GoDurationConverterTest {

  @ParameterizedTest
  @CsvSource({
    "15s, 15000",
    "1m30s, 90000",
    "500ms, 500",
    "5m, 300000",
    "1h, 3600000",
    "1.5s, 1500",
    "1500us, 1.5",
    "+15s, 15000",
    "0, 0"
  })
  void parsesKubernetesDurations(String text, double millis) {
    assertThat(GoDurationConverter.parse(text)).isEqualTo(Duration.ofNanos((long) (millis * 1e6)));
  }

  @ParameterizedTest
  @CsvSource({"soon", "15", "s", "15 s", "-5s", "15sx"})
  void rejectsAnythingElse(String text) {
    assertThatThrownBy(() -> GoDurationConverter.parse(text))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("'" + text + "' is not a duration");
  }

  @Test
  void aNegativeDurationIsRefusedSayingSo() {
    assertThatThrownBy(() -> GoDurationConverter.parse("-5s"))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageStartingWith("'-5s' is not a duration of 0 or more");
  }
}
