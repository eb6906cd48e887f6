package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.api.WellKnownServices;
import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.cloudprovider.net.IpAddresses;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.Service;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code local} cloud's load balancers (spec §2, LoadBalancer): each LoadBalancer Service gets
 * an address from the pool and real listeners on it that forward to the backend nodes' node ports.
 * Calls are serialised; traffic flows without the lock.
 */
public final class LocalLoadBalancers implements LoadBalancer {

  private static final Logger log = LoggerFactory.getLogger(LocalLoadBalancers.class);

  private final LocalCloudSettings settings;
  private final TrackedThreads threads;
  private final AddressPool pool;
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, LocalLoadBalancer> byName = new TreeMap<>();
  private final java.util.function.Supplier<EventLoops> startTimer;
  private volatile boolean closed;

  LocalLoadBalancers(
      LocalCloudSettings settings,
      TrackedThreads threads,
      java.util.function.Supplier<EventLoops> startTimer) {
    this.settings = settings;
    this.threads = threads;
    this.startTimer = startTimer;
    this.pool = new AddressPool(settings.addressPool());
  }

  /** Every setting of the local cloud shapes its load balancers (balancing, timeouts, checks). */
  @Override
  public String fingerprint() {
    return "local/" + settings;
  }

  /** The UID-based default name; a Service without UID (a test object) falls back to its key. */
  @Override
  public String loadBalancerName(String clusterName, Service service) {
    if (service.getMetadata().getUid() == null || service.getMetadata().getUid().isBlank()) {
      return "a-" + service.getMetadata().getNamespace() + "-" + service.getMetadata().getName();
    }
    return LoadBalancer.defaultName(service);
  }

