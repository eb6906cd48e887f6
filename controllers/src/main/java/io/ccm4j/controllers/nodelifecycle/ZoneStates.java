package io.ccm4j.controllers.nodelifecycle;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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
   * §3.5: a zone seen for the first time, or again after it had no nodes that count, starts
   * Initial. False when the zone is known already.
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

  /** Every known zone's state, as the pass's decisions start from. */
  Map<String, ZoneState> snapshot() {
    return new LinkedHashMap<>(byZone);
  }
}
