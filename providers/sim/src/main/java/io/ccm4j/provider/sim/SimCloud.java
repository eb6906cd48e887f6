package io.ccm4j.provider.sim;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Routes;
import io.ccm4j.cloudprovider.ThrottledException;
import io.ccm4j.cloudprovider.net.IpAddresses;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The simulated cloud: a table of instances that answers {@link InstancesV2} calls, in-memory load
 * balancers ({@link SimLoadBalancers}) and a route table ({@link SimRoutes}), after a set latency,
 * fails a set fraction of calls, and enforces an API rate limit the way a real cloud does (calls
 * over it fail as throttled, so a well-behaved client must stay under it), and, when configured,
 * answers instance lookups for many nodes in one call. Every call is counted by method (a bulk call
 * once, under its bulk name), and instances can be deleted, shut down and started while it runs.
 */
public final class SimCloud implements CloudProvider, InstancesV2 {

  public static final String PROVIDER_NAME = "sim";

  /** Call counter names, besides the method names. */
  public static final String THROTTLED = "throttled";

  public static final String INJECTED_ERRORS = "injectedErrors";
  public static final String INJECTED_HANGS = "injectedHangs";

  private final Map<String, SimInstance> instances = new ConcurrentHashMap<>();
  private final Map<String, LongAdder> calls = new ConcurrentHashMap<>();
  private volatile long latencyMs;
  private final long jitterMs;
  private volatile double errorRate;
  private final double hangRate;
  private final long hangMs;
  private final ApiRateLimit rateLimit;
  private final int instancesPerCall;
  private volatile SimAdminServer adminServer;
  private final SimRoutes routes = new SimRoutes(this);
  private final SimLoadBalancers loadBalancers;
  private final boolean simulatesInstances;

  public SimCloud(SimCloudConfig config, List<SimInstance> initial) {
    this.latencyMs = config.latencyMs();
    this.jitterMs = config.jitterMs();
    this.errorRate = config.errorRate();
    this.hangRate = config.hangRate();
    this.hangMs = config.hangMs() == null ? SimCloudConfig.DEFAULT_HANG_MS : config.hangMs();
    if (config.accountLimit() != null) {
      SimCloudConfig.AccountLimit limit = config.accountLimit();
      this.rateLimit = new ApiRateLimit(limit.qps(), limit.burst() == null ? 1 : limit.burst());
    } else {
      this.rateLimit =
          config.qps() > 0
              ? new ApiRateLimit(config.qps(), config.burst() == null ? 1 : config.burst())
              : null;
    }
    this.instancesPerCall = config.instancesPerCall() == null ? 1 : config.instancesPerCall();
    initial.forEach(instance -> instances.put(instance.name(), instance));
    this.simulatesInstances = config.instances() != null || config.generate() != null;
    this.loadBalancers = SimCloudConfigLoader.loadBalancers(config, this::call, journal(config));
  }

