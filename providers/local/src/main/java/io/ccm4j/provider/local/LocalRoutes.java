package io.ccm4j.provider.local;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.Routes;
import io.ccm4j.cloudprovider.net.Cidr;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code local} cloud's route table, keyed by route name, visible to tests and the lab through
 * {@link #snapshot()}. Nothing is programmed into the kernel by the cloud itself: on one machine
 * every node address is already reachable.
 *
 * <p>In memory by default. With a {@code routeTable} file it lives in that file instead, as a
 * cloud's route table lives outside any one client: every call reads it, and every change writes it
 * whole (a new file moved over the old) under a lock on {@code <file>.lock}, so that replicas on
 * one machine (or in pods sharing a host directory) see one table, a restarted manager finds the
 * routes it made, and a network outside the manager (the lab's cluster network) can program what
 * the file says ({@link #read(Path)}).
 */
public final class LocalRoutes implements Routes {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<List<StoredRoute>> TABLE = new TypeReference<>() {};

  /**
   * One monitor per table file in this JVM: a file lock is the processes' (two channels of one JVM
   * locking the same file is an error), so the tables of one file in this JVM take turns first.
   */
  private static final ConcurrentHashMap<Path, Object> FILE_MONITORS = new ConcurrentHashMap<>();

  /** What an IPv6 route's name ends with, so a dual-stack node's two routes have two names. */
  static final String IPV6_NAME_SUFFIX = "-ipv6";

  private final Optional<Path> file;
  private final Map<String, StoredRoute> memory = new TreeMap<>();
  private final Object monitor;

  /** A route with the cluster it belongs to. */
  public record StoredRoute(String clusterName, Route route) {}

  /** A table in memory. */
  public LocalRoutes() {
    this.file = Optional.empty();
    this.monitor = memory;
  }

  /** A table kept in {@code file} (created with the first route). */
  public LocalRoutes(Path file) {
    this.file = Optional.of(file);
    this.monitor =
        FILE_MONITORS.computeIfAbsent(file.toAbsolutePath().normalize(), f -> new Object());
  }

  @Override
  public List<Route> listRoutes(String clusterName) throws CloudException {
    return snapshotOrThrow().stream()
        .filter(r -> r.clusterName().equals(clusterName))
        .map(StoredRoute::route)
        .toList();
  }

  /**
   * The route is named {@code <cluster>-<nameHint>}, as upstream clouds name theirs, and an IPv6
   * one {@code <cluster>-<nameHint>-ipv6}: the route controller gives both routes of a dual-stack
   * node the node's UID as hint, and a node has at most one pod CIDR per family.
   */
  @Override
  public void createRoute(String clusterName, String nameHint, Route route) throws CloudException {
    if (route.destinationCidr().isBlank()) {
      throw new CloudException("route for node " + route.targetNode() + ": no destination CIDR");
    }
    Cidr destination;
    try {
      destination = Cidr.parse(route.destinationCidr());
    } catch (IllegalArgumentException e) {
      throw new CloudException(
          "route for node " + route.targetNode() + ": destinationCidr " + e.getMessage());
    }
    String name =
        clusterName
            + "-"
            + nameHint
            + (destination.family() == Cidr.Family.IPv6 ? IPV6_NAME_SUFFIX : "");
    Route stored =
        new Route(
            name,
            route.targetNode(),
            route.enableNodeAddresses(),
            route.targetNodeAddresses(),
            route.destinationCidr(),
            false);
    change(
        table -> {
          StoredRoute previous = table.putIfAbsent(name, new StoredRoute(clusterName, stored));
          if (previous != null
              && !previous.route().destinationCidr().equals(route.destinationCidr())) {
            throw new CloudException(
                "route %s already exists for %s, not %s"
                    .formatted(name, previous.route().destinationCidr(), route.destinationCidr()));
          }
        });
  }

  /** By name when the route has one, else by destination CIDR and target node. */
  @Override
  public void deleteRoute(String clusterName, Route route) throws CloudException {
    change(
        table -> {
          if (!route.name().isEmpty()) {
            table.computeIfPresent(
                route.name(), (name, r) -> r.clusterName().equals(clusterName) ? null : r);
            return;
          }
          table
              .entrySet()
              .removeIf(
                  e ->
                      e.getValue().clusterName().equals(clusterName)
                          && e.getValue().route().destinationCidr().equals(route.destinationCidr())
                          && e.getValue().route().targetNode().equals(route.targetNode()));
        });
  }

  /**
   * Every route of every cluster, sorted by name; an immutable copy.
   *
   * @throws IllegalStateException when the table's file cannot be read
   */
  public List<StoredRoute> snapshot() {
    try {
      return snapshotOrThrow();
    } catch (CloudException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /**
   * The routes a table file holds, sorted by name; none when there is no file yet.
   *
   * @throws IOException when it cannot be read or is not a route table
   */
  public static List<StoredRoute> read(Path file) throws IOException {
    byte[] content;
    try {
      content = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    if (content.length == 0) {
      return List.of();
    }
    try {
      List<StoredRoute> routes = JSON.readValue(content, TABLE);
      return routes.stream().sorted(Comparator.comparing(r -> r.route().name())).toList();
    } catch (JsonProcessingException e) {
      throw new IOException(
          "route table %s is not a list of routes: %s".formatted(file, e.getOriginalMessage()));
    }
  }

  private List<StoredRoute> snapshotOrThrow() throws CloudException {
    synchronized (monitor) {
      if (file.isEmpty()) {
        return List.copyOf(memory.values());
      }
      try (FileChannel channel = lockChannel();
          FileLock lock = channel.lock(0, 1, true)) {
        return read(file.get());
      } catch (IOException e) {
        throw new CloudException("route table " + file.get() + ": " + why(e), e);
      }
    }
  }

  /** One change of the table: in memory, or read, changed and written back under the lock. */
  private void change(TableChange change) throws CloudException {
    synchronized (monitor) {
      if (file.isEmpty()) {
        change.apply(memory);
        return;
      }
      Path path = file.get();
      try (FileChannel channel = lockChannel();
          FileLock lock = channel.lock()) {
        Map<String, StoredRoute> table = new TreeMap<>();
        read(path).forEach(r -> table.put(r.route().name(), r));
        change.apply(table);
        Path next = path.resolveSibling(path.getFileName() + ".next");
        Files.write(next, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(table.values()));
        Files.move(next, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        throw new CloudException("route table " + path + ": " + why(e), e);
      }
    }
  }

  /** What went wrong, in words: a file system error's message is often the path alone. */
  static String why(IOException e) {
    return switch (e) {
      case NoSuchFileException f -> "no such file or directory: " + f.getFile();
      case AccessDeniedException f -> "permission denied: " + f.getFile();
      case FileSystemException f when f.getReason() != null -> f.getReason() + ": " + f.getFile();
      default -> e.getMessage();
    };
  }

  private FileChannel lockChannel() throws IOException {
    Path path = file.orElseThrow();
    return FileChannel.open(
        path.resolveSibling(path.getFileName() + ".lock"),
        StandardOpenOption.CREATE,
        StandardOpenOption.READ,
        StandardOpenOption.WRITE);
  }

  @FunctionalInterface
  private interface TableChange {
    void apply(Map<String, StoredRoute> table) throws CloudException;
  }
}
