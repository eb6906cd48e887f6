package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Zone states and zone keys (node-lifecycle spec §3). */
class ZoneStateTest {

  private static List<NodeCondition> readies(int ready, int notReady) {
    return Stream.concat(
            IntStream.range(0, ready).mapToObj(i -> condition("True")),
            IntStream.range(0, notReady).mapToObj(i -> condition("False")))
        .toList();
  }

  private static NodeCondition condition(String status) {
    return new NodeConditionBuilder().withType("Ready").withStatus(status).build();
  }

  @ParameterizedTest(name = "{0} not ready of {1} -> {2}")
  @CsvSource({
    "11, 20, PARTIAL_DISRUPTION",
    "10, 20, NORMAL",
    "2, 2, FULL_DISRUPTION",
    "2, 3, NORMAL",
    "3, 4, PARTIAL_DISRUPTION",
    "3, 5, PARTIAL_DISRUPTION",
    "3, 6, NORMAL",
    "0, 5, NORMAL",
  })
  void zoneStateUsesAtLeastThreeNotReadyAndAShareOfAtLeastTheThreshold(
      int notReady, int size, ZoneState expected) {
    assertThat(ZoneState.compute(readies(size - notReady, notReady), 0.55f)).isEqualTo(expected);
  }

  @Test
  void aMissingReadyConditionCountsAsNotReady() {
    List<NodeCondition> conditions = new ArrayList<>();
    conditions.add(null);
    assertThat(ZoneState.compute(conditions, 0.55f)).isEqualTo(ZoneState.FULL_DISRUPTION);
  }

  @Test
  void zoneKeysPreferTheBetaLabelsEvenWhenEmpty() {
    assertThat(ZoneState.zoneKey(Map.of(WellKnownLabels.REGION, "r", WellKnownLabels.ZONE, "z")))
        .isEqualTo("r:\u0000:z");
    assertThat(
            ZoneState.zoneKey(
                Map.of(
                    WellKnownLabels.ZONE_BETA,
                    "",
                    WellKnownLabels.ZONE,
                    "z",
                    WellKnownLabels.REGION,
                    "r")))
        .isEqualTo("r:\u0000:");
    assertThat(ZoneState.zoneKey(Map.of("other", "x"))).isEmpty();
  }
}
