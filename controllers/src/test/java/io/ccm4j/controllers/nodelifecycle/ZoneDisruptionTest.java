package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.controllers.nodelifecycle.ZoneDisruption.Outage;
import io.ccm4j.controllers.nodelifecycle.ZoneDisruption.Plan;
import io.ccm4j.controllers.nodelifecycle.ZoneDisruption.ZoneDecision;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The zone state machine (node-lifecycle spec §3.3) as the pure decision it is: states from the
 * share of nodes not Ready, the tainting rate each state sets, the messages, and the stop when
 * every zone is down. The controller's pass applies the plan (NodeLifecycleControllerIT).
 */
class ZoneDisruptionTest {

  private static final ZoneEvictionRate RATES = ZoneEvictionRate.of(NodeHealthSettings.defaults());
  private static final float THRESHOLD = NodeHealthSettings.defaults().unhealthyZoneThreshold();

  private static List<NodeCondition> readies(int ready, int notReady) {
    return Stream.concat(
            IntStream.range(0, ready).mapToObj(i -> condition("True")),
            IntStream.range(0, notReady).mapToObj(i -> condition("False")))
        .toList();
  }

  private static NodeCondition condition(String status) {
    return new NodeConditionBuilder().withType("Ready").withStatus(status).build();
  }

  /** One pass's decision over zones given as {@code zone -> {ready, notReady}}, in that order. */
  private static Plan decide(Map<String, ZoneState> previous, Map<String, int[]> zones) {
    Map<String, List<NodeCondition>> conditions = new LinkedHashMap<>();
    zones.forEach((zone, counts) -> conditions.put(zone, readies(counts[0], counts[1])));
    return ZoneDisruption.decide(previous, conditions, THRESHOLD, RATES);
  }

  @Test
  void aZoneBecomingNormalFromInitialIsSilent() {
    Plan plan = decide(Map.of("a", ZoneState.INITIAL), Map.of("a", new int[] {3, 0}));

    assertThat(plan.zones()).containsExactly(new ZoneDecision("a", ZoneState.NORMAL, 0.1));
    assertThat(plan.outage()).isEqualTo(Outage.NONE);
    assertThat(ZoneDisruption.isWorthAnEvent(ZoneState.INITIAL, ZoneState.NORMAL)).isFalse();
  }

  @Test
  void aSmallPartiallyDisruptedZoneStopsTaintingAndSaysSo() {
    Map<String, int[]> zones = new LinkedHashMap<>();
    zones.put("a", new int[] {4, 6});
    zones.put("b", new int[] {10, 0});

    Plan plan = decide(Map.of("a", ZoneState.NORMAL, "b", ZoneState.NORMAL), zones);

    ZoneDecision a = new ZoneDecision("a", ZoneState.PARTIAL_DISRUPTION, 0.0);
    assertThat(plan.zones()).as("10 nodes: not a large zone; b unchanged").containsExactly(a);
    assertThat(ZoneDisruption.isWorthAnEvent(ZoneState.NORMAL, a.state())).isTrue();
    assertThat(ZoneDisruption.changeMessage("a", ZoneState.NORMAL, a, plan.outage()))
        .isEqualTo(
            "Zone a changed from Normal to PartialDisruption: NoExecute tainting at 0.0 nodes/s");
  }

  @Test
  void whenEveryZoneIsDownTaintingStopsEverywhereAndResumesAfter() {
    Map<String, int[]> down = new LinkedHashMap<>();
    down.put("a", new int[] {0, 5});
    down.put("b", new int[] {0, 5});

    Plan starts = decide(Map.of("a", ZoneState.NORMAL, "b", ZoneState.NORMAL), down);

    assertThat(starts.outage()).isEqualTo(Outage.STARTS);
    assertThat(starts.zones())
        .containsExactly(
            new ZoneDecision("a", ZoneState.FULL_DISRUPTION, 0.0),
            new ZoneDecision("b", ZoneState.FULL_DISRUPTION, 0.0));
    assertThat(starts.liftsNoExecuteTaints()).isTrue();
    assertThat(starts.restartsGracePeriods()).isFalse();
    assertThat(starts.zones())
        .map(d -> ZoneDisruption.changeMessage(d.zone(), ZoneState.NORMAL, d, starts.outage()))
        .allMatch(
            message ->
                message.endsWith(
                    "(every zone is fully disrupted: tainting and evictions stopped)"));

    Map<String, ZoneState> allFull =
        Map.of("a", ZoneState.FULL_DISRUPTION, "b", ZoneState.FULL_DISRUPTION);
    Plan lasts = decide(allFull, down);

    assertThat(lasts.outage()).isEqualTo(Outage.LASTS);
    assertThat(lasts.zones()).as("the rates stay at 0").isEmpty();
    assertThat(lasts.liftsNoExecuteTaints()).isTrue();

    Map<String, int[]> aRecovers = new LinkedHashMap<>();
    aRecovers.put("a", new int[] {5, 0});
    aRecovers.put("b", new int[] {0, 5});
    Plan ends = decide(allFull, aRecovers);

    assertThat(ends.outage()).isEqualTo(Outage.ENDS);
    assertThat(ends.zones())
        .as("a fully disrupted zone alone keeps the rate")
        .containsExactly(
            new ZoneDecision("a", ZoneState.NORMAL, 0.1),
            new ZoneDecision("b", ZoneState.FULL_DISRUPTION, 0.1));
    assertThat(ends.restartsGracePeriods())
        .as("the nodes' silence during the outage does not count")
        .isTrue();
    assertThat(ends.liftsNoExecuteTaints()).isFalse();
  }

