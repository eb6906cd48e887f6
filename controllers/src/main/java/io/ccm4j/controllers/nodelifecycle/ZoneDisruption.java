package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-lifecycle controller's zone state machine (node-lifecycle spec §3.3): each zone is
 * Normal, PartialDisruption or FullDisruption by the share of its nodes that are not Ready, which
 * sets its NoExecute tainting rate; when every zone is fully disrupted (the control plane, not the
 * nodes, is the likely cause) tainting stops and the taints are lifted.
 */
final class ZoneDisruption {

  private static final Logger log = LoggerFactory.getLogger(ZoneDisruption.class);

  private final NodeHealthSettings settings;
  private final NoExecuteTainting tainting;
  private final EventRecorder events;
  private final InstantSource clock;
  private final NodeLifecycleControllerMetrics metrics;
  private final Map<String, NodeHealth> health;

  // Read by the tainting loop (for its events) without the pass's lock.
  private final Map<String, ZoneState> zoneStates = new ConcurrentHashMap<>();

  /**
   * @param health the controller's view of each node, whose probe times restart when the zones
   *     recover from a full disruption
   */
  ZoneDisruption(
      NodeHealthSettings settings,
      NoExecuteTainting tainting,
      EventRecorder events,
      InstantSource clock,
      NodeLifecycleControllerMetrics metrics,
      Map<String, NodeHealth> health) {
    this.settings = settings;
    this.tainting = tainting;
    this.events = events;
    this.clock = clock;
    this.metrics = metrics;
    this.health = health;
  }

  /** The zone's state; Initial for a zone not seen yet. */
  ZoneState state(String zone) {
    return zoneStates.getOrDefault(zone, ZoneState.INITIAL);
  }

  /** Whether the zone has a state (it had nodes that count at the last pass, or is new). */
  boolean knows(String zone) {
    return zoneStates.containsKey(zone);
  }

  /**
   * §3.3: each zone's new state from its nodes' Ready conditions, the tainting rates that follow,
   * and, when every zone is fully disrupted, no NoExecute taints at all.
   */
  void handle(Map<String, List<NodeCondition>> zoneConditions, List<Node> all) {
    Map<String, ZoneState> newStates = new LinkedHashMap<>();
    zoneConditions.forEach(
        (zone, conditions) ->
            newStates.put(zone, ZoneState.compute(conditions, settings.unhealthyZoneThreshold())));
    boolean allAreFullyDisrupted =
        newStates.values().stream().allMatch(s -> s == ZoneState.FULL_DISRUPTION);
    newStates.keySet().forEach(zone -> zoneStates.putIfAbsent(zone, ZoneState.INITIAL));
    boolean allWasFullyDisrupted = true;
    for (String zone : new ArrayList<>(zoneStates.keySet())) {
      if (!zoneConditions.containsKey(zone)) {
        zoneStates.remove(zone);
        metrics.remove(zone); // as upstream deletes the zone's series
        continue;
      }
      if (zoneStates.get(zone) != ZoneState.FULL_DISRUPTION) {
        allWasFullyDisrupted = false;
      }
    }
    Map<String, Integer> sizes = new HashMap<>();
    zoneConditions.forEach((zone, conditions) -> sizes.put(zone, conditions.size()));
    updateGauges(zoneConditions);
    if (newStates.isEmpty()) {
      return; // no node counts (none, or all excluded): "every zone is down" would be vacuous
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) {
      // Upstream lifts the NoExecute taints only on the transition, judged from the cache: a taint
      // a tainting pass wrote just before (not yet in the cache) would stay for the whole outage.
      // Lifting on every pass costs a cache read per node and no API call when nothing is there.
      for (Node node : all) {
        tainting.markNodeAsReachableLogged(node);
      }
      return;
    }
    if (allAreFullyDisrupted) {
      log.warn(
          "every zone is fully disrupted: stopping NoExecute tainting and lifting those taints");
      // Stop the tainting first: a lift that fails must not leave it running during the outage.
      for (String zone : zoneStates.keySet()) {
        tainting.setRate(zone, 0);
      }
      for (Node node : all) {
        tainting.markNodeAsReachableLogged(node);
      }
      for (String zone : zoneStates.keySet()) {
        changeState(zone, ZoneState.FULL_DISRUPTION, 0, true);
      }
      return;
    }
    if (allWasFullyDisrupted) {
      Instant now = clock.instant();
      health.replaceAll((name, h) -> new NodeHealth(now, now, h.savedReady(), h.leaseRenewTime()));
      for (Map.Entry<String, ZoneState> entry : newStates.entrySet()) {
        String zone = entry.getKey();
        double rate = settings.rateFor(entry.getValue(), sizes.get(zone));
        tainting.setRate(zone, rate);
        changeState(zone, entry.getValue(), rate, true);
      }
      return;
    }
    for (Map.Entry<String, ZoneState> entry : newStates.entrySet()) {
      String zone = entry.getKey();
      if (zoneStates.get(zone) != entry.getValue()) {
        double rate = settings.rateFor(entry.getValue(), sizes.get(zone));
        tainting.setRate(zone, rate);
        changeState(zone, entry.getValue(), rate, false);
      }
    }
  }

