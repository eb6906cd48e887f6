package io.ccm4j.provider.sim;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InvalidServiceFieldException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerSourceRanges;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The sim cloud's load balancers: kept in memory by name ({@link LoadBalancer#defaultName}, from
 * the Service's UID), each with one ingress IP from the configured pool (the Service's {@code
 * spec.loadBalancerIP} when it lies in the pool and is free). Nothing listens on those addresses;
 * the default pool is loopback so that nothing could leave the machine if something did.
 *
 * <p>Every call goes through the cloud's gate (rate limit, latency, injected errors, the count by
 * method) and is also counted per Service, so tests can tell their Services' calls apart. A new
 * load balancer can be made to answer "being provisioned, retry after" a set number of times, as
 * real clouds do. TCP and UDP ports are supported; any other protocol is refused, naming the port.
 */
public final class SimLoadBalancers implements LoadBalancer {

  /** How a call reaches the cloud: counted, throttled, delayed, maybe failed. */
  @FunctionalInterface
  interface Gate {
    void call(String method) throws CloudException;
  }

  /**
   * One load balancer.
   *
   * @param backends node name → provider ID ("" when the node has none)
   */
  public record SimLoadBalancer(
      String name,
      String service,
      String ip,
      List<String> ports,
      List<String> sourceRanges,
      Map<String, String> backends) {}

  private static final Set<String> PROTOCOLS = Set.of("TCP", "UDP");

  private final Gate gate;
  private final IpPool pool;
  private final int provisioningRetries;
  private final Duration provisioningRetryAfter;
  private final int ensureCalls;
  private final SimCallJournal journal;
  private final int servicesPerCall;
  private final Map<String, SimLoadBalancer> balancers = new ConcurrentHashMap<>();
  private final Map<String, Integer> provisioning = new ConcurrentHashMap<>();
  private final Map<String, Map<String, LongAdder>> callsByService = new ConcurrentHashMap<>();

  SimLoadBalancers(
      Gate gate, IpPool pool, int provisioningRetries, Duration provisioningRetryAfter) {
    this(gate, pool, provisioningRetries, provisioningRetryAfter, 1, null);
  }

  /**
   * @param ensureCalls how many cloud API calls an ensure makes (each through the gate)
   * @param journal where every write is appended, or null
   */
  SimLoadBalancers(
      Gate gate,
      IpPool pool,
      int provisioningRetries,
      Duration provisioningRetryAfter,
      int ensureCalls,
      SimCallJournal journal) {
    this(gate, pool, provisioningRetries, provisioningRetryAfter, ensureCalls, journal, 1);
  }

  /**
   * @param servicesPerCall how many Services one bulk update may carry (1: no bulk updates)
   */
  SimLoadBalancers(
      Gate gate,
      IpPool pool,
      int provisioningRetries,
      Duration provisioningRetryAfter,
      int ensureCalls,
      SimCallJournal journal,
      int servicesPerCall) {
    this.servicesPerCall = servicesPerCall;
    this.gate = gate;
    this.pool = pool;
    this.provisioningRetries = provisioningRetries;
    this.provisioningRetryAfter = provisioningRetryAfter;
    this.ensureCalls = ensureCalls;
    this.journal = journal;
  }

  /** A write of the cloud, journaled when the config asks for it. */
  @FunctionalInterface
  private interface Write<T> {
    T run() throws CloudException;
  }

  private <T> T journaled(String method, Service service, Write<T> write) throws CloudException {
    if (journal == null) {
      return write.run();
    }
    SimCallJournal.Call call = journal.begin(method, LoadBalancer.defaultName(service));
    boolean ok = false;
    try {
      T result = write.run();
      ok = true;
      return result;
    } finally {
      journal.end(call, ok);
    }
  }

  @Override
  public Optional<LoadBalancerStatus> getLoadBalancer(String clusterName, Service service)
      throws CloudException {
    call("GetLoadBalancer", service);
    return Optional.ofNullable(balancers.get(LoadBalancer.defaultName(service)))
        .map(SimLoadBalancers::status);
  }