  /** Zone states in the order the pass visits them. */
  private static Map<String, ZoneState> inOrder(Object... zoneThenState) {
    Map<String, ZoneState> states = new LinkedHashMap<>();
    for (int i = 0; i < zoneThenState.length; i += 2) {
      states.put((String) zoneThenState[i], (ZoneState) zoneThenState[i + 1]);
    }
    return states;
  }

  /**
   * §3.3: upstream's walk over the known zones forgets those without nodes and stops at the first
   * zone that was not fully disrupted (its break), so a zone without nodes visited after it is
   * kept: its rate as it was, its state upstream's empty one, which counts as Initial.
   */
  @Test
  void aZoneWithoutNodesIsForgottenOnlyWhenReachedBeforeAZoneThatWasNotFullyDisrupted() {
    Map<String, int[]> aUp = Map.of("a", new int[] {3, 0});

    Plan reached = decide(inOrder("gone", ZoneState.NORMAL, "a", ZoneState.NORMAL), aUp);

    assertThat(reached.forgotten()).containsExactly("gone");
    assertThat(reached.reset()).isEmpty();

    Plan unreached = decide(inOrder("a", ZoneState.NORMAL, "gone", ZoneState.NORMAL), aUp);

    assertThat(unreached.forgotten()).as("the walk stopped at a").isEmpty();
    assertThat(unreached.reset()).containsExactly("gone");
    assertThat(unreached.zones()).as("a unchanged; gone keeps its rate").isEmpty();
    assertThat(unreached.outage()).isEqualTo(Outage.NONE);

    Plan keptAgain = decide(inOrder("a", ZoneState.NORMAL, "gone", ZoneState.INITIAL), aUp);

    assertThat(keptAgain.forgotten()).isEmpty();
    assertThat(keptAgain.reset()).as("already Initial: no change").isEmpty();
  }

  @Test
  void anOutageThatStartsStopsTheZonesWithoutNodesThatThePassDidNotReach() {
    Map<String, int[]> aDown = Map.of("a", new int[] {0, 3});

    Plan plan = decide(inOrder("a", ZoneState.NORMAL, "gone", ZoneState.PARTIAL_DISRUPTION), aDown);

    assertThat(plan.outage()).isEqualTo(Outage.STARTS);
    assertThat(plan.forgotten()).isEmpty();
    assertThat(plan.zones())
        .containsExactly(
            new ZoneDecision("a", ZoneState.FULL_DISRUPTION, 0.0),
            new ZoneDecision("gone", ZoneState.FULL_DISRUPTION, 0.0));

    // Fully disrupted now, the kept zone no longer stops the walk: the next pass forgets it.
    Plan lasts =
        decide(inOrder("a", ZoneState.FULL_DISRUPTION, "gone", ZoneState.FULL_DISRUPTION), aDown);

    assertThat(lasts.outage()).isEqualTo(Outage.LASTS);
    assertThat(lasts.forgotten()).containsExactly("gone");
  }

  /**
   * When every zone was fully disrupted the walk never stops early: every zone without nodes is
   * forgotten, and each zone still counted gets the rate of its state.
   */
  @Test
  void anOutageThatEndsForgetsEveryZoneWithoutNodes() {
    Map<String, int[]> aRecovers = new LinkedHashMap<>();
    aRecovers.put("a", new int[] {2, 1});
    aRecovers.put("b", new int[] {0, 4});

    Plan plan =
        decide(
            inOrder(
                "a",
                ZoneState.FULL_DISRUPTION,
                "gone",
                ZoneState.FULL_DISRUPTION,
                "b",
                ZoneState.FULL_DISRUPTION),
            aRecovers);

    assertThat(plan.outage()).isEqualTo(Outage.ENDS);
    assertThat(plan.forgotten()).containsExactly("gone");
    assertThat(plan.reset()).isEmpty();
    assertThat(plan.zones())
        .containsExactly(
            new ZoneDecision("a", ZoneState.NORMAL, 0.1),
            new ZoneDecision("b", ZoneState.FULL_DISRUPTION, 0.1));
  }

