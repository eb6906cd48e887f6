package io.ccm4j.controllers.nodelifecycle;

import io.ccm4j.cloudprovider.api.ConditionStatus;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.util.List;
import java.util.Map;

/** A zone's disruption state (node-lifecycle spec §3.2) and how nodes are keyed by zone (§3.1). */
public enum ZoneState {
  INITIAL("Initial"),
  NORMAL("Normal"),
  PARTIAL_DISRUPTION("PartialDisruption"),
  FULL_DISRUPTION("FullDisruption");

  private final String display;

  ZoneState(String display) {
    this.display = display;
  }

  @Override
  public String toString() {
    return display;
  }

  /**
   * Full when no node is Ready and some are not; Partial when more than 2 are not Ready and their
   * share is at least the threshold (compared in float, as upstream does in float32); else Normal.
   * A missing Ready condition counts as not Ready.
   */
  public static ZoneState compute(List<NodeCondition> readyConditions, float unhealthyThreshold) {
    int ready = 0;
    int notReady = 0;
    for (NodeCondition condition : readyConditions) {
      if (condition != null && ConditionStatus.TRUE.equals(condition.getStatus())) {
        ready++;
      } else {
        notReady++;
      }
    }
    if (ready == 0 && notReady > 0) {
      return FULL_DISRUPTION;
    }
    if (notReady > 2 && (float) notReady / (float) (notReady + ready) >= unhealthyThreshold) {
      return PARTIAL_DISRUPTION;
    }
    return NORMAL;
  }

  /**
   * The zone key: region and zone, beta labels first when present (even empty); "" for a node with
   * neither.
   */
  public static String zoneKey(Map<String, String> labels) {
    if (labels == null) {
      return "";
    }
    String zone =
        labels.containsKey(WellKnownLabels.ZONE_BETA)
            ? labels.get(WellKnownLabels.ZONE_BETA)
            : labels.getOrDefault(WellKnownLabels.ZONE, "");
    String region =
        labels.containsKey(WellKnownLabels.REGION_BETA)
            ? labels.get(WellKnownLabels.REGION_BETA)
            : labels.getOrDefault(WellKnownLabels.REGION, "");
    if (zone.isEmpty() && region.isEmpty()) {
      return "";
    }
    return region + ":\u0000:" + zone;
  }

  /** A zone key as people read it: {@code region/zone}. */
  public static String describe(String zoneKey) {
    return zoneKey.isEmpty() ? "(no zone)" : zoneKey.replace(":\u0000:", "/");
  }
}
