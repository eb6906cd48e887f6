package io.ccm4j.controllers.nodeutil;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.List;
import java.util.Objects;

/** Reading taints of a node, matched by key, or by key and effect. */
public final class Taints {

  private Taints() {}

  public static List<Taint> of(Node node) {
    return node.getSpec() == null || node.getSpec().getTaints() == null
        ? List.of()
        : node.getSpec().getTaints();
  }

  public static boolean hasKey(Node node, String key) {
    return of(node).stream().anyMatch(taint -> key.equals(taint.getKey()));
  }

  public static boolean has(Node node, String key, String effect) {
    return of(node).stream()
        .anyMatch(taint -> key.equals(taint.getKey()) && effect.equals(taint.getEffect()));
  }

  /** The taints without any of this key (whatever effect). */
  public static List<Taint> withoutKey(List<Taint> taints, String key) {
    return taints.stream().filter(taint -> !key.equals(taint.getKey())).toList();
  }

  /** The taints without this key and effect. */
  public static List<Taint> without(List<Taint> taints, String key, String effect) {
    return taints.stream()
        .filter(taint -> !(key.equals(taint.getKey()) && effect.equals(taint.getEffect())))
        .toList();
  }

  /**
   * The taints with {@code taint} added (H1, upstream's {@code AddOrUpdateTaint}): a taint of the
   * same key and effect is replaced where it stands, unless it is identical (value and time added
   * too), in which case the same list is returned; else the taint goes last.
   */
  public static List<Taint> withTaint(List<Taint> taints, Taint taint) {
    List<Taint> result = new java.util.ArrayList<>(taints.size() + 1);
    boolean replaced = false;
    for (Taint existing : taints) {
      if (Objects.equals(existing.getKey(), taint.getKey())
          && Objects.equals(existing.getEffect(), taint.getEffect())) {
        if (Objects.equals(existing.getValue(), taint.getValue())
            && Objects.equals(existing.getTimeAdded(), taint.getTimeAdded())) {
          return taints;
        }
        result.add(taint);
        replaced = true;
      } else {
        result.add(existing);
      }
    }
    if (!replaced) {
      result.add(taint);
    }
    return result;
  }
}
