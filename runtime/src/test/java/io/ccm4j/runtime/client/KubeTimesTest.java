package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DateTimeException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class KubeTimesTest {

  @Test
  void readsEveryRfc3339Form() {
    assertThat(KubeTimes.parse("2026-11-27T05:13:32Z"))
        .isEqualTo(Instant.parse("2026-11-27T05:13:32Z"));
    assertThat(KubeTimes.parse("2026-11-27T06:13:32+01:00"))
        .isEqualTo(Instant.parse("2026-11-27T05:13:32Z"));
    assertThat(KubeTimes.parse("2026-11-27T05:13:32.250Z"))
        .isEqualTo(Instant.parse("2026-11-27T05:13:32.250Z"));
    assertThat(KubeTimes.parse("1970-01-01T00:00:00Z")).isEqualTo(Instant.EPOCH);
    assertThat(KubeTimes.parse("2024-02-29T23:59:59Z"))
        .isEqualTo(Instant.parse("2024-02-29T23:59:59Z"));
  }

  @Test
  void refusesWhatIsNoTime() {
    assertThatThrownBy(() -> KubeTimes.parse("2026-13-27T05:13:32Z"))
        .isInstanceOf(DateTimeException.class);
    assertThatThrownBy(() -> KubeTimes.parse("2026-02-30T05:13:32Z"))
        .isInstanceOf(DateTimeException.class);
    assertThatThrownBy(() -> KubeTimes.parse("2026-11-27T05:1x:32Z"))
        .isInstanceOf(DateTimeException.class);
    assertThatThrownBy(() -> KubeTimes.parse("yesterday")).isInstanceOf(DateTimeException.class);
  }
}
