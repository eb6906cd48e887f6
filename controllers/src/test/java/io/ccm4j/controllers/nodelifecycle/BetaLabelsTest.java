package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The beta OS and architecture labels follow the GA ones (upstream's reconcileNodeLabels). */
class BetaLabelsTest {

  @Test
  void aMissingOrDifferentBetaLabelTakesTheGaValue() {
    assertThat(
            BetaLabels.toSet(
                Map.of(
                    "kubernetes.io/os", "linux",
                    "kubernetes.io/arch", "arm64",
                    "beta.kubernetes.io/arch", "amd64")))
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("beta.kubernetes.io/os", "linux", "beta.kubernetes.io/arch", "arm64"));
  }

  @Test
  void matchingLabelsOrNoGaLabelNeedNothing() {
    assertThat(
            BetaLabels.toSet(Map.of("kubernetes.io/os", "linux", "beta.kubernetes.io/os", "linux")))
        .isEmpty();
    assertThat(BetaLabels.toSet(Map.of("beta.kubernetes.io/os", "windows"))).isEmpty();
    assertThat(BetaLabels.toSet(null)).isEmpty();
  }
}
