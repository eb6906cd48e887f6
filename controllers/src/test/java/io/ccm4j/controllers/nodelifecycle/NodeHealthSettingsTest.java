package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The eviction rate a zone gets from its state and size. */
class NodeHealthSettingsTest {

  @ParameterizedTest(name = "state {0}, size {1} -> {2}/s")
  @CsvSource({
    "NORMAL, 10, 0.1",
    "FULL_DISRUPTION, 10, 0.1",
    "PARTIAL_DISRUPTION, 50, 0.0",
    "PARTIAL_DISRUPTION, 51, 0.01",
    "PARTIAL_DISRUPTION, 15, 0.0",
  })
  void theZoneRateFollowsItsStateAndSize(ZoneState state, int size, double rate) {
    assertThat(NodeHealthSettings.defaults().rateFor(state, size)).isEqualTo(rate);
  }
}