  private static SimCallJournal journal(SimCloudConfig config) {
    if (config.journal() == null || config.journal().isBlank()) {
      return null;
    }
    try {
      return new SimCallJournal(java.nio.file.Path.of(config.journal()));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(
          "sim: cannot open the call journal " + config.journal() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String providerName() {
    return PROVIDER_NAME;
  }

  /**
   * Offered only when the config has an {@code instances:} or {@code generate:} section (even an
   * empty one): a sim cloud that simulates no instances would answer "no such instance" for every
   * node, and the cloud-node-lifecycle controller would delete every NotReady node. Without the
   * facet the controllers that need it are not started, as upstream's for a cloud without
   * instances.
   */
  @Override
  public Optional<InstancesV2> instancesV2() {
    return simulatesInstances ? Optional.of(this) : Optional.empty();
  }

  @Override
  public Optional<Routes> routes() {
    return Optional.of(routes);
  }

  /** The route table, for tests and tools (no cloud calls). */
  public SimRoutes routeTable() {
    return routes;
  }

  @Override
  public Optional<LoadBalancer> loadBalancer() {
    return Optional.of(loadBalancers);
  }

  /** The load balancer facet with its state, for tests and the admin endpoint. */
  public SimLoadBalancers loadBalancers() {
    return loadBalancers;
  }

  @Override
  public boolean instanceExists(Node node) throws CloudException {
    call("InstanceExists");
    return find(node).isPresent();
  }

  @Override
  public boolean instanceShutdown(Node node) throws CloudException {
    call("InstanceShutdown");
    return find(node).map(i -> i.state() == SimInstance.State.SHUTDOWN).orElse(false);
  }

  @Override
  public Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException {
    call("InstanceMetadata");
    SimInstance instance =
        find(node)
            .orElseThrow(
                () ->
                    new InstanceNotFoundException(
                        "sim: no instance for node " + node.getMetadata().getName()));
    return Optional.of(metadata(instance));
  }

  @Override
  public int maxNodesPerCall() {
    return instancesPerCall;
  }

  /** One call for all the nodes, as EC2's DescribeInstances by id; a missing one is gone. */
  @Override
  public BulkAnswers<Boolean> instancesExist(Collection<Node> nodes) throws CloudException {
    if (instancesPerCall <= 1) {
      return InstancesV2.super.instancesExist(nodes); // node by node
    }
    bulkCall("InstancesExist", nodes);
    Map<String, Boolean> answers = new HashMap<>();
    nodes.forEach(node -> answers.put(InstancesV2.nodeName(node), find(node).isPresent()));
    return new BulkAnswers<>(answers, Map.of());
  }

  @Override
  public BulkAnswers<Boolean> instancesShutdown(Collection<Node> nodes) throws CloudException {
    if (instancesPerCall <= 1) {
      return InstancesV2.super.instancesShutdown(nodes); // node by node
    }
    bulkCall("InstancesShutdown", nodes);
    Map<String, Boolean> answers = new HashMap<>();
    nodes.forEach(
        node ->
            answers.put(
                InstancesV2.nodeName(node),
                find(node).map(i -> i.state() == SimInstance.State.SHUTDOWN).orElse(false)));
    return new BulkAnswers<>(answers, Map.of());
  }

  /** A node without an instance fails alone, with {@link InstanceNotFoundException}. */
  @Override
  public BulkAnswers<Optional<InstanceMetadata>> instancesMetadata(Collection<Node> nodes)
      throws CloudException {
    if (instancesPerCall <= 1) {
      return InstancesV2.super.instancesMetadata(nodes); // node by node
    }
    bulkCall("InstancesMetadata", nodes);
    Map<String, Optional<InstanceMetadata>> answers = new HashMap<>();
    Map<String, CloudException> errors = new HashMap<>();
    for (Node node : nodes) {
      String name = InstancesV2.nodeName(node);
      find(node)
          .ifPresentOrElse(
              instance -> answers.put(name, Optional.of(metadata(instance))),
              () ->
                  errors.put(
                      name, new InstanceNotFoundException("sim: no instance for node " + name)));
    }
    return new BulkAnswers<>(answers, errors);
  }

  private void bulkCall(String method, Collection<Node> nodes) throws CloudException {
    if (nodes.size() > instancesPerCall) {
      throw new CloudException(
          "sim: %s takes at most %d instances a call, got %d"
              .formatted(method, instancesPerCall, nodes.size()));
    }
    call(method);
  }

  private static InstanceMetadata metadata(SimInstance instance) {
    return new InstanceMetadata(
        instance.providerId(),
        instance.instanceType(),
        instance.addresses(),
        instance.zone(),
        instance.region(),
        instance.labels());
  }

  /** By provider ID when the node has one, else by node name. */
  private Optional<SimInstance> find(Node node) {
    String providerId = node.getSpec() == null ? null : node.getSpec().getProviderID();
    String prefix = PROVIDER_NAME + "://";
    String name =
        providerId != null && providerId.startsWith(prefix)
            ? providerId.substring(prefix.length())
            : node.getMetadata().getName();
    return Optional.ofNullable(instances.get(name));
  }

  /**
   * Counts the call, then applies the rate limit, the latency, the hang rate (a call that takes
   * {@code hangMs} and then fails, as one past a cloud SDK's timeout) and the error rate.
   */
  void call(String method) throws CloudException {
    if (rateLimit != null) {
      Duration retryAfter = rateLimit.tryAcquire();
      if (!retryAfter.isZero()) {
        count(THROTTLED);
        throw new ThrottledException(
            "sim: RequestLimitExceeded: account API rate limit exceeded in " + method, retryAfter);
      }
    }
    count(method);
    long delay =
        latencyMs + (jitterMs > 0 ? ThreadLocalRandom.current().nextLong(jitterMs + 1) : 0);
    if (delay > 0) {
      try {
        Thread.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CloudException("sim: interrupted");
      }
    }
    if (hangRate > 0 && ThreadLocalRandom.current().nextDouble() < hangRate) {
      count(INJECTED_HANGS);
      try {
        Thread.sleep(hangMs);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CloudException("sim: interrupted");
      }
      throw new CloudException("sim: " + method + " timed out after " + hangMs + " ms");
    }
    if (errorRate > 0 && ThreadLocalRandom.current().nextDouble() < errorRate) {
      count(INJECTED_ERRORS);
      throw new CloudException("sim: injected error in " + method);
    }
  }

  private void count(String name) {
    calls.computeIfAbsent(name, key -> new LongAdder()).increment();
  }

  /**
   * Calls so far by method, plus {@value #THROTTLED}, {@value #INJECTED_ERRORS} and {@value
   * #INJECTED_HANGS}.
   */
  public Map<String, Long> calls() {
    Map<String, Long> snapshot = new TreeMap<>();
    calls.forEach((name, count) -> snapshot.put(name, count.sum()));
    return snapshot;
  }

  /** The number of calls that reached the cloud (not throttled). */
  public long totalCalls() {
    return calls.entrySet().stream()
        .filter(e -> !e.getKey().equals(THROTTLED) && !e.getKey().equals(INJECTED_ERRORS))
        .mapToLong(e -> e.getValue().sum())
        .sum();
  }

  public Collection<SimInstance> instances() {
    return instances.values();
  }

  public Optional<SimInstance> instance(String name) {
    return Optional.ofNullable(instances.get(name));
  }

  /** Removes the instance; its node then "does not exist in the cloud provider". */
  public boolean delete(String name) {
    return instances.remove(name) != null;
  }

  public boolean shutdown(String name) {
    return instances.computeIfPresent(name, (n, i) -> i.withState(SimInstance.State.SHUTDOWN))
        != null;
  }

  public boolean start(String name) {
    return instances.computeIfPresent(name, (n, i) -> i.withState(SimInstance.State.RUNNING))
        != null;
  }

  /**
   * Replaces the instance's InternalIP addresses with {@code address}, first; its other addresses
   * stay: an address changed in the cloud.
   *
   * @return false when there is no such instance
   * @throws IllegalArgumentException when {@code address} is not an IP address literal
   */
  public boolean setInternalIp(String name, String address) {
    if (!IpAddresses.isIp(address)) {
      throw new IllegalArgumentException("value \"" + address + "\" is not an IP address");
    }
    return instances.computeIfPresent(
            name,
            (n, i) ->
                new SimInstance(
                    i.name(),
                    i.region(),
                    i.zone(),
                    i.instanceType(),
                    java.util.stream.Stream.concat(
                            java.util.stream.Stream.of(NodeAddress.internalIp(address)),
                            i.addresses().stream()
                                .filter(a -> a.type() != NodeAddress.Type.InternalIP))
                        .toList(),
                    i.labels(),
                    i.state()))
        != null;
  }

  public void add(SimInstance instance) {
    instances.put(instance.name(), instance);
  }

  void attachAdminServer(SimAdminServer server) {
    this.adminServer = server;
  }

  /** The admin endpoint's address, when the config asked for one. */
  public Optional<java.net.InetSocketAddress> adminAddress() {
    return Optional.ofNullable(adminServer).map(SimAdminServer::address);
  }

  @Override
  public void close() {
    SimAdminServer server = adminServer;
    if (server != null) {
      server.close();
    }
  }

  /** Changes the latency of every call from now on (a cloud slowing down). */
  public void setLatency(Duration latency) {
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative, got " + latency);
    }
    this.latencyMs = latency.toMillis();
  }

  /** Changes the fraction of calls that fail. */
  public void setErrorRate(double rate) {
    if (rate < 0 || rate > 1) {
      throw new IllegalArgumentException("error rate must be between 0 and 1, got " + rate);
    }
    this.errorRate = rate;
  }

  /** A token bucket that refuses rather than waits: a cloud API's quota. */
  private static final class ApiRateLimit {
    private final double qps;
    private final double burst;
    private double tokens;
    private long last = System.nanoTime();

    ApiRateLimit(double qps, int burst) {
      this.qps = qps;
      this.burst = burst;
      this.tokens = burst;
    }

    /** Zero when a token was taken; else how long until the next one. */
    synchronized Duration tryAcquire() {
      long now = System.nanoTime();
      tokens = Math.min(burst, tokens + (now - last) / 1e9 * qps);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return Duration.ZERO;
      }
      return Duration.ofNanos(Math.max(1, (long) Math.ceil((1 - tokens) / qps * 1e9)));
    }
  }
}
