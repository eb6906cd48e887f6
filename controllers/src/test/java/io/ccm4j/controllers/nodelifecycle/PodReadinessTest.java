package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which pod conditions pod readiness writes (node-lifecycle spec §2.4) and which pods count as
 * bound (§2.6), on their own; the writes are NodeLifecycleControllerIT's.
 */
class PodReadinessTest {

  private static final Instant EARLIER = Instant.parse("2025-12-31T00:00:00Z");
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static PodCondition condition(String type, String status) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withLastTransitionTime(EARLIER.toString())
        .build();
  }

  private static Pod pod(String node, PodCondition... conditions) {
    return new PodBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName("p")
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .endSpec()
        .withNewStatus()
        .withConditions(conditions)
        .endStatus()
        .build();
  }

  @ParameterizedTest(name = "Ready {0} -> written {1}")
  @CsvSource({"True, true", "Unknown, true", "False, false"})
  void onlyAReadyConditionOtherThanFalseIsWritten(String ready, boolean written) {
    PodCondition scheduled = condition("PodScheduled", "True");
    Pod pod = pod("n", scheduled, condition("Ready", ready));

    Optional<PodCondition> updated = PodReadiness.notReadyCondition(pod, NOW);

    if (written) {
      assertThat(updated)
          .contains(
              new PodConditionBuilder(condition("Ready", "False"))
                  .withLastTransitionTime(NOW.toString())
                  .build());
    } else {
      assertThat(updated).isEmpty();
    }
  }

  @Test
  void aPodWithoutAReadyConditionOrStatusIsLeftAlone() {
    assertThat(PodReadiness.notReadyCondition(pod("n", condition("PodScheduled", "True")), NOW))
        .isEmpty();
    assertThat(PodReadiness.notReadyCondition(new Pod(), NOW)).isEmpty();
  }

  @ParameterizedTest(name = "nodeName \"{0}\" -> {1}")
  @CsvSource(
      nullValues = "none",
      value = {"n1, n1", "'', none", "none, none"})
  void aPodIsBoundWhenItNamesANode(String nodeName, String bound) {
    assertThat(PodReadiness.nodeName(pod(nodeName))).isEqualTo(bound);
    assertThat(PodReadiness.nodeName(new Pod())).isNull();
  }
}
