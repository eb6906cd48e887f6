package io.ccm4j.runtime.health;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Named health checks. Each answers empty when healthy, or a one-line reason when not. Served on
 * {@code /healthz}, {@code /livez} and {@code /readyz}, and one by one on {@code /healthz/<name>}.
 */
public final class HealthChecks {

  private final Map<String, Supplier<Optional<String>>> checks = new LinkedHashMap<>();

  /** Always healthy: proves the server answers. */
  public HealthChecks() {
    add("ping", Optional::empty);
  }

  public synchronized void add(String name, Supplier<Optional<String>> check) {
    if (checks.putIfAbsent(name, check) != null) {
      throw new IllegalArgumentException("health check " + name + " is registered twice");
    }
  }

  public synchronized boolean has(String name) {
    return checks.containsKey(name);
  }

  public synchronized void remove(String name) {
    checks.remove(name);
  }

  /** Runs every check; a check that throws counts as failed. */
  public Map<String, Optional<String>> run() {
    Map<String, Supplier<Optional<String>>> snapshot;
    synchronized (this) {
      snapshot = new LinkedHashMap<>(checks);
    }
    Map<String, Optional<String>> results = new LinkedHashMap<>();
    snapshot.forEach((name, check) -> results.put(name, runOne(check)));
    return results;
  }

  /** Runs one check; empty when there is no check of that name. */
  public Optional<Optional<String>> run(String name) {
    Supplier<Optional<String>> check;
    synchronized (this) {
      check = checks.get(name);
    }
    return check == null ? Optional.empty() : Optional.of(runOne(check));
  }

  /** Every problem among the given results, joined; empty when there is none. */
  @SafeVarargs
  public static Optional<String> problems(Optional<String>... results) {
    List<String> problems = Arrays.stream(results).flatMap(Optional::stream).toList();
    return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
  }

  private static Optional<String> runOne(Supplier<Optional<String>> check) {
    try {
      return check.get();
    } catch (RuntimeException e) {
      return Optional.of("check failed: " + e);
    }
  }
}
