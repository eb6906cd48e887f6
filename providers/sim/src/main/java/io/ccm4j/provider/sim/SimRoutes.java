package io.ccm4j.provider.sim;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.Routes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The sim cloud's route table: routes per cluster, named {@code <cluster>-<nameHint>-<cidr>} as a
 * real cloud would name them. Every call goes through the sim's rate limit, latency, error rate and
 * call counts ({@code ListRoutes}, {@code CreateRoute}, {@code DeleteRoute}). Tests can read and
 * change the table, mark a route as a blackhole, make the cloud route by node address, make the
 * next calls of one method fail, and make one method slower.
 */
public final class SimRoutes implements Routes {

  private final SimCloud cloud;

  /** Route name → route, per cluster name. */
  private final Map<String, Map<String, Route>> tables = new ConcurrentHashMap<>();

  private final Map<String, AtomicInteger> failures = new ConcurrentHashMap<>();
  private final Map<String, Duration> slowdowns = new ConcurrentHashMap<>();
  private volatile boolean enableNodeAddresses;

  SimRoutes(SimCloud cloud) {
    this.cloud = cloud;
  }

  @Override
  public List<Route> listRoutes(String clusterName) throws CloudException {
    call("ListRoutes");
    return sorted(table(clusterName).values());
  }

  @Override
  public void createRoute(String clusterName, String nameHint, Route route) throws CloudException {
    call("CreateRoute");
    Map<String, Route> table = table(clusterName);
    synchronized (table) {
      for (Route existing : table.values()) {
        if (existing.destinationCidr().equals(route.destinationCidr())) {
          throw new CloudException(
              "sim: a route for %s already exists (%s)"
                  .formatted(route.destinationCidr(), existing.name()));
        }
      }
      String name =
          clusterName + "-" + nameHint + "-" + route.destinationCidr().replaceAll("[./:]", "-");
      table.put(
          name,
          new Route(
              name,
              route.targetNode(),
              enableNodeAddresses,
              enableNodeAddresses ? route.targetNodeAddresses() : List.of(),
              route.destinationCidr(),
              false));
    }
  }

  @Override
  public void deleteRoute(String clusterName, Route route) throws CloudException {
    call("DeleteRoute");
    if (table(clusterName).remove(route.name()) == null) {
      throw new CloudException("sim: no route named " + route.name());
    }
  }

  /** Every route of the cluster, by name, without a cloud call. */
  public List<Route> routes(String clusterName) {
    return sorted(table(clusterName).values());
  }

  /** Every cluster's routes, by cluster name. */
  public Map<String, List<Route>> allRoutes() {
    Map<String, List<Route>> all = new TreeMap<>();
    tables.forEach((cluster, table) -> all.put(cluster, sorted(table.values())));
    return all;
  }

  /** Adds a route as someone else would (another tool, an operator), without a cloud call. */
  public void put(String clusterName, Route route) {
    table(clusterName).put(route.name(), route);
  }

  /** Marks the route to a destination as a blackhole (its target gone); false when none. */
  public boolean markBlackhole(String clusterName, String destinationCidr) {
    Map<String, Route> table = table(clusterName);
    synchronized (table) {
      Optional<Route> found =
          table.values().stream()
              .filter(r -> r.destinationCidr().equals(destinationCidr))
              .findFirst();
      found.ifPresent(
          r ->
              table.put(
                  r.name(),
                  new Route(
                      r.name(),
                      r.targetNode(),
                      r.enableNodeAddresses(),
                      r.targetNodeAddresses(),
                      r.destinationCidr(),
                      true)));
      return found.isPresent();
    }
  }

  /**
   * Makes the cloud route by node address: routes it creates from now on carry the node's addresses
   * and report {@code enableNodeAddresses}, so an address change replaces them.
   */
  public void setEnableNodeAddresses(boolean enabled) {
    this.enableNodeAddresses = enabled;
  }

  /**
   * The next {@code times} calls of {@code method} ({@code ListRoutes}, {@code CreateRoute}, {@code
   * DeleteRoute}) fail with a cloud error; {@link Integer#MAX_VALUE} until {@link #clearFailures}.
   */
  public void failCalls(String method, int times) {
    failures.put(method, new AtomicInteger(times));
  }

  public void clearFailures() {
    failures.clear();
  }

  /**
   * Calls of {@code method} take {@code extra} longer than the cloud's latency from now on (zero
   * ends it): one kind of operation slower than another, as in a real cloud.
   */
  public void slowCalls(String method, Duration extra) {
    slowdowns.put(method, extra);
  }

  private void call(String method) throws CloudException {
    cloud.call(method);
    Duration extra = slowdowns.getOrDefault(method, Duration.ZERO);
    if (extra.isPositive()) {
      try {
        Thread.sleep(extra);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CloudException("sim: " + method + " interrupted");
      }
    }
    AtomicInteger remaining = failures.get(method);
    if (remaining != null
        && remaining.getAndUpdate(n -> n == Integer.MAX_VALUE ? n : Math.max(0, n - 1)) > 0) {
      throw new CloudException("sim: injected failure of " + method);
    }
  }

  private Map<String, Route> table(String clusterName) {
    return tables.computeIfAbsent(clusterName, name -> new ConcurrentHashMap<>());
  }

  private static List<Route> sorted(Collection<Route> routes) {
    List<Route> list = new ArrayList<>(routes);
    list.sort(Comparator.comparing(Route::name));
    return list;
  }
}