  @Override
  public LoadBalancerStatus ensureLoadBalancer(
      String clusterName, Service service, List<Node> nodes) throws CloudException {
    return journaled("EnsureLoadBalancer", service, () -> ensure(service, nodes));
  }

  private LoadBalancerStatus ensure(Service service, List<Node> nodes) throws CloudException {
    call("EnsureLoadBalancer", service);
    for (int step = 2; step <= ensureCalls; step++) {
      // A real provider's further requests: listeners, backends, health checks.
      gate.call("EnsureLoadBalancerStep");
    }
    String name = LoadBalancer.defaultName(service);
    List<String> ports = ports(service);
    List<String> sourceRanges = LoadBalancerSourceRanges.of(service);
    synchronized (this) {
      SimLoadBalancer existing = balancers.get(name);
      if (existing == null) {
        int left = provisioning.merge(name, provisioningRetries, (old, initial) -> old);
        if (left > 0) {
          provisioning.put(name, left - 1);
          throw new RetryAfterException(
              "sim: load balancer " + name + " is being provisioned", provisioningRetryAfter);
        }
        provisioning.remove(name);
      }
      String ip = address(service, existing);
      SimLoadBalancer balancer =
          new SimLoadBalancer(
              name,
              LoadBalancer.serviceKey(service),
              ip,
              ports,
              sourceRanges,
              SimLoadBalancers.backends(nodes));
      balancers.put(name, balancer);
      return status(balancer);
    }
  }

  @Override
  public void updateLoadBalancer(String clusterName, Service service, List<Node> nodes)
      throws CloudException {
    journaled(
        "UpdateLoadBalancer",
        service,
        () -> {
          update(service, nodes);
          return null;
        });
  }

  @Override
  public int maxServicesPerCall() {
    return servicesPerCall;
  }

  /**
   * One cloud call for all the Services (counted once, as {@code UpdateLoadBalancers}); a Service
   * whose load balancer does not exist fails alone. Each Service's write is journaled.
   */
  @Override
  public BulkAnswers<Boolean> updateLoadBalancers(
      String clusterName, Collection<Service> services, List<Node> nodes) throws CloudException {
    if (servicesPerCall <= 1) {
      return LoadBalancer.super.updateLoadBalancers(clusterName, services, nodes);
    }
    if (services.size() > servicesPerCall) {
      throw new CloudException(
          "sim: UpdateLoadBalancers takes at most %d load balancers a call, got %d"
              .formatted(servicesPerCall, services.size()));
    }
    gate.call("UpdateLoadBalancers");
    return BulkAnswers.oneByOne(
        services,
        LoadBalancer::serviceKey,
        service ->
            journaled(
                "UpdateLoadBalancer",
                service,
                () -> {
                  setBackends(service, nodes);
                  return true;
                }));
  }

  private void update(Service service, List<Node> nodes) throws CloudException {
    call("UpdateLoadBalancer", service);
    setBackends(service, nodes);
  }

  private void setBackends(Service service, List<Node> nodes) throws CloudException {
    String name = LoadBalancer.defaultName(service);
    if (balancers.computeIfPresent(
            name,
            (n, b) ->
                new SimLoadBalancer(
                    b.name(), b.service(), b.ip(), b.ports(), b.sourceRanges(), backends(nodes)))
        == null) {
      throw new CloudException("sim: load balancer " + name + " does not exist");
    }
  }

  @Override
  public void ensureLoadBalancerDeleted(String clusterName, Service service) throws CloudException {
    journaled(
        "EnsureLoadBalancerDeleted",
        service,
        () -> {
          delete(service);
          return null;
        });
  }

  private void delete(Service service) throws CloudException {
    call("EnsureLoadBalancerDeleted", service);
    synchronized (this) {
      SimLoadBalancer removed = balancers.remove(LoadBalancer.defaultName(service));
      if (removed != null) {
        pool.release(removed.ip());
      }
    }
  }

  /**
   * What shapes the sim's load balancers besides the Service: the pool their addresses come from.
   */
  @Override
  public String fingerprint() {
    return "sim/ingressPool=" + pool.cidr();
  }

