package io.ccm4j.lab.real;

import io.ccm4j.lab.Timeline;
import io.ccm4j.provider.local.LocalRoutes;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lab's cloud network acting on the cloud's route table, as a cloud's router sends a pod CIDR
 * to the instance a route names: the {@code local} cloud's route table file (which the CCM's route
 * controller writes, from ccm4j's image or the lab's process) programmed into the cluster network,
 * each destination via its target node's address on the bridge. It follows the file (a read every
 * 250 ms) until closed; each route it programs or removes is in the timeline.
 */
final class RealCloudRouter implements AutoCloseable {

  /** The route table's file name in the lab's cloud state directory. */
  static final String ROUTE_TABLE = "routes.json";

  private static final Duration INTERVAL = Duration.ofMillis(250);

  /** A route as the cluster network has it. */
  record Programmed(String name, String destination, String targetNode, String via) {}

  private final RealCluster cluster;
  private final Path table;
  private final Map<String, String> nodeAddresses;
  private final Timeline timeline;
  private final PrintStream out;
  private final Thread thread;
  private volatile List<Programmed> programmed = List.of();
  private volatile boolean stopped;
  private String lastProblem = "";

  private RealCloudRouter(
      RealCluster cluster, List<RealCluster.Node> nodes, Timeline timeline, PrintStream out) {
    this.cluster = cluster;
    this.table = RealCluster.cloudDirectory().resolve(ROUTE_TABLE);
    this.nodeAddresses = new LinkedHashMap<>();
    nodes.forEach(n -> nodeAddresses.put(n.name(), n.ip()));
    this.timeline = timeline;
    this.out = out;
    this.thread = Thread.ofPlatform().daemon().name("lab-cloud-router").unstarted(this::follow);
  }

  /** Starts following the route table of the cluster's cloud state directory. */
  static RealCloudRouter start(
      RealCluster cluster, List<RealCluster.Node> nodes, Timeline timeline, PrintStream out) {
    RealCloudRouter router = new RealCloudRouter(cluster, nodes, timeline, out);
    router.thread.start();
    return router;
  }

  /** The route table's file. */
  Path table() {
    return table;
  }

  /** The routes the cluster network has now, by name. */
  List<Programmed> programmed() {
    return programmed;
  }

  private void follow() {
    while (!stopped) {
      try {
        sync();
      } catch (IOException e) {
        problem("cannot program the cloud's routes: " + e.getMessage());
      }
      try {
        Thread.sleep(INTERVAL);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Programs what the table says now, if it changed. */
  synchronized void sync() throws IOException {
    List<Programmed> wanted = new ArrayList<>();
    for (LocalRoutes.StoredRoute stored : LocalRoutes.read(table)) {
      String destination = stored.route().destinationCidr();
      String node = stored.route().targetNode();
      String via = nodeAddresses.get(node);
      if (via == null) {
        problem("route %s leads to %s, which is no node of the lab".formatted(destination, node));
      } else if (destination.contains(":")) {
        problem("route %s: IPv6 is not routed in the lab's cluster network".formatted(destination));
      } else {
        wanted.add(new Programmed(stored.route().name(), destination, node, via));
      }
    }
    if (wanted.equals(programmed)) {
      return;
    }
    Map<String, String> routes = new LinkedHashMap<>();
    wanted.forEach(r -> routes.put(r.destination(), r.via()));
    cluster.programRoutes(routes);
    for (Programmed route : wanted) {
      if (!programmed.contains(route)) {
        timeline.record(
            "cloud network",
            "route %s: %s via %s (%s), from the cloud's route table"
                .formatted(route.name(), route.destination(), route.via(), route.targetNode()));
        out.printf(
            "lab: cloud route %s -> %s (%s)%n",
            route.destination(), route.targetNode(), route.via());
      }
    }
    for (Programmed route : programmed) {
      if (!wanted.contains(route)) {
        timeline.record(
            "cloud network",
            "route %s (%s via %s) removed"
                .formatted(route.name(), route.destination(), route.via()));
      }
    }
    programmed = List.copyOf(wanted);
  }

  private synchronized void problem(String problem) {
    if (!problem.equals(lastProblem)) {
      lastProblem = problem;
      timeline.record("cloud network", problem);
    }
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
    try {
      thread.join(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
