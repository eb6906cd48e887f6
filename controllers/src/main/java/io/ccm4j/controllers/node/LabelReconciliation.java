package io.ccm4j.controllers.node;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps the GA topology labels equal to the beta ones on initialised nodes (N14). Upstream still
 * treats the beta label as the source of truth (§8.5); ccm4j follows it.
 */
final class LabelReconciliation {

  /** Primary (beta) label → secondary (GA) label. */
  private static final List<Map.Entry<String, String>> PAIRS =
      List.of(
          Map.entry(WellKnownLabels.ZONE_BETA, WellKnownLabels.ZONE),
          Map.entry(WellKnownLabels.REGION_BETA, WellKnownLabels.REGION),
          Map.entry(WellKnownLabels.INSTANCE_TYPE_BETA, WellKnownLabels.INSTANCE_TYPE));

  private LabelReconciliation() {}

  /** The GA labels to set; empty when they already agree. */
  static Map<String, String> missing(Map<String, String> labels) {
    Map<String, String> result = new LinkedHashMap<>();
    if (labels == null) {
      return result;
    }
    for (Map.Entry<String, String> pair : PAIRS) {
      String primary = labels.get(pair.getKey());
      if (primary != null && !primary.equals(labels.get(pair.getValue()))) {
        result.put(pair.getValue(), primary);
      }
    }
    return result;
  }
}
