package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Each zone's state between passes, and the order a pass visits the zones in (§3.3). */
class ZoneStatesTest {

  @Test
  void aPassVisitsTheKnownAndTheNewlyCountedZonesInAnOrderDrawnAfreshEachTime() {
    ZoneStates states = new ZoneStates();
    states.add("a");
    states.set("a", ZoneState.NORMAL);
    states.add("b");
    states.set("b", ZoneState.FULL_DISRUPTION);
    states.add("c");
    SplittableRandom random = new SplittableRandom(7);

    Set<List<String>> orders = new HashSet<>();
    for (int pass = 0; pass < 200; pass++) {
      Map<String, ZoneState> visit = states.inVisitOrder(Set.of("a", "new"), random);
      assertThat(visit)
          .containsOnly(
              Map.entry("a", ZoneState.NORMAL),
              Map.entry("b", ZoneState.FULL_DISRUPTION),
              Map.entry("c", ZoneState.INITIAL),
              Map.entry("new", ZoneState.INITIAL));
      orders.add(List.copyOf(visit.keySet()));
    }

    // As Go's range over a map: no zone always comes after another, so a zone without nodes
    // is not kept for good behind a zone that stays healthy.
    assertThat(orders).as("all 24 orders of 4 zones").hasSize(24);
    assertThat(states.add("new")).as("visiting records nothing").isTrue();
  }
}
