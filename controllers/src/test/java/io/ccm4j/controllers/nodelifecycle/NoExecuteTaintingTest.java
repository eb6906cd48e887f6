package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodelifecycle.NoExecuteTainting.Action;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The NoExecute tainting decisions (node-lifecycle spec §2.5 B) on their own: which taint a node
 * gets, when it is queued, swapped or lifted, and the zone queues it waits in. The taint writes are
 * NodeLifecycleControllerIT's; nodes here have nothing to lift, so no API call is made.
 */
class NoExecuteTaintingTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final String ZONE = "r:\u0000:z";

  private final NoExecuteTainting tainting =
      new NoExecuteTainting(
          null,
          null,
          new EventRecorder() {
            @Override
            public void normal(HasMetadata object, String reason, String message) {}

            @Override
            public void warning(HasMetadata object, String reason, String message) {}
          },
          () -> NOW,
          new NodeLifecycleControllerMetrics(new SimpleMeterRegistry()),
          new ZoneStates(),
          0.1);

  private static Taint noExecute(String key) {
    return new TaintBuilder()
        .withKey(key)
        .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
        .withTimeAdded("2025-12-31T00:00:00Z")
        .build();
  }

  /** A node in {@link #ZONE} with the NoExecute taints named ("not-ready", "unreachable"). */
  private static Node node(String name, String... taints) {
    List<Taint> list =
        Arrays.stream(taints)
            .map(
                t ->
                    noExecute(
                        t.equals("not-ready")
                            ? WellKnownTaints.NODE_NOT_READY
                            : WellKnownTaints.NODE_UNREACHABLE))
            .toList();
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels(WellKnownLabels.REGION, "r")
        .addToLabels(WellKnownLabels.ZONE, "z")
        .endMetadata()
        .withNewSpec()
        .withTaints(list)
        .endSpec()
        .build();
  }

  @ParameterizedTest(name = "Ready {0}, taints [{1}] -> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "False   |                       | QUEUE_NOT_READY",
        "False   | not-ready             | QUEUE_NOT_READY",
        "False   | unreachable           | SWAP_TO_NOT_READY",
        "False   | not-ready unreachable | SWAP_TO_NOT_READY",
        "Unknown |                       | QUEUE_UNREACHABLE",
        "Unknown | unreachable           | QUEUE_UNREACHABLE",
        "Unknown | not-ready             | SWAP_TO_UNREACHABLE",
        "Unknown | not-ready unreachable | SWAP_TO_UNREACHABLE",
        "True    |                       | LIFT",
        "True    | not-ready unreachable | LIFT",
        "Bogus   | unreachable           | LIFT",
      })
  void theNodesReadyAndTaintsDecideWhatThePassDoes(String ready, String taints, Action action) {
    String[] names = taints == null ? new String[0] : taints.split(" ");

    assertThat(NoExecuteTainting.decide(ready, node("n", names))).isEqualTo(action);
  }

  @ParameterizedTest(name = "Ready {0} when due -> {1}")
  @CsvSource(
      nullValues = "none",
      value = {
        "False, SWAP_TO_NOT_READY",
        "Unknown, SWAP_TO_UNREACHABLE",
        "True, none",
      })
  void aQueuedNodeGetsTheTaintItsReadyCallsForWhenItsTurnComes(String ready, Action action) {
    assertThat(NoExecuteTainting.dueTaint(ready)).isEqualTo(Optional.ofNullable(action));
  }

  @Test
  void aSwapStampsTheAddedTaintAndDropsTheOther() {
    Taint other = new TaintBuilder().withKey("example.com/keep").withEffect("NoSchedule").build();
    List<Taint> before = List.of(other, noExecute(WellKnownTaints.NODE_UNREACHABLE));

    List<Taint> after = NoExecuteTainting.swapped(before, Action.SWAP_TO_NOT_READY, NOW);

    assertThat(after)
        .containsExactly(
            other,
            new TaintBuilder()
                .withKey(WellKnownTaints.NODE_NOT_READY)
                .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
                .withTimeAdded(NOW.toString())
                .build());
  }

  @Test
  void aSwapThatFindsTheTaintAlreadyThereChangesNothing() {
    List<Taint> before = List.of(noExecute(WellKnownTaints.NODE_UNREACHABLE));

    assertThat(NoExecuteTainting.swapped(before, Action.SWAP_TO_UNREACHABLE, NOW)).isSameAs(before);
    assertThat(
            NoExecuteTainting.swapped(
                List.of(
                    noExecute(WellKnownTaints.NODE_UNREACHABLE),
                    noExecute(WellKnownTaints.NODE_NOT_READY)),
                Action.SWAP_TO_UNREACHABLE,
                NOW))
        .as("the other one still goes, the added one keeps its time")
        .containsExactly(noExecute(WellKnownTaints.NODE_UNREACHABLE));
  }

  @Test
  void aNodeNotReadyWaitsInItsZonesQueueOnceAndLeavesItWhenReadyAgain() {
    tainting.startZone(ZONE, 0.1);

    tainting.process(node("a"), "False");
    tainting.process(node("a"), "Unknown");

    assertThat(tainting.tainter(ZONE).size()).as("a re-queued, not twice").isEqualTo(1);
    assertThat(tainting.tainter(ZONE).head()).contains("a");

    tainting.process(node("a"), "True");

    assertThat(tainting.tainter(ZONE).size()).isZero();
  }

  @Test
  void aNodeShowingItsTaintIsQueuedUnlessItsZonesQueueHasProcessedIt() {
    // Upstream's markNodeForTainting adds the node whatever its taints: a taint the cache still
    // shows after the controller lifted it (a node first seen after a restart or a change of
    // leader) must not keep the node out of the queue until the next monitor pass.
    tainting.startZone(ZONE, 0.1);

    tainting.process(node("restarted", "unreachable"), "Unknown");

    assertThat(tainting.tainter(ZONE).contains("restarted")).isTrue();

    tainting.tainter(ZONE).tryProcess(name -> ZoneTainter.Outcome.DONE);
    tainting.process(node("restarted", "unreachable"), "Unknown");

    assertThat(tainting.tainter(ZONE).contains("restarted"))
        .as("processed and still tainted: not queued again")
        .isFalse();

    tainting.process(node("restarted"), "Unknown");

    assertThat(tainting.tainter(ZONE).contains("restarted"))
        .as("processed but its taint gone: queued again")
        .isTrue();
  }

  @Test
  void aZonesRateIsSetAndAZoneStartedAgainGetsTheRateItIsGiven() {
    tainting.startZone(ZONE, 0.1);

    tainting.setRate(ZONE, 0);
    assertThat(tainting.tainter(ZONE).rate()).isZero();

    tainting.startZone(ZONE, 0.1);
    assertThat(tainting.tainter(ZONE).rate()).isEqualTo(0.1);
  }
}
