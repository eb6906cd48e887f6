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
   * The taints with {@code taint} added, replacing one of the same key and effect (H1); the same
   * list when an identical taint is present.
   */
  public static List<Taint> withTaint(List<Taint> taints, Taint taint) {
    for (Taint existing : taints) {
      if (Objects.equals(existing.getKey(), taint.getKey())
          && Objects.equals(existing.getEffect(), taint.getEffect())
          && Objects.equals(existing.getValue(), taint.getValue())) {
        return taints;
      }
    }
    List<Taint> result =
        new java.util.ArrayList<>(without(taints, taint.getKey(), taint.getEffect()));
    result.add(taint);
    return result;
  }
}
