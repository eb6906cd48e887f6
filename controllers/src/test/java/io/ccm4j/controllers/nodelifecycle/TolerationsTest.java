package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which tolerations match a NoExecute taint, and for how long. */
class TolerationsTest {

  private static Taint taint(String key, String value) {
    return new TaintBuilder().withKey(key).withValue(value).withEffect("NoExecute").build();
  }

  private static Toleration toleration(
      String key, String operator, String value, String effect, Long seconds) {
    return new TolerationBuilder()
        .withKey(key)
        .withOperator(operator)
        .withValue(value)
        .withEffect(effect)
        .withTolerationSeconds(seconds)
        .build();
  }

  @Test
  void tolerationsMatchByKeyEffectOperatorAndValue() {
    Taint unreachable = taint("node.kubernetes.io/unreachable", null);
    assertThat(
            Tolerations.tolerates(
                toleration("node.kubernetes.io/unreachable", "Exists", null, "NoExecute", null),
                unreachable))
        .isTrue();
    assertThat(Tolerations.tolerates(toleration("", "Exists", null, "", null), unreachable))
        .isTrue();
    assertThat(Tolerations.tolerates(toleration("", "Equal", null, "", null), unreachable))
        .isFalse();
    assertThat(
            Tolerations.tolerates(
                toleration("node.kubernetes.io/unreachable", "Exists", null, "NoSchedule", null),
                unreachable))
        .isFalse();
    assertThat(
            Tolerations.tolerates(
                toleration("dedicated", "Equal", "a", null, null), taint("dedicated", "a")))
        .isTrue();
    assertThat(
            Tolerations.tolerates(
                toleration("dedicated", "Equal", "b", null, null), taint("dedicated", "a")))
        .isFalse();
    assertThat(
            Tolerations.tolerates(
                toleration("dedicated", "Gt", "a", null, null), taint("dedicated", "a")))
        .isFalse();
  }

  @Test
  void theFirstMatchingTolerationPerTaintDecidesHowLong() {
    Taint unreachable = taint("node.kubernetes.io/unreachable", null);
    Toleration forever =
        toleration("node.kubernetes.io/unreachable", "Exists", null, "NoExecute", null);
    Toleration sixty =
        toleration("node.kubernetes.io/unreachable", "Exists", null, "NoExecute", 60L);

    assertThat(
            Tolerations.minTolerationSeconds(
                Tolerations.matching(List.of(unreachable), List.of(forever, sixty)).orElseThrow()))
        .isEqualTo(-1);
    assertThat(
            Tolerations.minTolerationSeconds(
                Tolerations.matching(List.of(unreachable), List.of(sixty, forever)).orElseThrow()))
        .isEqualTo(60);
    assertThat(Tolerations.matching(List.of(unreachable), List.of())).isEmpty();
    assertThat(
            Tolerations.minTolerationSeconds(
                List.of(toleration("a", "Exists", null, null, 0L), sixty)))
        .isZero();
    assertThat(Tolerations.minTolerationSeconds(List.of())).isZero();
  }
}
