package io.ccm4j.provider.local;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The backend nodes of one load balancer and the choice among them. Members come and go with {@link
 * #setMembers}; a backend that leaves is kept (not serving) while connections to it drain.
 */
final class BackendPool {

  /** A node the load balancer should forward to. */
  record Target(String nodeName, InetAddress address) {}

  private final LocalCloudSettings.Balancing balancing;
  private final AtomicInteger next = new AtomicInteger();
  private final Map<Target, Backend> backends = new LinkedHashMap<>();
  private volatile List<Backend> all = List.of();
  private volatile List<Backend> serving = List.of();

  BackendPool(LocalCloudSettings.Balancing balancing) {
    this.balancing = balancing;
  }

  /**
   * Makes {@code targets} the members; returns the backends that are new or rejoin (to be probed
   * before they get traffic). Former members stop serving and drain.
   */
  synchronized List<Backend> setMembers(List<Target> targets) {
    List<Backend> added = new ArrayList<>();
    for (Map.Entry<Target, Backend> e : backends.entrySet()) {
      Backend backend = e.getValue();
      boolean wanted = targets.contains(e.getKey());
      if (wanted && !backend.member()) {
        backend.rejoin();
        added.add(backend);
      } else {
        backend.setMember(wanted);
      }
    }
    for (Target target : targets) {
      Backend existing = backends.get(target);
      if (existing == null) {
        Backend backend = new Backend(target.nodeName(), target.address());
        backends.put(target, backend);
        added.add(backend);
      }
    }
    refresh();
    return added;
  }

  /** Forgets former members that have no connection left. */
  synchronized void prune() {
    if (backends.values().removeIf(b -> !b.member() && b.active.get() == 0)) {
      refresh();
    }
  }

  /** Recomputes which backends serve, after a membership or health change. */
  synchronized void refresh() {
    all = List.copyOf(backends.values());
    serving = all.stream().filter(Backend::serving).toList();
  }

  List<Backend> all() {
    return all;
  }

  List<Backend> members() {
    return all.stream().filter(Backend::member).toList();
  }

  /**
   * The backend for a new connection among the serving ones, skipping {@code excluded} (ones that
   * just failed); null when none serves.
   */
  Backend pick(List<Backend> excluded) {
    List<Backend> candidates = serving;
    int n = candidates.size();
    if (n == 0) {
      return null;
    }
    int start = Math.floorMod(next.getAndIncrement(), n);
    Backend best = null;
    for (int i = 0; i < n; i++) {
      Backend b = candidates.get((start + i) % n);
      if (!b.serving() || contains(excluded, b)) {
        continue;
      }
      if (balancing == LocalCloudSettings.Balancing.ROUND_ROBIN) {
        return b;
      }
      if (best == null || b.active.get() < best.active.get()) {
        best = b;
      }
    }
    return best;
  }

  private static boolean contains(List<Backend> list, Backend b) {
    for (Backend x : list) {
      if (Objects.equals(x, b)) {
        return true;
      }
    }
    return false;
  }
}
