package io.ccm4j.controllers.nodelifecycle;

import io.fabric8.kubernetes.api.model.NodeCondition;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The node-lifecycle controller's zone state machine (node-lifecycle spec §3.3, upstream's {@code
 * handleDisruption}) as a pure decision: each zone is Normal, PartialDisruption or FullDisruption
 * by the share of its nodes that are not Ready, which sets its NoExecute tainting rate ({@link
 * ZoneEvictionRate}); when every zone is fully disrupted (the control plane, not the nodes, is the
 * likely cause) tainting stops and the taints are lifted. The controller's pass applies the {@link
 * Plan}.
 */
final class ZoneDisruption {

  /** Where the pass stands towards the outage of every zone. */
  enum Outage {
    /** Some zone is not fully disrupted, now and before. */
    NONE,
    /** Every zone has just become fully disrupted: tainting stops, NoExecute taints are lifted. */
    STARTS,
    /**
     * Every zone was and is fully disrupted: the taints stay lifted (upstream lifts them once, on
     * the transition; see ARCHITECTURE.md's deliberate differences).
     */
    LASTS,
    /** Some zone has recovered: every node's grace period restarts, every zone gets its rate. */
    ENDS
  }

  /** One zone's decision: its new state and the rate its tainter runs at from now on. */
  record ZoneDecision(String zone, ZoneState state, double rate) {}

  /**
   * What one pass decided for the zones.
   *
   * @param forgotten zones without nodes that count that the pass reached: their state and gauges
   *     go, and a node of theirs seen again starts them afresh (§3.5)
   * @param zones zones whose rate is set and state recorded, in the pass's zone order
   * @param reset zones without nodes that count that the pass did not reach (it stops at the first
   *     zone not fully disrupted before): kept, their rate as it was, their state back to Initial
   *     (upstream's empty state, which counts as Initial does)
   * @param outage where the pass stands towards the outage of every zone
   */
  record Plan(Set<String> forgotten, List<ZoneDecision> zones, Set<String> reset, Outage outage) {

    /** Whether every NoExecute taint is lifted (which cancels the evictions they scheduled). */
    boolean liftsNoExecuteTaints() {
      return outage == Outage.STARTS || outage == Outage.LASTS;
    }

    /** Whether every node's grace period restarts now. */
    boolean restartsGracePeriods() {
      return outage == Outage.ENDS;
    }
  }

  private ZoneDisruption() {}

  /**
   * §3.3: the zones' new states and rates from their nodes' Ready conditions.
   *
   * <p>As upstream's, the pass walks the known zones in {@code previous}'s order (Go's map order,
   * random on every pass), forgetting the zones without nodes that count, and stops at the first
   * zone that was not fully disrupted: a zone without nodes after it is kept until a later pass
   * reaches it. Kept, it is stopped with the others when every zone becomes fully disrupted, and a
   * node of it seen again finds its old queue.
   *
   * @param previous each known zone's state before this pass, in the order the pass visits them
   * @param zoneConditions the Ready condition (null when none) of each counted node, by zone
   */
  static Plan decide(
      Map<String, ZoneState> previous,
      Map<String, List<NodeCondition>> zoneConditions,
      float unhealthyZoneThreshold,
      ZoneEvictionRate rates) {
    Set<String> forgotten = new LinkedHashSet<>();
    Set<String> unreached = new LinkedHashSet<>();
    boolean allWasFullyDisrupted = true;
    for (Map.Entry<String, ZoneState> entry : previous.entrySet()) {
      String zone = entry.getKey();
      boolean counted = zoneConditions.containsKey(zone);
      if (!allWasFullyDisrupted) {
        if (!counted) {
          unreached.add(zone);
        }
      } else if (!counted) {
        forgotten.add(zone);
      } else if (entry.getValue() != ZoneState.FULL_DISRUPTION) {
        allWasFullyDisrupted = false; // upstream's break: the zones after this one are not visited
      }
    }
    // A counted zone not known before (its node's zone changed since the pass listed it) is
    // Initial, which is not fully disrupted.
    allWasFullyDisrupted &= previous.keySet().containsAll(zoneConditions.keySet());
    if (zoneConditions.isEmpty()) {
      // No node counts (none, or all excluded): "every zone is down" would be vacuous.
      return new Plan(forgotten, List.of(), Set.of(), Outage.NONE);
    }
    boolean allAreFullyDisrupted = true;
    List<ZoneDecision> decisions = new ArrayList<>();
    for (Map.Entry<String, List<NodeCondition>> entry : zoneConditions.entrySet()) {
      String zone = entry.getKey();
      ZoneState state = ZoneState.compute(entry.getValue(), unhealthyZoneThreshold);
      allAreFullyDisrupted &= state == ZoneState.FULL_DISRUPTION;
      decisions.add(new ZoneDecision(zone, state, rates.forZone(state, entry.getValue().size())));
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) {
      // Nothing stopped the walk: no zone was left unreached.
      return new Plan(forgotten, List.of(), Set.of(), Outage.LASTS);
    }
    if (allAreFullyDisrupted) {
      // Every zone still known is stopped, the unreached ones too.
      List<ZoneDecision> stopped =
          Stream.concat(decisions.stream().map(ZoneDecision::zone), unreached.stream())
              .map(zone -> new ZoneDecision(zone, ZoneState.FULL_DISRUPTION, 0))
              .toList();
      return new Plan(forgotten, stopped, Set.of(), Outage.STARTS);
    }
    if (allWasFullyDisrupted) {
      return new Plan(forgotten, decisions, Set.of(), Outage.ENDS);
    }
    // A rate changes only with the zone's state: a Partial zone that grows keeps its rate.
    List<ZoneDecision> changed =
        decisions.stream()
            .filter(d -> previous.getOrDefault(d.zone(), ZoneState.INITIAL) != d.state())
            .toList();
    Set<String> reset = new LinkedHashSet<>(unreached);
    reset.removeIf(zone -> previous.get(zone) == ZoneState.INITIAL);
    return new Plan(forgotten, changed, reset, Outage.NONE);
  }

  /**
   * Whether an outage that starts now starts before any zone was judged: a cluster starting, whose
   * nodes have not reported Ready yet (§3.2 counts them NotReady, so every new zone is fully
   * disrupted). Upstream logs entering that mode at Info; ccm4j warns only of an outage that
   * follows a zone seen Normal or partially disrupted.
   */
  static boolean startsBeforeAnyZoneWasJudged(Map<String, ZoneState> previous) {
    return previous.values().stream().allMatch(state -> state == ZoneState.INITIAL);
  }

  /** The log line (and event message) for a zone's change of state. */
  static String changeMessage(
      String zone, ZoneState previous, ZoneDecision decision, Outage outage) {
    return "Zone %s changed from %s to %s: NoExecute tainting at %s nodes/s%s"
        .formatted(
            ZoneState.describe(zone),
            previous,
            decision.state(),
            decision.rate(),
            outage == Outage.STARTS
                ? " (every zone is fully disrupted: tainting and evictions stopped)"
                : "");
  }

  /** Whether a change of state is worth an event: any but a new zone found Normal. */
  static boolean isWorthAnEvent(ZoneState previous, ZoneState state) {
    return previous != null && previous != ZoneState.INITIAL || state != ZoneState.NORMAL;
  }
}
