package io.ccm4j.provider.local;

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The load balancer of one Service: one address from the pool, a listener per Service port, the
 * backend nodes with their health, and the connections in flight. Changed only by {@link
 * LocalLoadBalancers}, under its lock; read by listeners and probes concurrently.
 */
final class LocalLoadBalancer {

  private static final Logger log = LoggerFactory.getLogger(LocalLoadBalancer.class);

  private final String name;
  private final String service;
  private final InetAddress address;
  private final LocalCloudSettings settings;
  private final TrackedThreads threads;
  private final EventLoops loops;
  private final BackendPool backends;
  private final Map<String, Listener> listeners = new ConcurrentHashMap<>();
  private final Set<ProxiedFlow> flows = ConcurrentHashMap.newKeySet();
  final LongAdder refused = new LongAdder();
  final LongAdder unserved = new LongAdder();
  private volatile ServiceLoadBalancerSpec spec;

  LocalLoadBalancer(
      String name,
      String service,
      InetAddress address,
      LocalCloudSettings settings,
      TrackedThreads threads,
      EventLoops loops) {
    this.name = name;
    this.service = service;
    this.address = address;
    this.settings = settings;
    this.threads = threads;
    this.loops = loops;
    this.backends = new BackendPool(settings.balancing());
  }

  String name() {
    return name;
  }

  String service() {
    return service;
  }

  InetAddress address() {
    return address;
  }

  LocalCloudSettings settings() {
    return settings;
  }

  TrackedThreads threads() {
    return threads;
  }

  EventLoops loops() {
    return loops;
  }

  BackendPool backends() {
    return backends;
  }

  boolean allows(InetAddress client) {
    ServiceLoadBalancerSpec current = spec;
    return current == null || current.allows(client);
  }

  void register(ProxiedFlow flow) {
    flows.add(flow);
  }

  void unregister(ProxiedFlow flow) {
    flows.remove(flow);
  }

  int flowCount() {
    return flows.size();
  }

  /**
   * Makes the listeners match {@code next}: opens new ports, retargets changed node ports, closes
   * removed ports (and their connections). On a bind failure the ports opened so far stay and the
   * error names the port; the next ensure retries.
   */
  void apply(ServiceLoadBalancerSpec next) throws IOException {
    boolean healthTargetChanged =
        spec != null
            && (spec.healthCheckPort() != next.healthCheckPort()
                || spec.localTrafficPolicy() != next.localTrafficPolicy());
    this.spec = next;
    Map<String, ServiceLoadBalancerSpec.Port> wanted = new LinkedHashMap<>();
    for (ServiceLoadBalancerSpec.Port port : next.ports()) {
      wanted.put(key(port.protocol(), port.port()), port);
    }
    for (var it = listeners.entrySet().iterator(); it.hasNext(); ) {
      var entry = it.next();
      if (!wanted.containsKey(entry.getKey())) {
        Listener listener = entry.getValue();
        listener.close();
        closeFlows(f -> f.listener() == listener);
        it.remove();
        log.info("local load balancer {} ({}): closed port {}", name, service, entry.getKey());
      }
    }
    for (var entry : wanted.entrySet()) {
      ServiceLoadBalancerSpec.Port port = entry.getValue();
      Listener existing = listeners.get(entry.getKey());
      if (existing != null) {
        existing.setNodePort(port.nodePort());
        continue;
      }
      Listener listener =
          port.protocol() == ServiceLoadBalancerSpec.Protocol.TCP
              ? new TcpListener(this, address, port.port(), port.nodePort())
              : new UdpListener(this, address, port.port(), port.nodePort());
      listeners.put(entry.getKey(), listener);
      log.info(
          "local load balancer {} ({}): listening on {}:{} -> node port {}",
          name,
          service,
          address.getHostAddress(),
          entry.getKey(),
          port.nodePort());
    }
    if (healthTargetChanged) {
      probeAll(backends.all(), true);
    }
  }

  /** Sets the backend nodes; new ones are health-checked before this returns. */
  void setBackends(List<BackendPool.Target> targets) {
    List<Backend> added = backends.setMembers(targets);
    probeAll(added, true);
  }

  /**
   * Checks every backend once, each on its own virtual thread; optionally waits for the results.
   */
  void probeAll(List<Backend> which, boolean wait) {
    CountDownLatch done = new CountDownLatch(which.size());
    List<Backend> started = new ArrayList<>();
    for (Backend backend : which) {
      if (!backend.probing.compareAndSet(false, true)) {
        done.countDown();
        continue;
      }
      started.add(backend);
      try {
        threads.start(
            "local-lb-probe",
            () -> {
              try {
                probe(backend);
              } finally {
                backend.probing.set(false);
                done.countDown();
              }
            });
      } catch (RuntimeException e) {
        backend.probing.set(false);
        done.countDown();
      }
    }
    if (wait && !started.isEmpty()) {
      try {
        done.await(settings.healthCheckTimeout().toMillis() * 2 + 100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void probe(Backend backend) {
    ServiceLoadBalancerSpec current = spec;
    if (current == null || !backend.member()) {
      return;
    }
    boolean ok =
        HealthProbe.check(
            backend.address,
            current.healthCheckPort(),
            ServiceLoadBalancerSpec.HEALTH_CHECK_PATH,
            settings.healthCheckTimeout());
    if (backend.recordProbe(ok, settings.healthyThreshold(), settings.unhealthyThreshold())) {
      backends.refresh();
      log.info(
          "local load balancer {} ({}): node {} is now {} (GET {}:{}{})",
          name,
          service,
          backend,
          ok ? "healthy" : "unhealthy, draining",
          backend.address.getHostAddress(),
          current.healthCheckPort(),
          ServiceLoadBalancerSpec.HEALTH_CHECK_PATH);
    }
  }

  /**
   * Ends connections to backends that stopped serving more than the drain timeout ago, idle UDP
   * sessions, and forgets drained former members.
   */
  void sweep(long now) {
    long drain = settings.drainTimeout().toNanos();
    closeFlows(
        f -> {
          long since = f.backend().notServingSince();
          return since != 0 && now - since >= drain;
        });
    for (Listener listener : listeners.values()) {
      listener.expireIdle(now);
    }
    backends.prune();
  }

  private void closeFlows(java.util.function.Predicate<ProxiedFlow> which) {
    for (ProxiedFlow flow : flows) {
      if (which.test(flow)) {
        flow.close();
      }
    }
  }

  List<String> listenerKeys() {
    return List.copyOf(listeners.keySet());
  }

  /** Closes every listener and connection. */
  void close() {
    listeners.values().forEach(Listener::close);
    listeners.clear();
    closeFlows(f -> true);
  }

  /** Waits (briefly) for a listener loop to end after its socket was closed. */
  static void join(Thread thread) {
    if (thread == null || thread == Thread.currentThread()) {
      return;
    }
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String key(ServiceLoadBalancerSpec.Protocol protocol, int port) {
    return port + "/" + protocol;
  }
}
