package io.ccm4j.simulator.proxy;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kube-proxy of a node whose Services forward to pods, such as an infrastructure node of a
 * KubeVirt cluster, whose LoadBalancer Services select virt-launcher pods: every TCP node port of a
 * Service with a selector, on the node's loopback address, is forwarded to a Running pod the
 * selector matches (round robin), at the port's numeric {@code targetPort}; {@code /healthz} on
 * port {@value SimulatedKubeProxy#HEALTHZ_PORT} answers 200 for load balancers' health checks.
 *
 * <p>The endpoints are the pods themselves (from a Pod informer), because the local control planes
 * run no EndpointSlice controller. TCP only; no session affinity, no {@code externalTrafficPolicy:
 * Local}.
 */
public final class ForwardingKubeProxy implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ForwardingKubeProxy.class);

  private final String nodeName;
  private final InetAddress nodeIp;
  // Set once the informer exists; its first events may arrive before (see the constructor).
  private volatile SharedIndexInformer<Service> services;
  private final SharedIndexInformer<Pod> pods;
  private final Map<Integer, NodePort> nodePorts = new ConcurrentHashMap<>();
  private final Map<Integer, HealthCheckPort> healthCheckPorts = new ConcurrentHashMap<>();
  private final AtomicLong forwarded = new AtomicLong();
  private final ServerSocket healthz;
  private volatile boolean closed;

  /** One forwarded node port: which pods, which port. */
  private record Route(
      String namespace, Map<String, String> selector, int targetPort, boolean local) {}

  public ForwardingKubeProxy(KubernetesClient client, String nodeName, String nodeIp)
      throws IOException {
    this.nodeName = nodeName;
    this.nodeIp = InetAddress.getByName(nodeIp);
    this.healthz = new ServerSocket();
    healthz.bind(new InetSocketAddress(this.nodeIp, SimulatedKubeProxy.HEALTHZ_PORT));
    Thread.ofVirtual().name("healthz-" + nodeName).start(() -> serveHttp(healthz, () -> true));
    pods = client.pods().inAnyNamespace().inform();
    services =
        client
            .services()
            .inAnyNamespace()
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Service service) {
                    sync();
                  }

                  @Override
                  public void onUpdate(Service oldService, Service service) {
                    sync();
                  }

                  @Override
                  public void onDelete(Service service, boolean unknownFinalState) {
                    sync();
                  }
                },
                0);
    sync(); // the Services whose events came before the informer was assigned
  }

  public String nodeName() {
    return nodeName;
  }

  /** How many connections this node forwarded to a pod. */
  public long forwardedConnections() {
    return forwarded.get();
  }

  /** Listens on exactly the node ports the Services now have. */
  private synchronized void sync() {
    if (closed || services == null) {
      return;
    }
    Map<Integer, Route> wanted = new HashMap<>();
    Map<Integer, Route> wantedHealthChecks = new HashMap<>();
    for (Service service : services.getStore().list()) {
      Map<String, String> selector = service.getSpec().getSelector();
      if (selector == null || selector.isEmpty() || service.getSpec().getPorts() == null) {
        continue;
      }
      boolean local = "Local".equals(service.getSpec().getExternalTrafficPolicy());
      Integer healthCheckNodePort = service.getSpec().getHealthCheckNodePort();
      if (local && healthCheckNodePort != null && healthCheckNodePort > 0) {
        wantedHealthChecks.put(
            healthCheckNodePort,
            new Route(service.getMetadata().getNamespace(), Map.copyOf(selector), 0, true));
      }
      for (ServicePort port : service.getSpec().getPorts()) {
        if (port.getNodePort() != null
            && port.getNodePort() > 0
            && "TCP".equals(Objects.requireNonNullElse(port.getProtocol(), "TCP"))
            && port.getTargetPort() != null
            && port.getTargetPort().getIntVal() != null) {
          wanted.put(
              port.getNodePort(),
              new Route(
                  service.getMetadata().getNamespace(),
                  Map.copyOf(selector),
                  port.getTargetPort().getIntVal(),
                  local));
        }
      }
    }
    nodePorts
        .entrySet()
        .removeIf(
            e -> {
              if (!wanted.containsKey(e.getKey())) {
                e.getValue().close();
                return true;
              }
              return false;
            });
    for (Map.Entry<Integer, Route> entry : wanted.entrySet()) {
      NodePort existing = nodePorts.get(entry.getKey());
      if (existing != null) {
        existing.route = entry.getValue();
        continue;
      }
      try {
        nodePorts.put(entry.getKey(), new NodePort(entry.getKey(), entry.getValue()));
      } catch (IOException e) {
        log.warn("{}: cannot listen on {}:{}: {}", nodeName, nodeIp, entry.getKey(), e.toString());
      }
    }
    healthCheckPorts
        .entrySet()
        .removeIf(
            e -> {
              if (!wantedHealthChecks.containsKey(e.getKey())) {
                e.getValue().close();
                return true;
              }
              return false;
            });
    for (Map.Entry<Integer, Route> entry : wantedHealthChecks.entrySet()) {
      HealthCheckPort existing = healthCheckPorts.get(entry.getKey());
      if (existing != null) {
        existing.route = entry.getValue();
        continue;
      }
      try {
        healthCheckPorts.put(entry.getKey(), new HealthCheckPort(entry.getKey(), entry.getValue()));
      } catch (IOException e) {
        log.warn("{}: cannot listen on {}:{}: {}", nodeName, nodeIp, entry.getKey(), e.toString());
      }
    }
  }

  private List<Pod> endpoints(Route route) {
    return pods.getStore().list().stream()
        .filter(p -> route.namespace().equals(p.getMetadata().getNamespace()))
        .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(
            p ->
                p.getMetadata().getLabels() != null
                    && p.getMetadata()
                        .getLabels()
                        .entrySet()
                        .containsAll(route.selector().entrySet()))
        .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
        .filter(p -> p.getStatus().getPodIP() != null && !p.getStatus().getPodIP().isEmpty())
        .filter(p -> !route.local() || nodeName.equals(p.getSpec().getNodeName()))
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .toList();
  }

  /** A listener on one node port. */
  private final class NodePort {
    private final ServerSocket server;
    private final AtomicInteger next = new AtomicInteger();
    private volatile Route route;

    NodePort(int port, Route route) throws IOException {
      this.route = route;
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(nodeIp, port));
      Thread.ofVirtual().name("nodeport-" + nodeName + "-" + port).start(this::accept);
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket client = server.accept();
          Thread.ofVirtual().start(() -> forward(client));
        } catch (IOException e) {
          return; // closed
        }
      }
    }

    private void forward(Socket client) {
      Route current = route;
      List<Pod> backends = endpoints(current);
      if (backends.isEmpty()) {
        closeQuietly(client);
        return;
      }
      Pod pod = backends.get(Math.floorMod(next.getAndIncrement(), backends.size()));
      Socket backend = new Socket();
      try {
        backend.connect(
            new InetSocketAddress(pod.getStatus().getPodIP(), current.targetPort()), 2000);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(backend);
        return;
      }
      forwarded.incrementAndGet();
      Thread.ofVirtual().start(() -> pipe(client, backend));
      pipe(backend, client);
    }

    void close() {
      closeQuietly(server);
    }
  }

  /** A Service's {@code healthCheckNodePort}: 200 while this node hosts an endpoint, else 503. */
  private final class HealthCheckPort {
    private final ServerSocket server;
    private volatile Route route;

    HealthCheckPort(int port, Route route) throws IOException {
      this.route = route;
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(nodeIp, port));
      Thread.ofVirtual()
          .name("healthcheck-" + nodeName + "-" + port)
          .start(() -> serveHttp(server, () -> !endpoints(this.route).isEmpty()));
    }

    void close() {
      closeQuietly(server);
    }
  }

  /** Copies until {@code from} ends, then half-closes {@code to}. */
  private static void pipe(Socket from, Socket to) {
    byte[] buffer = new byte[16384];
    try (InputStream in = from.getInputStream()) {
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
      to.shutdownOutput();
    } catch (IOException e) {
      closeQuietly(to);
    }
  }

  /** Answers every request on {@code server}: 200 while {@code healthy}, else 503. */
  private static void serveHttp(ServerSocket server, BooleanSupplier healthy) {
    while (!server.isClosed()) {
      try (Socket socket = server.accept()) {
        socket.setSoTimeout(2000);
        InputStream in = socket.getInputStream();
        int state = 0;
        int c;
        // Read to the end of the request head.
        while (state < 4 && (c = in.read()) != -1) {
          state = (c == '\r' && state % 2 == 0) || (c == '\n' && state % 2 == 1) ? state + 1 : 0;
        }
        String status = healthy.getAsBoolean() ? "200 OK" : "503 Service Unavailable";
        socket
            .getOutputStream()
            .write(
                ("HTTP/1.1 "
                        + status
                        + "\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n"
                        + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
      } catch (IOException e) {
        if (server.isClosed()) {
          return;
        }
      }
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    services.close();
    pods.close();
    nodePorts.values().forEach(NodePort::close);
    nodePorts.clear();
    healthCheckPorts.values().forEach(HealthCheckPort::close);
    healthCheckPorts.clear();
    closeQuietly(healthz);
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // closing anyway
    }
  }
}
