package io.ccm4j.provider.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP port of a load balancer: accepts on the load balancer's address and splices each connection
 * to a serving backend's node port, on virtual threads (one per direction). A client outside the
 * source ranges is reset at once. When connecting to the chosen backend fails, the next serving one
 * is tried, so a node that vanished between health checks costs no connection.
 */
final class TcpListener implements Listener {

  private static final Logger log = LoggerFactory.getLogger(TcpListener.class);
  private static final int BUFFER = 16 * 1024;
  private static final int BACKLOG = 4096;

  private final LocalLoadBalancer lb;
  private final int port;
  private final ServerSocket server;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile int nodePort;
  private Thread loopThread;

  TcpListener(LocalLoadBalancer lb, InetAddress address, int port, int nodePort)
      throws IOException {
    this.lb = lb;
    this.port = port;
    this.nodePort = nodePort;
    this.server = new ServerSocket();
    try {
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(address, port), BACKLOG);
    } catch (IOException e) {
      server.close();
      throw e;
    }
    this.loopThread =
        lb.threads()
            .start("local-lb-tcp-" + address.getHostAddress() + ":" + port, this::acceptLoop);
  }

  @Override
  public ServiceLoadBalancerSpec.Protocol protocol() {
    return ServiceLoadBalancerSpec.Protocol.TCP;
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public void setNodePort(int nodePort) {
    this.nodePort = nodePort;
  }

  private void acceptLoop() {
    while (!closed.get()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (!closed.get()) {
          log.warn(
              "local load balancer {}: accept on port {} failed: {}",
              lb.name(),
              port,
              e.toString());
        }
        continue;
      }
      if (!lb.allows(client.getInetAddress())) {
        lb.refused.increment();
        reset(client);
        continue;
      }
      try {
        lb.threads().start("local-lb-conn", () -> forward(client));
      } catch (RuntimeException e) {
        reset(client);
      }
    }
  }

  private void forward(Socket client) {
    List<Backend> failed = new ArrayList<>(0);
    int target = nodePort;
    while (!closed.get()) {
      Backend backend = lb.backends().pick(failed);
      if (backend == null) {
        break;
      }
      backend.active.incrementAndGet();
      Socket upstream = new Socket();
      try {
        upstream.setTcpNoDelay(true);
        upstream.connect(
            new InetSocketAddress(backend.address, target),
            (int) lb.settings().connectTimeout().toMillis());
      } catch (IOException e) {
        backend.active.decrementAndGet();
        closeQuietly(upstream);
        failed.add(backend);
        log.debug(
            "local load balancer {}: {} refused port {}: {}",
            lb.name(),
            backend,
            target,
            e.toString());
        continue;
      }
      backend.total.increment();
      Connection connection = new Connection(client, upstream, backend);
      lb.register(connection);
      if (closed.get()) {
        connection.close();
        return;
      }
      try {
        lb.threads().start("local-lb-pump", () -> connection.pump(upstream, client));
      } catch (RuntimeException e) {
        connection.close();
        return;
      }
      connection.pump(client, upstream);
      return;
    }
    lb.unserved.increment();
    reset(client);
  }

  /** Refuses as closely as user space can: an RST instead of a FIN. */
  private static void reset(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (IOException ignored) {
      // closing anyway
    }
    closeQuietly(socket);
  }

  static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // nothing to do
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        server.close();
      } catch (IOException ignored) {
        // closed
      }
      // The socket is really closed only once the accept loop let go of it: wait, so that a
      // removed port refuses connections as soon as close returns.
      LocalLoadBalancer.join(loopThread);
    }
  }

  /** One client connection spliced to one backend. */
  final class Connection implements ProxiedFlow {
    private final Socket client;
    private final Socket upstream;
    private final Backend backend;
    private final AtomicInteger openDirections = new AtomicInteger(2);
    private final AtomicBoolean ended = new AtomicBoolean();

    Connection(Socket client, Socket upstream, Backend backend) {
      this.client = client;
      this.upstream = upstream;
      this.backend = backend;
    }

    @Override
    public Backend backend() {
      return backend;
    }

    @Override
    public Listener listener() {
      return TcpListener.this;
    }

    void pump(Socket from, Socket to) {
      byte[] buffer = new byte[BUFFER];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        int n;
        while ((n = in.read(buffer)) != -1) {
          out.write(buffer, 0, n);
        }
        // Half-close: pass the FIN on and let the other direction finish.
        if (!to.isClosed()) {
          to.shutdownOutput();
        }
        if (openDirections.decrementAndGet() == 0) {
          close();
        }
      } catch (IOException e) {
        close();
      }
    }

    @Override
    public void close() {
      if (ended.compareAndSet(false, true)) {
        closeQuietly(client);
        closeQuietly(upstream);
        backend.active.decrementAndGet();
        lb.unregister(this);
      }
    }
  }
}
