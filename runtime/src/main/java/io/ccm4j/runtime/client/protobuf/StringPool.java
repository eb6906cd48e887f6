package io.ccm4j.runtime.client.protobuf;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One instance of each string that recurs across the cached Nodes: label and annotation keys, the
 * zone, region and instance type, condition types, reasons and messages, resource names and
 * quantities, the kernel, OS image and runtime versions. A kubelet's Node carries a hundred strings
 * and most of them are the same on every node; decoded as they come, 5,000 Nodes keep about half a
 * million strings in the informer's cache, the largest part of its heap.
 *
 * <p>Bounded: once it holds {@link #capacity} strings it takes no more and hands back what it is
 * given, so values unique to a node (names, addresses, IDs) that a caller pools anyway cost at most
 * that many entries. The strings that recur are pooled as the first Nodes arrive, before it fills.
 * Thread-safe (the informer decodes on the client's threads).
 */
final class StringPool {

  private final ConcurrentHashMap<String, String> strings;
  private final int capacity;

  StringPool(int capacity) {
    this.capacity = capacity;
    this.strings = new ConcurrentHashMap<>(Math.min(capacity, 1024));
  }

  /** The pooled instance equal to {@code value}: the first one seen, or {@code value} itself. */
  String pool(String value) {
    if (value == null || value.isEmpty()) {
      return value;
    }
    String pooled = strings.get(value);
    if (pooled != null) {
      return pooled;
    }
    if (strings.size() >= capacity) {
      return value;
    }
    pooled = strings.putIfAbsent(value, value);
    return pooled == null ? value : pooled;
  }

  int size() {
    return strings.size();
  }
}
