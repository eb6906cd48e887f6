package io.ccm4j.controllers.nodelifecycle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;

/**
 * Each zone's disruption state between passes (node-lifecycle spec §3.3), the one place it is kept:
 * written by the health pass, read without its lock by the tainting loop for its events.
 */
final class ZoneStates {

  private final Map<String, ZoneState> byZone = new ConcurrentHashMap<>();

  /** The zone's state; Initial for a zone not seen yet. */
  ZoneState state(String zone) {
    return byZone.getOrDefault(zone, ZoneState.INITIAL);
  }

  /**
   * §3.5: a zone seen for the first time, or again after a pass forgot it (§3.3), starts Initial.
   * False when the zone is known already.
   */
  boolean add(String zone) {
    return byZone.putIfAbsent(zone, ZoneState.INITIAL) == null;
  }

  /** Sets the zone's state; returns the one it had (null when the zone was not known). */
  ZoneState set(String zone, ZoneState state) {
    return byZone.put(zone, state);
  }

  /** Forgets a zone without nodes that count. */
  void forget(String zone) {
    byZone.remove(zone);
  }

  /**
   * Every known zone's state, and each counted zone not known yet as Initial (§3.3's first loop),
   * in a random order: the pass's decisions start from it and visit the zones in that order, as
   * upstream ranges over its map of zones, an order Go draws afresh on every pass. The order
   * decides which zones without nodes a pass forgets ({@link ZoneDisruption#decide}); drawn afresh,
   * it leaves none of them known for long.
   */
  Map<String, ZoneState> inVisitOrder(Set<String> counted, RandomGenerator random) {
    Map<String, ZoneState> states = new HashMap<>(byZone);
    counted.forEach(zone -> states.putIfAbsent(zone, ZoneState.INITIAL));
    List<String> zones = new ArrayList<>(states.keySet());
    Collections.shuffle(zones, random);
    Map<String, ZoneState> ordered = new LinkedHashMap<>();
    zones.forEach(zone -> ordered.put(zone, states.get(zone)));
    return ordered;
  }
}