  /**
   * §3.2: nodes that have not reported count as NotReady, so a starting cluster's zones go from
   * Initial to FullDisruption; that is no outage worth a warning. One that follows a zone judged
   * Normal (or partially disrupted) is.
   */
  @Test
  void anOutageAtStartUpIsToldApartFromOneAfterAZoneWasJudged() {
    Map<String, ZoneState> starting = new LinkedHashMap<>();
    starting.put("a", ZoneState.INITIAL);
    starting.put("b", ZoneState.INITIAL);
    assertThat(decide(starting, Map.of("a", new int[] {0, 3}, "b", new int[] {0, 2})).outage())
        .isEqualTo(Outage.STARTS);
    assertThat(ZoneDisruption.startsBeforeAnyZoneWasJudged(starting)).isTrue();

    Map<String, ZoneState> running = new LinkedHashMap<>(starting);
    running.put("b", ZoneState.NORMAL);
    assertThat(decide(running, Map.of("a", new int[] {0, 3}, "b", new int[] {0, 2})).outage())
        .isEqualTo(Outage.STARTS);
    assertThat(ZoneDisruption.startsBeforeAnyZoneWasJudged(running)).isFalse();
    assertThat(
            ZoneDisruption.startsBeforeAnyZoneWasJudged(Map.of("a", ZoneState.PARTIAL_DISRUPTION)))
        .isFalse();
  }

  @Test
  void noNodeThatCountsIsNoOutage() {
    Plan plan = decide(Map.of("a", ZoneState.FULL_DISRUPTION), Map.of());

    assertThat(plan.forgotten()).containsExactly("a");
    assertThat(plan.outage()).as("every zone down would be vacuous").isEqualTo(Outage.NONE);
    assertThat(plan.liftsNoExecuteTaints()).isFalse();
  }

  /** One zone among healthy others: its state, and its rate when the state changes. */
  @ParameterizedTest(name = "{0} -> {1} ready, {2} not: {3}, rate {4}")
  @CsvSource(
      nullValues = "none",
      value = {
        "NORMAL, 6, 9, PARTIAL_DISRUPTION, 0.0", // 15 nodes, not large: stops
        "NORMAL, 20, 30, PARTIAL_DISRUPTION, 0.0", // 50 is not > 50
        "NORMAL, 22, 29, PARTIAL_DISRUPTION, 0.01", // 51 > 50: secondary
        "NORMAL, 0, 3, FULL_DISRUPTION, 0.1", // alone down: the normal rate
        "PARTIAL_DISRUPTION, 10, 0, NORMAL, 0.1",
        "INITIAL, 2, 1, NORMAL, 0.1",
        "PARTIAL_DISRUPTION, 24, 36, none, none", // grew while Partial: keeps its rate
        "NORMAL, 10, 2, none, none",
      })
  void aZoneGetsTheRateOfItsNewStateOnlyWhenTheStateChanges(
      ZoneState before, int ready, int notReady, ZoneState after, Double rate) {
    Map<String, int[]> zones = new LinkedHashMap<>();
    zones.put("z", new int[] {ready, notReady});
    zones.put("healthy", new int[] {5, 0});

    Plan plan = decide(Map.of("z", before, "healthy", ZoneState.NORMAL), zones);

    assertThat(plan.outage()).isEqualTo(Outage.NONE);
    if (after == null) {
      assertThat(plan.zones()).isEmpty();
    } else {
      assertThat(plan.zones()).containsExactly(new ZoneDecision("z", after, rate));
    }
  }

  @ParameterizedTest(name = "{0} -> {1}: event {2}")
  @CsvSource({
    "INITIAL, NORMAL, false",
    "INITIAL, PARTIAL_DISRUPTION, true",
    "INITIAL, FULL_DISRUPTION, true",
    "PARTIAL_DISRUPTION, NORMAL, true",
    "NORMAL, FULL_DISRUPTION, true",
  })
  void everyChangeButANewZoneFoundNormalIsAnEvent(
      ZoneState previous, ZoneState state, boolean event) {
    assertThat(ZoneDisruption.isWorthAnEvent(previous, state)).isEqualTo(event);
  }
}