  private void changeState(String zone, ZoneState state, double rate, boolean masterDisruption) {
    ZoneState previous = zoneStates.put(zone, state);
    if (previous == state) {
      return;
    }
    metrics.zone(zone).state.set(state);
    String message =
        "Zone %s changed from %s to %s: NoExecute tainting at %s nodes/s%s"
            .formatted(
                ZoneState.describe(zone),
                previous,
                state,
                rate,
                masterDisruption && state == ZoneState.FULL_DISRUPTION
                    ? " (every zone is fully disrupted: tainting and evictions stopped)"
                    : "");
    log.info(message);
    if (previous != null && previous != ZoneState.INITIAL || state != ZoneState.NORMAL) {
      if (state == ZoneState.NORMAL) {
        events.normal(eventAnchor(), NodeLifecycleController.REASON_ZONE_STATE_CHANGED, message);
      } else {
        events.warning(eventAnchor(), NodeLifecycleController.REASON_ZONE_STATE_CHANGED, message);
      }
    }
  }

  /** Zone decisions concern no single node; their events are recorded on kube-system. */
  private static HasMetadata eventAnchor() {
    Namespace namespace =
        new NamespaceBuilder()
            .withNewMetadata()
            .withName(WellKnownNamespaces.KUBE_SYSTEM)
            .endMetadata()
            .build();
    namespace.setApiVersion("v1");
    namespace.setKind("Namespace");
    return namespace;
  }

  /** A zone seen for the first time, or again after it had no nodes that count. */
  void addZone(String zone) {
    ZoneTainter tainter = tainting.tainter(zone);
    if (!zoneStates.containsKey(zone)) {
      zoneStates.put(zone, ZoneState.INITIAL);
      // A zone that comes back (its nodes were all excluded or gone) starts at the normal rate,
      // as upstream's new queue does, not at whatever its last state left.
      tainter.setRate(settings.evictionRate());
    }
  }

  private void updateGauges(Map<String, List<NodeCondition>> zoneConditions) {
    zoneConditions.forEach(
        (zone, conditions) -> {
          int size = conditions.size();
          long unhealthy =
              conditions.stream()
                  .filter(c -> c == null || !ConditionStatus.TRUE.equals(c.getStatus()))
                  .count();
          NodeLifecycleControllerMetrics.Zone gauges = metrics.zone(zone);
          gauges.size.set((double) size);
          gauges.unhealthy.set((double) unhealthy);
          gauges.health.set(size == 0 ? 100.0 : 100.0 * (size - unhealthy) / size);
        });
  }
}
