package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The eviction rate a zone gets from its state and size (node-lifecycle spec §3.3, §3.4). */
class ZoneEvictionRateTest {

  private static final ZoneEvictionRate DEFAULTS =
      ZoneEvictionRate.of(NodeHealthSettings.defaults());

  @ParameterizedTest(name = "state {0}, size {1} -> {2}/s")
  @CsvSource({
    "NORMAL, 10, 0.1",
    "NORMAL, 1000, 0.1",
    "FULL_DISRUPTION, 10, 0.1",
    "FULL_DISRUPTION, 120, 0.1",
    "PARTIAL_DISRUPTION, 15, 0.0",
    "PARTIAL_DISRUPTION, 40, 0.0",
    "PARTIAL_DISRUPTION, 50, 0.0",
    "PARTIAL_DISRUPTION, 51, 0.01",
    "PARTIAL_DISRUPTION, 120, 0.01",
    "INITIAL, 10, 0.1",
  })
  void theZoneRateFollowsItsStateAndSize(ZoneState state, int size, double rate) {
    assertThat(DEFAULTS.forZone(state, size)).isEqualTo(rate);
  }

  @ParameterizedTest(name = "normal {0}, secondary {1}, large above {2}: {3} of {4} -> {5}/s")
  @CsvSource({
    "2.0, 0.5, 10, NORMAL, 5, 2.0",
    "2.0, 0.5, 10, FULL_DISRUPTION, 5, 2.0",
    "2.0, 0.5, 10, PARTIAL_DISRUPTION, 10, 0.0",
    "2.0, 0.5, 10, PARTIAL_DISRUPTION, 11, 0.5",
    "0.0, 0.5, 0, NORMAL, 5, 0.0",
  })
  void theRatesAndThresholdComeFromTheSettings(
      double normal, double secondary, int large, ZoneState state, int size, double rate) {
    assertThat(new ZoneEvictionRate(normal, secondary, large).forZone(state, size)).isEqualTo(rate);
  }
}
