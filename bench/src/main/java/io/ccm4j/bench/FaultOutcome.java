package io.ccm4j.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What one fault of {@link FaultsBenchmark} did: whether its targets held, and its rows of the
 * table that {@link #print} prints.
 */
public sealed interface FaultOutcome
    permits FaultOutcome.Crash,
        FaultOutcome.CloudFaults,
        FaultOutcome.Flood,
        FaultOutcome.CniConditions {
  boolean ok();

  /** Rows of three cells: the fault, the figure, the detail. */
  List<String[]> rows();

  /**
   * Prints the outcomes as one table, under the manager's {@code --kube-api-qps} and workers;
   * whether every target held.
   */
  static boolean print(
      PrintStream out, double kubeApiQps, int workers, List<FaultOutcome> outcomes) {
    out.println();
    out.printf(
        "faults: kube-api-qps %s, %d workers, leader election 15s/10s/2s, clients per concern%n",
        kubeApiQps, workers);
    String format = "| %-46s | %-14s | %s |%n";
    out.printf(format, "fault", "figure", "detail");
    out.printf(format, "-".repeat(46), "-".repeat(14), "---");
    outcomes.stream()
        .flatMap(o -> o.rows().stream())
        .forEach(row -> out.printf(format, (Object[]) row));
    boolean ok = outcomes.stream().allMatch(FaultOutcome::ok);
    out.println(ok ? "targets met" : "TARGET MISSED");
    return ok;
  }

  private static String[] row(String fault, String figure, String detail) {
    return new String[] {fault, figure, detail};
  }

  /** What a crash of {@code component} under node initialisation did. */
  public record Crash(
      String component,
      int nodes,
      int initialisedBefore,
      Duration outage,
      double recoveredSeconds,
      double totalSeconds,
      int initialised,
      int withoutProviderId,
      long metadataCalls,
      double retries,
      boolean leaseKept)
      implements FaultOutcome {

    @Override
    public List<String[]> rows() {
      return List.of(
          row(
              component + " killed (SIGKILL), back after",
              "%.1f s".formatted(outage.toMillis() / 1000.0),
              "%d nodes, %d initialised before the kill".formatted(nodes, initialisedBefore)),
          row(
              "  all initialised after it was back",
              "%.1f s".formatted(recoveredSeconds),
              "%d / %d initialised, %d without provider ID, %.1f s in all"
                  .formatted(initialised, nodes, withoutProviderId, totalSeconds)),
          row(
              "  InstanceMetadata calls per node",
              "%.3f".formatted(metadataCalls / (double) nodes),
              "%.0f retries; Lease kept: %s".formatted(retries, leaseKept)));
    }

    @Override
    public boolean ok() {
      return initialised == nodes
          && withoutProviderId == 0
          && metadataCalls <= nodes + (long) retries
          && leaseKept;
    }
  }

  /** What a failing and hanging cloud did. */
  public record CloudFaults(
      int nodes,
      int services,
      double convergedSeconds,
      int initialised,
      int nodesLeft,
      int loadBalancers,
      int routesThen,
      int routesAfter,
      long calls,
      long failed,
      long hung,
      boolean leaseKept)
      implements FaultOutcome {

    @Override
    public List<String[]> rows() {
      return List.of(
          row(
              "cloud fails 30%, hangs 5% (2 s): converged",
              "%.1f s".formatted(convergedSeconds),
              "%d NotReady nodes initialised, %d load balancers, %d routes"
                  .formatted(initialised, loadBalancers, routesThen)),
          row(
              "  15 s later",
              ok() ? "nothing lost" : "LOST",
              "%d nodes, %d routes; %d calls, %d failed, %d hung; Lease kept: %s"
                  .formatted(nodesLeft, routesAfter, calls, failed, hung, leaseKept)));
    }

    @Override
    public boolean ok() {
      return initialised == nodes
          && nodesLeft == nodes
          && loadBalancers == services
          && routesThen == nodes
          && routesAfter == nodes
          && leaseKept;
    }
  }

  /** What a flood at the serving port did to node initialisation, the Lease and the reviews. */
  public record Flood(
      int nodes,
      double quietSeconds,
      double floodedSeconds,
      long requests,
      double floodSeconds,
      Map<Integer, Integer> answers,
      double reviews,
      double reviewBound,
      boolean leaseKept)
      implements FaultOutcome {

    @Override
    public List<String[]> rows() {
      return List.of(
          row(
              "flood (32 clients, random paths and tokens)",
              "%.0f/s".formatted(requests / floodSeconds),
              "%.0f s, answers %s".formatted(floodSeconds, answers)),
          row(
              "  %d nodes initialised, quiet / flooded".formatted(nodes),
              "%.2f / %.2f s".formatted(quietSeconds, floodedSeconds),
              "target: within 10%%: %s".formatted(floodedSeconds <= quietSeconds * 1.1)),
          row(
              "  reviews sent to the API server",
              "%.0f".formatted(reviews),
              "bound %.0f; Lease kept: %s".formatted(reviewBound, leaseKept)));
    }

    @Override
    public boolean ok() {
      return leaseKept && reviews <= reviewBound && floodedSeconds <= quietSeconds * 1.1;
    }
  }

  /** What a CNI's conditions on every node did to the Lease while the route controller wrote. */
  public record CniConditions(
      int nodes, double routedSeconds, int routed, long routePasses, boolean leaseKept)
      implements FaultOutcome {

    @Override
    public List<String[]> rows() {
      return List.<String[]>of(
          row(
              "CNI marks %d nodes NetworkUnavailable".formatted(nodes),
              "%.1f s".formatted(routedSeconds),
              "until %d / %d written back by the route controller; Lease kept: %s"
                  .formatted(routed, nodes, leaseKept)));
    }

    @Override
    public boolean ok() {
      return routed == nodes && leaseKept;
    }
  }
}