  /**
   * The load balancer of the Service {@code namespace/name} disappears from the cloud behind
   * ccm4j's back (drift: someone deleted it in the cloud's console); not counted as a call.
   */
  public boolean dropOutOfBand(String serviceKey) {
    synchronized (this) {
      Optional<SimLoadBalancer> dropped = loadBalancerOf(serviceKey);
      dropped.ifPresent(
          balancer -> {
            balancers.remove(balancer.name());
            pool.release(balancer.ip());
          });
      return dropped.isPresent();
    }
  }

  /** Every load balancer, by name. */
  public Map<String, SimLoadBalancer> loadBalancers() {
    return new TreeMap<>(balancers);
  }

  /** The load balancer of the Service {@code namespace/name}, if it has one. */
  public Optional<SimLoadBalancer> loadBalancerOf(String serviceKey) {
    return balancers.values().stream().filter(b -> b.service().equals(serviceKey)).findFirst();
  }

  /** Calls made for the Service {@code namespace/name}, by method. */
  public Map<String, Long> callsFor(String serviceKey) {
    Map<String, Long> snapshot = new TreeMap<>();
    callsByService
        .getOrDefault(serviceKey, Map.of())
        .forEach((method, count) -> snapshot.put(method, count.sum()));
    return snapshot;
  }

  Collection<SimLoadBalancer> all() {
    return balancers.values();
  }

  private void call(String method, Service service) throws CloudException {
    callsByService
        .computeIfAbsent(LoadBalancer.serviceKey(service), k -> new ConcurrentHashMap<>())
        .computeIfAbsent(method, m -> new LongAdder())
        .increment();
    gate.call(method);
  }

  /** The requested address when it is in the pool and free, else the one it has, else a new one. */
  private String address(Service service, SimLoadBalancer existing) throws CloudException {
    String requested = service.getSpec() == null ? null : service.getSpec().getLoadBalancerIP();
    if (requested != null && !requested.isEmpty()) {
      if (existing != null && existing.ip().equals(requested)) {
        return requested;
      }
      if (!pool.contains(requested)) {
        throw new InvalidServiceFieldException(
            "spec.loadBalancerIP",
            "\"%s\" is not in the sim cloud's ingress pool %s".formatted(requested, pool.cidr()));
      }
      if (!pool.claim(requested)) {
        throw new CloudException(
            "sim: spec.loadBalancerIP " + requested + " is in use by another load balancer");
      }
      if (existing != null) {
        pool.release(existing.ip());
      }
      return requested;
    }
    if (existing != null) {
      return existing.ip();
    }
    return pool.next()
        .orElseThrow(
            () -> new CloudException("sim: no free address left in ingress pool " + pool.cidr()));
  }

  private static List<String> ports(Service service) throws InvalidServiceFieldException {
    List<ServicePort> ports = service.getSpec() == null ? null : service.getSpec().getPorts();
    if (ports == null) {
      return List.of();
    }
    for (int i = 0; i < ports.size(); i++) {
      String protocol = ports.get(i).getProtocol() == null ? "TCP" : ports.get(i).getProtocol();
      if (!PROTOCOLS.contains(protocol)) {
        throw new InvalidServiceFieldException(
            "spec.ports[" + i + "].protocol",
            "sim load balancers support TCP and UDP, not " + protocol);
      }
    }
    return ports.stream()
        .map(p -> (p.getProtocol() == null ? "TCP" : p.getProtocol()) + "/" + p.getPort())
        .toList();
  }

  private static Map<String, String> backends(List<Node> nodes) {
    Map<String, String> backends = new TreeMap<>();
    for (Node node : nodes) {
      String providerId = node.getSpec() == null ? null : node.getSpec().getProviderID();
      backends.put(node.getMetadata().getName(), providerId == null ? "" : providerId);
    }
    return backends;
  }

  private static LoadBalancerStatus status(SimLoadBalancer balancer) {
    return new LoadBalancerStatus(List.of(LoadBalancerStatus.Ingress.ofIp(balancer.ip())));
  }
}
