package io.ccm4j.controllers.nodeutil;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class TaintsTest {

  private static final String SHUTDOWN = "node.cloudprovider.kubernetes.io/shutdown";

  private static Taint taint(String key, String value, String effect) {
    return new TaintBuilder().withKey(key).withValue(value).withEffect(effect).build();
  }

  /**
   * H1 (upstream's AddOrUpdateTaint): a taint of the same key and effect but another value is
   * replaced where it stands; the others keep their places.
   */
  @Test
  void H1_aTaintOfTheSameKeyAndEffectIsReplacedInPlace() {
    Taint shutdown = taint(SHUTDOWN, null, "NoSchedule");
    List<Taint> taints =
        List.of(
            taint(SHUTDOWN, "x", "NoSchedule"),
            taint("node.kubernetes.io/not-ready", null, "NoSchedule"));

    assertThat(Taints.withTaint(taints, shutdown))
        .containsExactly(shutdown, taint("node.kubernetes.io/not-ready", null, "NoSchedule"));
  }

  @Test
  void H1_anIdenticalTaintLeavesTheListAsItIsAndANewOneGoesLast() {
    Taint shutdown = taint(SHUTDOWN, null, "NoSchedule");
    List<Taint> present = List.of(taint("a", null, "NoSchedule"), shutdown);
    assertThat(Taints.withTaint(present, shutdown)).isSameAs(present);

    List<Taint> absent =
        List.of(taint(SHUTDOWN, null, "NoExecute"), taint("a", null, "NoSchedule"));
    assertThat(Taints.withTaint(absent, shutdown))
        .containsExactly(
            taint(SHUTDOWN, null, "NoExecute"), taint("a", null, "NoSchedule"), shutdown);
  }

  /** Upstream compares the whole taint: one that differs only by its time added is replaced. */
  @Test
  void H1_aTaintThatDiffersOnlyByItsTimeAddedIsReplaced() {
    Taint shutdown = taint(SHUTDOWN, null, "NoSchedule");
    Taint stamped = new TaintBuilder(shutdown).withTimeAdded("2026-11-27T00:00:00Z").build();

    assertThat(Taints.withTaint(List.of(stamped), shutdown)).containsExactly(shutdown);
  }
}
