package io.ccm4j.runtime.client.protobuf;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One instance of each value that recurs across the cached Nodes, by the text it is read from: the
 * strings (label and annotation keys, the zone, region and instance type, condition types, reasons
 * and messages, resource names, the kernel, OS image and runtime versions) and the quantities of
 * capacity and allocatable. A kubelet's Node carries a hundred strings and most of them are the
 * same on every node; decoded as they come, 5,000 Nodes keep about half a million strings in the
 * informer's cache, the largest part of its heap.
 *
 * <p>Bounded: once it holds {@link #capacity} values it takes no more and hands back a value made
 * for the caller alone, so texts unique to a node (names, addresses, IDs) that a caller pools
 * anyway cost at most that many entries. The values that recur are pooled as the first Nodes
 * arrive, before it fills. Thread-safe (the informer decodes on the client's threads). A pooled
 * value is shared by every Node that holds it: it must not be changed, as nothing in a cached Node
 * may be.
 *
 * @param <V> the kind of value
 */
final class Pool<V> {

  private final ConcurrentHashMap<String, V> values;
  private final int capacity;

  Pool(int capacity) {
    this.capacity = capacity;
    this.values = new ConcurrentHashMap<>(Math.min(capacity, 1024));
  }

  /**
   * The pooled value of {@code text}: the first one {@code read} made of it, or one made now and
   * not kept when the pool is full.
   */
  V get(String text, Function<String, V> read) {
    V pooled = values.get(text);
    if (pooled != null) {
      return pooled;
    }
    V value = read.apply(text);
    if (values.size() >= capacity) {
      return value;
    }
    pooled = values.putIfAbsent(text, value);
    return pooled == null ? value : pooled;
  }

  int size() {
    return values.size();
  }
}
