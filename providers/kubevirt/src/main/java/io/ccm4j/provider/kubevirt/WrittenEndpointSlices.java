package io.ccm4j.provider.kubevirt;

import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The writes of {@link KubeVirtEndpointSlices} its informer has not shown yet (upstream's
 * endpointslice controller keeps the same, {@code EndpointSliceTracker}). A pass over a cache that
 * misses one would write it again: a slice just created looks missing, so a second one was created
 * (and deleted by the pass after), and a slice just updated looks old, so it was updated again from
 * its old version, which the API server refuses with a conflict. Such a Service waits for its
 * informer, which shows each write in order.
 *
 * <p>A write is known by the slice's UID and the version written: a create or an update is shown
 * once the informer has that version or a later one (a generation at least the written one); a
 * delete once the slice is gone or waits for its finalizers. A created or updated slice the cache
 * does not hold at all, and the API server no longer has ({@link #unseenSince}, {@link #forget}),
 * is forgotten: the informer will never show it. Any other write the informer never shows stops
 * counting after {@code patience}, and every write is forgotten then: until then it tells a
 * conflict on the slice from this controller's own write apart from someone else's. Thread-safe.
 */
final class WrittenEndpointSlices {

  /**
   * A write: the Service, the version written, or null for a delete, when, and whether the informer
   * has shown it.
   */
  private record Write(
      String service, String resourceVersion, long generation, long atNanos, boolean shown) {
    boolean deleted() {
      return resourceVersion == null;
    }
  }

  private final Duration patience;
  private final LongSupplier nanoTime;
  private final Map<String, Write> byUid = new HashMap<>();

  WrittenEndpointSlices(Duration patience, LongSupplier nanoTime) {
    this.patience = patience;
    this.nanoTime = nanoTime;
  }

  /** {@code slice} as the API server answered a create or an update of it. */
  synchronized void written(String service, EndpointSlice slice) {
    byUid.put(
        slice.getMetadata().getUid(),
        new Write(
            service,
            slice.getMetadata().getResourceVersion(),
            generation(slice),
            nanoTime.getAsLong(),
            false));
  }

  /** {@code slice} was deleted. */
  synchronized void deleted(String service, EndpointSlice slice) {
    byUid.put(
        slice.getMetadata().getUid(), new Write(service, null, 0, nanoTime.getAsLong(), false));
  }

  /** The informer shows {@code slice}, or shows it gone. */
  synchronized void observed(EndpointSlice slice, boolean gone) {
    String uid = slice.getMetadata().getUid();
    Write write = byUid.get(uid);
    if (write != null && !write.shown() && (gone || shows(slice, write))) {
      byUid.put(
          uid,
          new Write(
              write.service(), write.resourceVersion(), write.generation(), write.atNanos(), true));
    }
  }

  /** Whether the cached slices of {@code service} miss one of its writes. */
  synchronized boolean stale(String service, List<EndpointSlice> cached) {
    long now = nanoTime.getAsLong();
    byUid.values().removeIf(write -> now - write.atNanos() > patience.toNanos());
    for (Map.Entry<String, Write> entry : byUid.entrySet()) {
      Write write = entry.getValue();
      if (write.shown() || !write.service().equals(service)) {
        continue;
      }
      EndpointSlice slice =
          cached.stream()
              .filter(s -> entry.getKey().equals(s.getMetadata().getUid()))
              .findFirst()
              .orElse(null);
      if (write.deleted() ? slice != null && !pendingDeletion(slice) : !shows(slice, write)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The UIDs of the creates and updates for {@code service}, made at least {@code age} ago, whose
   * slice the cached slices do not hold at all. A slice deleted before the informer's watch
   * delivered its create (a relist past both) is never shown, and neither is its deletion, since
   * the informer never held it: only the API server can tell such a write from a cache that is
   * merely behind.
   */
  synchronized Set<String> unseenSince(String service, List<EndpointSlice> cached, Duration age) {
    long now = nanoTime.getAsLong();
    Set<String> uids = new HashSet<>();
    for (Map.Entry<String, Write> entry : byUid.entrySet()) {
      Write write = entry.getValue();
      if (!write.shown()
          && !write.deleted()
          && write.service().equals(service)
          && now - write.atNanos() >= age.toNanos()
          && cached.stream().noneMatch(s -> entry.getKey().equals(s.getMetadata().getUid()))) {
        uids.add(entry.getKey());
      }
    }
    return uids;
  }

  /** The API server has none of the slices {@code uids}: there is nothing to wait for. */
  synchronized void forget(Collection<String> uids) {
    uids.forEach(byUid::remove);
  }

  /** Whether this controller wrote the slice {@code uid} within {@code patience}. */
  synchronized boolean recentlyWritten(String uid) {
    Write write = byUid.get(uid);
    return write != null && nanoTime.getAsLong() - write.atNanos() <= patience.toNanos();
  }

  /**
   * Whether the cached {@code slice} shows {@code write}: a delete once the slice waits for its
   * finalizers (the API server keeps it until they are gone, which may be never); a create or an
   * update once it has the version written or any later one. Every write of this controller changes
   * the endpoints, the ports or the labels, each of which raises the generation (the API server's
   * EndpointSlice strategy), or nothing, which keeps the version; a later write of someone else's
   * that changes only annotations keeps the generation, so it is compared with {@code >=}, as
   * upstream's {@code EndpointSliceTracker} does.
   */
  private static boolean shows(EndpointSlice slice, Write write) {
    if (slice == null) {
      return false;
    }
    if (write.deleted()) {
      return pendingDeletion(slice);
    }
    return Objects.equals(slice.getMetadata().getResourceVersion(), write.resourceVersion())
        || generation(slice) >= write.generation();
  }

  /** Deleted, and kept by the API server until its finalizers are gone. */
  static boolean pendingDeletion(EndpointSlice slice) {
    return slice.getMetadata().getDeletionTimestamp() != null;
  }

  private static long generation(EndpointSlice slice) {
    Long generation = slice.getMetadata().getGeneration();
    return generation == null ? 0 : generation;
  }
}
