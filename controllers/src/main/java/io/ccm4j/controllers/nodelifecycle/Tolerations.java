package io.ccm4j.controllers.nodelifecycle;

import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Which tolerations match which taints, and for how long (node-lifecycle spec §4.4). */
public final class Tolerations {

  private Tolerations() {}

  /** Whether one toleration tolerates one taint ({@code ToleratesTaint}). */
  public static boolean tolerates(Toleration toleration, Taint taint) {
    if (!isEmpty(toleration.getEffect()) && !toleration.getEffect().equals(taint.getEffect())) {
      return false;
    }
    String operator = toleration.getOperator() == null ? "" : toleration.getOperator();
    if (!isEmpty(toleration.getKey()) && !toleration.getKey().equals(taint.getKey())) {
      return false;
    }
    if (isEmpty(toleration.getKey()) && !operator.equals("Exists")) {
      return false;
    }
    return switch (operator) {
      case "", "Equal" -> nullToEmpty(toleration.getValue()).equals(nullToEmpty(taint.getValue()));
      case "Exists" -> true;
      default -> false;
    };
  }

  /**
   * For each taint the first toleration, in pod order, that tolerates it; empty when some taint has
   * none ({@code GetMatchingTolerations}).
   */
  public static Optional<List<Toleration>> matching(
      List<Taint> taints, List<Toleration> tolerations) {
    if (taints.isEmpty()) {
      return Optional.of(List.of());
    }
    List<Toleration> used = new ArrayList<>();
    for (Taint taint : taints) {
      Optional<Toleration> first =
          tolerations.stream().filter(t -> tolerates(t, taint)).findFirst();
      if (first.isEmpty()) {
        return Optional.empty();
      }
      used.add(first.get());
    }
    return Optional.of(used);
  }

  /**
   * How long the pod may stay, in seconds: 0 if any used toleration has {@code tolerationSeconds <=
   * 0} (or none is used), the least of the given seconds otherwise, and -1 (forever) when none
   * gives seconds. As upstream's, whose "none" is the int64 maximum, a least of exactly {@link
   * Long#MAX_VALUE} seconds is forever too.
   */
  public static long minTolerationSeconds(List<Toleration> used) {
    if (used.isEmpty()) {
      return 0;
    }
    long min = Long.MAX_VALUE;
    for (Toleration toleration : used) {
      Long seconds = toleration.getTolerationSeconds();
      if (seconds == null) {
        continue;
      }
      if (seconds <= 0) {
        return 0;
      }
      min = Math.min(min, seconds);
    }
    return min == Long.MAX_VALUE ? -1 : min;
  }

  private static boolean isEmpty(String value) {
    return value == null || value.isEmpty();
  }

  private static String nullToEmpty(String value) {
    return value == null ? "" : value;
  }
}
