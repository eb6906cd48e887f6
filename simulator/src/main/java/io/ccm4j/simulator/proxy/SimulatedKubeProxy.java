package io.ccm4j.simulator.proxy;

import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kube-proxy of one simulated node, serving on the node's own loopback address (such as {@code
 * 127.0.50.3}):
 *
 * <ul>
 *   <li>every node port of every NodePort or LoadBalancer Service: TCP answers HTTP (curl, wrk) and
 *       UDP echoes, both with {@code node=<node> service=<ns>/<name> port=<port>
 *       nodePort=<nodePort>};
 *   <li>{@code /healthz} on port 10256, as kube-proxy does since Kubernetes 1.31 (KEP-3836): 200,
 *       or 503 while the node drains: it is being deleted, is tainted {@value
 *       WellKnownTaints#TO_BE_DELETED_BY_CLUSTER_AUTOSCALER}, or was told to drain ({@link
 *       #setDraining}). Load balancers with {@code externalTrafficPolicy: Cluster} check it, so
 *       they stop sending new connections to a draining node while its node ports keep working;
 *   <li>{@code /healthz} on each {@code externalTrafficPolicy: Local} Service's {@code
 *       healthCheckNodePort}: 200 while the node "has local endpoints" for it (the default; change
 *       with {@link #setLocalEndpoints}), else 503.
 * </ul>
 *
 * <p>It is fed Services and Nodes by {@link KubeProxyFleet} (from informers), or directly through
 * {@link #apply}, {@link #remove} and {@link #nodeUpdated} where no API server runs.
 */
public final class SimulatedKubeProxy implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SimulatedKubeProxy.class);

  /** kube-proxy's default {@code --healthz-bind-address} port. */
  public static final int HEALTHZ_PORT = 10256;

  private final String nodeName;
  private final InetAddress nodeIp;
  private final ProxyThreads threads = new ProxyThreads();
  private final TinyHttpServer healthz;
  private final Map<String, ServiceServers> services = new HashMap<>();
  private final Map<String, Boolean> localEndpoints = new ConcurrentHashMap<>();
  private volatile boolean drainRequested;
  private volatile boolean nodeDraining;
  private volatile Instant lastUpdated = Instant.now();
  private boolean closed;

  /** Starts serving {@code /healthz} on {@code nodeIp:10256}. */
  public SimulatedKubeProxy(String nodeName, String nodeIp) throws IOException {
    this(nodeName, nodeIp, HEALTHZ_PORT);
  }

  public SimulatedKubeProxy(String nodeName, String nodeIp, int healthzPort) throws IOException {
    this.nodeName = nodeName;
    this.nodeIp = address(nodeIp);
    this.healthz = new TinyHttpServer(this.nodeIp, healthzPort, this::healthz, threads);
  }

  public String nodeName() {
    return nodeName;
  }

  public String nodeIp() {
    return nodeIp.getHostAddress();
  }

  public int healthzPort() {
    return healthz.port();
  }

  /** Serves the Service's node ports (and health check node port), as they now are. */
  public synchronized void apply(Service service) {
    if (closed) {
      return;
    }
    String key = key(service.getMetadata().getNamespace(), service.getMetadata().getName());
    ServiceServers current = services.computeIfAbsent(key, k -> new ServiceServers());
    Map<String, Wanted> wanted = wanted(key, service);
    current
        .servers
        .entrySet()
        .removeIf(
            e -> {
              Wanted w = wanted.get(e.getKey());
              if (w != null && w.equals(current.specs.get(e.getKey()))) {
                return false;
              }
              e.getValue().close();
              current.specs.remove(e.getKey());
              return true;
            });
    for (var entry : wanted.entrySet()) {
      if (current.servers.containsKey(entry.getKey())) {
        continue;
      }
      Wanted w = entry.getValue();
      try {
        PortServer server =
            switch (w.kind()) {
              case TCP -> new TinyHttpServer(nodeIp, w.nodePort(), path -> answer(w), threads);
              case UDP -> new UdpEchoServer(nodeIp, w.nodePort(), w.answer(), threads);
              case HEALTH ->
                  new TinyHttpServer(nodeIp, w.nodePort(), path -> serviceHealth(key), threads);
            };
        current.servers.put(entry.getKey(), server);
        current.specs.put(entry.getKey(), w);
      } catch (IOException e) {
        log.warn(
            "kube-proxy {}: cannot serve {} of {} on {}:{}: {}",
            nodeName,
            w.kind(),
            key,
            nodeIp.getHostAddress(),
            w.nodePort(),
            e.getMessage());
      }
    }
    lastUpdated = Instant.now();
  }

  /** Stops serving the Service. */
  public synchronized void remove(String namespace, String name) {
    ServiceServers current = services.remove(key(namespace, name));
    if (current != null) {
      current.close();
    }
    lastUpdated = Instant.now();
  }

  /**
   * Follows the node: it drains (503 on 10256) while it has a deletion timestamp or the taint
   * {@value WellKnownTaints#TO_BE_DELETED_BY_CLUSTER_AUTOSCALER} (KEP-3836).
   */
  public void nodeUpdated(Node node) {
    boolean deleting = node.getMetadata().getDeletionTimestamp() != null;
    boolean tainted =
        node.getSpec() != null
            && node.getSpec().getTaints() != null
            && node.getSpec().getTaints().stream()
                .anyMatch(
                    t -> WellKnownTaints.TO_BE_DELETED_BY_CLUSTER_AUTOSCALER.equals(t.getKey()));
    nodeDraining = deleting || tainted;
  }

  /** Drains (or stops draining) the node by hand, whatever its Node says. */
  public void setDraining(boolean draining) {
    this.drainRequested = draining;
  }

  /** Whether {@code /healthz} on 10256 answers 503. */
  public boolean draining() {
    return drainRequested || nodeDraining;
  }

  /** Whether this node has ready endpoints of the Service (for its eTP=Local health check). */
  public void setLocalEndpoints(String namespace, String name, boolean has) {
    localEndpoints.put(key(namespace, name), has);
  }

  /** HTTP requests answered on the Service's TCP node ports plus UDP datagrams echoed. */
  public synchronized long requests(String namespace, String name) {
    ServiceServers current = services.get(key(namespace, name));
    if (current == null) {
      return 0;
    }
    long total = 0;
    for (PortServer server : current.servers.values()) {
      if (server instanceof TinyHttpServer http && !isHealth(current, http)) {
        total += http.requests.sum();
      } else if (server instanceof UdpEchoServer udp) {
        total += udp.datagrams.sum();
      }
    }
    return total;
  }

  /** HTTP requests and datagrams served on all node ports of all Services. */
  public synchronized long totalRequests() {
    long total = 0;
    for (var entry : services.entrySet()) {
      String[] parts = entry.getKey().split("/", 2);
      total += requests(parts[0], parts[1]);
    }
    return total;
  }

  /** The node ports served now, as {@code nodePort/PROTOCOL}, for each Service. */
  public synchronized Map<String, List<String>> servedPorts() {
    Map<String, List<String>> result = new HashMap<>();
    services.forEach(
        (key, s) -> {
          List<String> ports = new ArrayList<>();
          s.specs.values().forEach(w -> ports.add(w.nodePort() + "/" + w.kind()));
          result.put(key, ports);
        });
    return result;
  }

  private static boolean isHealth(ServiceServers servers, TinyHttpServer server) {
    for (var e : servers.servers.entrySet()) {
      if (e.getValue() == server) {
        return servers.specs.get(e.getKey()).kind() == Kind.HEALTH;
      }
    }
    return false;
  }

  private TinyHttpServer.Response answer(Wanted w) {
    return new TinyHttpServer.Response(200, w.answer() + "\n");
  }

  /** kube-proxy's {@code /healthz}: its JSON, 503 while the node drains. */
  private TinyHttpServer.Response healthz(String path) {
    if (!path.equals("/healthz") && !path.equals("/livez")) {
      return new TinyHttpServer.Response(404, "404 page not found\n");
    }
    boolean eligible = !draining() || path.equals("/livez");
    Instant now = Instant.now();
    String body =
        "{\"lastUpdated\": \"%s\",\"currentTime\": \"%s\", \"nodeEligible\": %s}"
            .formatted(
                lastUpdated.truncatedTo(ChronoUnit.MILLIS),
                now.truncatedTo(ChronoUnit.MILLIS),
                eligible);
    return new TinyHttpServer.Response(eligible ? 200 : 503, body);
  }

  /** kube-proxy's per-service health check for eTP=Local. */
  private TinyHttpServer.Response serviceHealth(String key) {
    boolean has = localEndpoints.getOrDefault(key, true);
    String[] parts = key.split("/", 2);
    String body =
        "{\"service\": {\"namespace\": \"%s\",\"name\": \"%s\"},\"localEndpoints\": %d,\"serviceProxyHealthy\": true}"
            .formatted(parts[0], parts[1], has ? 1 : 0);
    return new TinyHttpServer.Response(has ? 200 : 503, body);
  }

  private Map<String, Wanted> wanted(String key, Service service) {
    Map<String, Wanted> wanted = new HashMap<>();
    var spec = service.getSpec();
    if (spec == null
        || !("NodePort".equals(spec.getType()) || "LoadBalancer".equals(spec.getType()))) {
      return wanted;
    }
    if (spec.getPorts() != null) {
      for (ServicePort port : spec.getPorts()) {
        Integer nodePort = port.getNodePort();
        if (nodePort == null || nodePort == 0) {
          continue;
        }
        String protocol = port.getProtocol() == null ? "TCP" : port.getProtocol();
        Kind kind;
        if (protocol.equals("TCP")) {
          kind = Kind.TCP;
        } else if (protocol.equals("UDP")) {
          kind = Kind.UDP;
        } else {
          continue; // SCTP: not simulated
        }
        String answer =
            "node=%s service=%s port=%d nodePort=%d"
                .formatted(nodeName, key, port.getPort(), nodePort);
        wanted.put(nodePort + "/" + kind, new Wanted(kind, nodePort, answer));
      }
    }
    Integer health = spec.getHealthCheckNodePort();
    if ("Local".equals(spec.getExternalTrafficPolicy()) && health != null && health > 0) {
      wanted.put(health + "/" + Kind.HEALTH, new Wanted(Kind.HEALTH, health, ""));
    }
    return wanted;
  }

  private static String key(String namespace, String name) {
    return namespace + "/" + name;
  }

  private static InetAddress address(String ip) {
    try {
      return InetAddress.getByName(ip);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: " + ip, e);
    }
  }

  /** Stops every server and waits for their threads. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      services.values().forEach(ServiceServers::close);
      services.clear();
    }
    healthz.close();
    try {
      if (!threads.awaitNone(Duration.ofSeconds(5))) {
        log.warn("kube-proxy {}: {} threads still running after close", nodeName, threads.live());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Virtual threads still running; 0 after {@link #close()}. */
  public int liveThreads() {
    return threads.live();
  }

  private enum Kind {
    TCP,
    UDP,
    HEALTH
  }

  private record Wanted(Kind kind, int nodePort, String answer) {}

  private static final class ServiceServers {
    final Map<String, PortServer> servers = new HashMap<>();
    final Map<String, Wanted> specs = new HashMap<>();

    void close() {
      servers.values().forEach(PortServer::close);
      servers.clear();
      specs.clear();
    }
  }
}
