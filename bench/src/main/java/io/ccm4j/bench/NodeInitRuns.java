package io.ccm4j.bench;

import io.ccm4j.bench.NodeInitBenchmark.Peer;
import io.ccm4j.bench.NodeInitBenchmark.Run;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/**
 * Several node-init runs in one sitting: the peers' order moves by one each run (so no peer always
 * runs first, on the coolest machine), and each figure of a peer is the median of its runs.
 */
final class NodeInitRuns {

  private NodeInitRuns() {}

  /** The peers' order in run {@code round} (from 0): the list rotated left by {@code round}. */
  static List<Peer> order(List<Peer> peers, int round) {
    if (peers.isEmpty()) {
      return peers;
    }
    int shift = round % peers.size();
    List<Peer> order = new ArrayList<>(peers.subList(shift, peers.size()));
    order.addAll(peers.subList(0, shift));
    return order;
  }

  /**
   * The median of the figures that are there (NaN ones left out); of an even count, the mean of the
   * middle two; NaN if none is.
   */
  static double median(double... values) {
    double[] present = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
    if (present.length == 0) {
      return Double.NaN;
    }
    int middle = present.length / 2;
    return present.length % 2 == 1 ? present[middle] : (present[middle - 1] + present[middle]) / 2;
  }

  /**
   * For each of {@code peers} with runs, a run of its medians (round -1; the fewest nodes any of
   * its runs initialised; its first run's note).
   */
  static List<Run> medians(List<Peer> peers, List<Run> runs) {
    List<Run> medians = new ArrayList<>();
    for (Peer peer : peers) {
      List<Run> own = runs.stream().filter(r -> r.peer() == peer).toList();
      if (own.isEmpty()) {
        continue;
      }
      medians.add(
          new Run(
              peer,
              -1,
              own.stream().mapToInt(Run::initialised).min().orElse(0),
              median(own, Run::wallSeconds),
              median(own, Run::p50DelaySeconds),
              median(own, Run::p99DelaySeconds),
              median(own, Run::cpuSeconds),
              median(own, Run::apiServerCpuSeconds),
              median(own, Run::etcdCpuSeconds),
              median(own, Run::peakRssMiB),
              median(own, Run::peakHeapMiB),
              median(own, Run::nodeWritesPerNode),
              median(own, Run::eventWritesPerNode),
              medianByKind(own),
              median(own, Run::cloudCallsPerNode),
              median(own, Run::startToFirstNodeSeconds),
              own.getFirst().note()));
    }
    return medians;
  }

  /** Each kind of API request's median per node (0 in a run without it). */
  private static Map<String, Double> medianByKind(List<Run> runs) {
    Map<String, Double> medians = new TreeMap<>();
    runs.stream()
        .flatMap(run -> run.apiRequestsPerNode().keySet().stream())
        .distinct()
        .forEach(
            kind ->
                medians.put(
                    kind, median(runs, run -> run.apiRequestsPerNode().getOrDefault(kind, 0.0))));
    return medians;
  }

  private static double median(List<Run> runs, ToDoubleFunction<Run> figure) {
    return median(runs.stream().mapToDouble(figure).toArray());
  }
}
