package io.ccm4j.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The steady-state figures computed from raw readings: rates per node-hour and per hour, the API
 * writes among kube-apiserver's request totals, the sim cloud's calls by kind, and the address-sync
 * passes found in a series of call-counter samples.
 */
final class SteadyStateFigures {

  /**
   * Verbs that change something, as kube-apiserver's {@code apiserver_request_total} spells them.
   */
  static final Set<String> WRITE_VERBS = Set.of("POST", "PUT", "PATCH", "DELETE", "APPLY");

  /**
   * Leases are kube-apiserver's own heartbeat (its identity lease, every 10 s); the peers run with
   * {@code --leader-elect=false} and hold none, so they are left out of a peer's writes.
   */
  static final String LEASES = "leases";

  /** The sim cloud's load-balancer calls a node-set change makes (Java: bulk or one by one). */
  static final Set<String> LOAD_BALANCER_UPDATES =
      Set.of("UpdateLoadBalancer", "UpdateLoadBalancers", "EnsureLoadBalancer");

  private SteadyStateFigures() {}

  /** {@code count} over {@code nodes} nodes and {@code seconds} of wall time, per node-hour. */
  static double perNodeHour(double count, int nodes, double seconds) {
    if (nodes <= 0 || seconds <= 0) {
      return Double.NaN;
    }
    return count / nodes / (seconds / 3600);
  }

  /** {@code count} over {@code seconds} of wall time, per hour. */
  static double perHour(double count, double seconds) {
    return seconds <= 0 ? Double.NaN : count / (seconds / 3600);
  }

  /**
   * The write requests between two readings of {@link ApiServerMetrics#requestTotals}, by {@code
   * VERB resource}, leases left out; only keys that moved.
   */
  static Map<String, Double> writes(Map<String, Double> before, Map<String, Double> after) {
    Map<String, Double> writes = new java.util.TreeMap<>();
    for (String key : after.keySet()) {
      String verb = key.substring(0, Math.max(0, key.indexOf(' ')));
      String resource = key.substring(key.indexOf(' ') + 1);
      if (WRITE_VERBS.contains(verb) && !resource.split("/")[0].equals(LEASES)) {
        double delta = ApiServerMetrics.delta(before, after, key);
        if (delta > 0) {
          writes.put(key, delta);
        }
      }
    }
    return writes;
  }

  static double total(Map<String, ? extends Number> counts) {
    return counts.values().stream().mapToDouble(Number::doubleValue).sum();
  }

  /** Every call the cloud received, the throttled ones included (they spend the quota too). */
  static long received(Map<String, Long> calls) {
    return calls.entrySet().stream()
        .filter(e -> !e.getKey().equals("injectedErrors") && !e.getKey().equals("injectedHangs"))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  static long throttled(Map<String, Long> calls) {
    return calls.getOrDefault("throttled", 0L);
  }

  static long loadBalancerUpdates(Map<String, Long> calls) {
    return LOAD_BALANCER_UPDATES.stream().mapToLong(m -> calls.getOrDefault(m, 0L)).sum();
  }

  /** {@code after - before}, method by method. */
  static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> delta = new java.util.TreeMap<>();
    after.forEach(
        (method, count) -> {
          long d = count - before.getOrDefault(method, 0L);
          if (d != 0) {
            delta.put(method, d);
          }
        });
    return delta;
  }

  /** One reading of a cloud call counter, at {@code nanos} (System.nanoTime). */
  record Sample(long nanos, long calls) {}

  /**
   * The address-sync passes in a series of samples of the cloud's call counter taken while nothing
   * else calls the cloud: a pass is a run of samples in which the counter moves, ended by {@code
   * quietNanos} without a move. A pass lasts from the last sample before it moved to the last
   * sample at which it moved (an upper bound, to within one sampling interval). A pass still
   * running at the last sample, or already running at the first, is left out.
   *
   * @return the durations of the complete passes, in seconds, in order
   */
  static List<Double> passSeconds(List<Sample> samples, long quietNanos) {
    List<Double> passes = new ArrayList<>();
    Long start = null;
    long lastMove = 0;
    boolean movingAtFirst = false;
    for (int i = 1; i < samples.size(); i++) {
      Sample previous = samples.get(i - 1);
      Sample sample = samples.get(i);
      if (sample.calls() > previous.calls()) {
        if (start == null) {
          start = previous.nanos();
          movingAtFirst = i == 1;
        }
        lastMove = sample.nanos();
      } else if (start != null && sample.nanos() - lastMove >= quietNanos) {
        if (!movingAtFirst) {
          passes.add((lastMove - start) / 1e9);
        }
        start = null;
        movingAtFirst = false;
      }
    }
    return passes;
  }

  /** The median of {@code values} by nearest rank (the lower of two), NaN when there are none. */
  static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return NodeInitMeasurements.percentile(sorted, 0.5);
  }
}
