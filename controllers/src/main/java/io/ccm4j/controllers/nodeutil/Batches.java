package io.ccm4j.controllers.nodeutil;

import java.util.ArrayList;
import java.util.List;

/** Splits what a pass asks the cloud about into bulk calls of at most a provider's size. */
public final class Batches {

  private Batches() {}

  /** {@code items} in order, in lists of {@code size} (the last one shorter); size below 1 is 1. */
  public static <T> List<List<T>> of(List<T> items, int size) {
    int n = Math.max(1, size);
    List<List<T>> batches = new ArrayList<>();
    for (int from = 0; from < items.size(); from += n) {
      batches.add(List.copyOf(items.subList(from, Math.min(items.size(), from + n))));
    }
    return batches;
  }
}