  @Override
  public Optional<LoadBalancerStatus> getLoadBalancer(String clusterName, Service service) {
    lock.lock();
    try {
      return Optional.ofNullable(byName.get(loadBalancerName(clusterName, service)))
          .map(LocalLoadBalancers::status);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public LoadBalancerStatus ensureLoadBalancer(
      String clusterName, Service service, List<Node> nodes) throws CloudException {
    ServiceLoadBalancerSpec spec =
        ServiceLoadBalancerSpec.of(service, settings.kubeProxyHealthPort());
    String name = loadBalancerName(clusterName, service);
    String key = LoadBalancer.serviceKey(service);
    lock.lock();
    try {
      if (closed) {
        throw new CloudException("the local cloud is closed");
      }
      EventLoops loops = startTimer.get();
      LocalLoadBalancer lb = byName.get(name);
      InetAddress wanted = spec.requestedAddress();
      LocalLoadBalancer replaced = null;
      if (lb != null && wanted != null && !wanted.equals(lb.address())) {
        // spec.loadBalancerIP changed: the new load balancer listens before the old one goes, so
        // a refusal (the address is taken, a port is in use there) leaves the old one serving.
        replaced = lb;
        lb = null;
      }
      boolean created = lb == null;
      if (created) {
        InetAddress address;
        if (wanted != null) {
          reserve(wanted, name, key);
          address = wanted;
        } else {
          address =
              pool.allocate(name)
                  .orElseThrow(
                      () ->
                          new CloudException(
                              "%s: the load balancer address pool %s is exhausted"
                                  .formatted(
                                      ServiceLoadBalancerSpec.key(service), pool.network())));
        }
        lb = new LocalLoadBalancer(name, key, address, settings, threads, loops);
      }
      try {
        lb.apply(spec);
      } catch (IOException e) {
        if (created) {
          lb.close();
          pool.release(lb.address());
        }
        throw new CloudException(
            "%s: cannot listen on %s: %s"
                .formatted(
                    ServiceLoadBalancerSpec.key(service),
                    lb.address().getHostAddress(),
                    e.getMessage()),
            e);
      }
      if (replaced != null) {
        remove(replaced);
      }
      if (created) {
        byName.put(name, lb);
        log.info("local load balancer {} for {} at {}", name, key, lb.address().getHostAddress());
      }
      lb.setBackends(targets(nodes, settings.backendNetworks()));
      return status(lb);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void updateLoadBalancer(String clusterName, Service service, List<Node> nodes)
      throws CloudException {
    lock.lock();
    try {
      LocalLoadBalancer lb = byName.get(loadBalancerName(clusterName, service));
      if (lb == null) {
        throw new CloudException(
            "%s: no load balancer to update".formatted(ServiceLoadBalancerSpec.key(service)));
      }
      lb.setBackends(targets(nodes, settings.backendNetworks()));
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void ensureLoadBalancerDeleted(String clusterName, Service service) {
    lock.lock();
    try {
      LocalLoadBalancer lb = byName.get(loadBalancerName(clusterName, service));
      if (lb != null) {
        remove(lb);
      }
    } finally {
      lock.unlock();
    }
  }

  private void reserve(InetAddress wanted, String name, String key) throws CloudException {
    if (!pool.contains(wanted)) {
      throw new CloudException(
          "service %s: spec.loadBalancerIP: %s is not in the load balancer address pool %s"
              .formatted(key, wanted.getHostAddress(), pool.network()));
    }
    if (!pool.reserve(wanted, name)) {
      String owner = pool.owner(wanted).orElse("?");
      String ownerService = byName.containsKey(owner) ? byName.get(owner).service() : owner;
      throw new CloudException(
          "service %s: spec.loadBalancerIP: %s is already used by the load balancer of %s"
              .formatted(key, wanted.getHostAddress(), ownerService));
    }
  }

  private void remove(LocalLoadBalancer lb) {
    byName.remove(lb.name());
    lb.close();
    pool.release(lb.address());
    log.info(
        "local load balancer {} for {} deleted, {} freed",
        lb.name(),
        lb.service(),
        lb.address().getHostAddress());
  }

  /**
   * Each node's first InternalIP (else its provided node IP); nodes with neither are skipped, and
   * so are nodes whose address is not on this machine, neither this network namespace's own nor in
   * one of the {@code backendNetworks} (this machine's other network namespaces): the {@code local}
   * cloud never sends traffic (or health checks) off the host.
   */
  static List<BackendPool.Target> targets(List<Node> nodes, List<Cidr> backendNetworks) {
    List<BackendPool.Target> targets = new ArrayList<>();
    for (Node node : nodes) {
      InetAddress address = internalIp(node);
      if (address == null) {
        log.warn(
            "node {} has no InternalIP: not a load balancer backend", node.getMetadata().getName());
        continue;
      }
      if (!onThisMachine(address) && backendNetworks.stream().noneMatch(n -> n.contains(address))) {
        log.warn(
            "node {}: InternalIP {} is not an address of this machine: not a local load balancer"
                + " backend",
            node.getMetadata().getName(),
            address.getHostAddress());
        continue;
      }
      BackendPool.Target target = new BackendPool.Target(node.getMetadata().getName(), address);
      if (!targets.contains(target)) {
        targets.add(target);
      }
    }
    return targets;
  }

  static boolean onThisMachine(InetAddress address) {
    if (address.isLoopbackAddress()) {
      return true;
    }
    try {
      return java.net.NetworkInterface.getByInetAddress(address) != null;
    } catch (java.net.SocketException e) {
      return false;
    }
  }

  private static InetAddress internalIp(Node node) {
    List<String> candidates = new ArrayList<>();
    if (node.getStatus() != null && node.getStatus().getAddresses() != null) {
      for (NodeAddress address : node.getStatus().getAddresses()) {
        if ("InternalIP".equals(address.getType())) {
          candidates.add(address.getAddress());
        }
      }
    }
    for (var address : LocalInstances.addresses(node)) {
      if (address.type() == io.ccm4j.cloudprovider.NodeAddress.Type.InternalIP) {
        candidates.add(address.address());
      }
    }
    for (String candidate : candidates) {
      Optional<InetAddress> address = IpAddresses.tryParse(candidate);
      if (address.isPresent()) {
        return address.get();
      }
    }
    return null;
  }

  /**
   * Its address with {@code ipMode: Proxy}: the listener accepts every connection and opens its own
   * to a node's port, so a real kube-proxy must not take the address for its own.
   */
  static LoadBalancerStatus status(LocalLoadBalancer lb) {
    return new LoadBalancerStatus(
        List.of(
            new LoadBalancerStatus.Ingress(
                lb.address().getHostAddress(), "", WellKnownServices.IP_MODE_PROXY)));
  }

  /** Health checks of every load balancer: called every health-check interval. */
  void probeAll() {
    for (LocalLoadBalancer lb : list()) {
      lb.probeAll(lb.backends().members(), false);
    }
  }

  /** Drain, idle-session and pruning sweep of every load balancer. */
  void sweep() {
    long now = System.nanoTime();
    for (LocalLoadBalancer lb : list()) {
      lb.sweep(now);
    }
  }

  private List<LocalLoadBalancer> list() {
    lock.lock();
    try {
      return List.copyOf(byName.values());
    } finally {
      lock.unlock();
    }
  }

  /** What each load balancer is doing now: for tests, the lab and benchmarks. */
  public List<LoadBalancerView> snapshot() {
    List<LoadBalancerView> views = new ArrayList<>();
    for (LocalLoadBalancer lb : list()) {
      List<BackendView> backends =
          lb.backends().all().stream()
              .map(
                  b ->
                      new BackendView(
                          b.nodeName,
                          b.address.getHostAddress(),
                          b.member(),
                          b.healthy(),
                          b.active.get(),
                          b.total.sum()))
              .toList();
      views.add(
          new LoadBalancerView(
              lb.name(),
              lb.service(),
              lb.address().getHostAddress(),
              lb.listenerKeys(),
              backends,
              lb.flowCount(),
              lb.refused.sum(),
              lb.unserved.sum()));
    }
    return views;
  }

  /**
   * One load balancer.
   *
   * @param ports {@code port/PROTOCOL} of each listener
   * @param openFlows TCP connections and UDP sessions in flight
   * @param refused connections and datagrams refused by the source ranges
   * @param unserved connections and datagrams dropped because no backend was serving
   */
  public record LoadBalancerView(
      String name,
      String service,
      String address,
      List<String> ports,
      List<BackendView> backends,
      int openFlows,
      long refused,
      long unserved) {}

  /**
   * One backend node.
   *
   * @param member whether it is in the current node set (false while a former member drains)
   * @param total connections and UDP sessions it was given so far
   */
  public record BackendView(
      String node, String address, boolean member, boolean healthy, int active, long total) {}

  void closeAll() {
    lock.lock();
    try {
      closed = true;
      for (LocalLoadBalancer lb : List.copyOf(byName.values())) {
        remove(lb);
      }
    } finally {
      lock.unlock();
    }
  }
}
