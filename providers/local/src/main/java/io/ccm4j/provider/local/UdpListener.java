package io.ccm4j.provider.local;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A UDP port of a load balancer. Each client address gets a session: its own socket towards one
 * backend's node port, whose replies go back to the client from the load balancer's address. A
 * session ends after {@code udpIdleTimeout} without traffic, or, when a port already has {@code
 * udpMaxSessions} (4096) sessions, when a new client needs room (the least recently active goes: a
 * client that picks a new source port per request, as DNS resolvers do, would otherwise hold a
 * socket per request for the idle timeout and exhaust the process's file descriptors). Datagrams
 * from outside the source ranges are dropped.
 */
final class UdpListener implements Listener {

  private static final Logger log = LoggerFactory.getLogger(UdpListener.class);
  private static final int MAX_DATAGRAM = 65_535;

  private final LocalLoadBalancer lb;
  private final int port;
  private final DatagramChannel channel;
  private final Map<SocketAddress, Session> sessions = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile int nodePort;
  private Thread loopThread;

  UdpListener(LocalLoadBalancer lb, InetAddress address, int port, int nodePort)
      throws IOException {
    this.lb = lb;
    this.port = port;
    this.nodePort = nodePort;
    this.channel =
        DatagramChannel.open(
            address.getAddress().length == 4
                ? StandardProtocolFamily.INET
                : StandardProtocolFamily.INET6);
    try {
      channel.bind(new InetSocketAddress(address, port));
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    this.loopThread =
        lb.threads()
            .start("local-lb-udp-" + address.getHostAddress() + ":" + port, this::receiveLoop);
  }

  @Override
  public ServiceLoadBalancerSpec.Protocol protocol() {
    return ServiceLoadBalancerSpec.Protocol.UDP;
  }

  @Override
  public int port() {
    return port;
  }

  @Override
  public void setNodePort(int nodePort) {
    this.nodePort = nodePort;
  }

  private void receiveLoop() {
    ByteBuffer buffer = ByteBuffer.allocate(MAX_DATAGRAM);
    while (!closed.get()) {
      SocketAddress from;
      buffer.clear();
      try {
        from = channel.receive(buffer);
      } catch (IOException e) {
        if (!closed.get()) {
          log.warn("local load balancer {}: UDP port {}: {}", lb.name(), port, e.toString());
        }
        continue;
      }
      buffer.flip();
      InetSocketAddress client = (InetSocketAddress) from;
      if (!lb.allows(client.getAddress())) {
        lb.refused.increment();
        continue;
      }
      Session session = sessions.get(client);
      if (session == null || session.ended.get()) {
        session = open(client);
        if (session == null) {
          lb.unserved.increment();
          continue;
        }
      }
      session.send(buffer);
    }
  }

  private Session open(InetSocketAddress client) {
    if (sessions.size() >= lb.settings().udpMaxSessions()) {
      evictLeastRecentlyActive();
    }
    List<Backend> failed = new ArrayList<>(0);
    while (!closed.get()) {
      Backend backend = lb.backends().pick(failed);
      if (backend == null) {
        return null;
      }
      DatagramChannel upstream = null;
      try {
        upstream =
            DatagramChannel.open(
                backend.address.getAddress().length == 4
                    ? StandardProtocolFamily.INET
                    : StandardProtocolFamily.INET6);
        upstream.connect(new InetSocketAddress(backend.address, nodePort));
      } catch (IOException e) {
        closeQuietly(upstream);
        failed.add(backend);
        continue;
      }
      backend.active.incrementAndGet();
      backend.total.increment();
      Session session = new Session(client, upstream, backend);
      sessions.put(client, session);
      lb.register(session);
      try {
        lb.threads().start("local-lb-udp-session", session::replyLoop);
      } catch (RuntimeException e) {
        session.close();
        return null;
      }
      return session;
    }
    return null;
  }

  private void evictLeastRecentlyActive() {
    Session oldest = null;
    for (Session session : sessions.values()) {
      if (oldest == null || session.lastActive - oldest.lastActive < 0) {
        oldest = session;
      }
    }
    if (oldest != null) {
      log.debug(
          "local load balancer {}: UDP port {}: session limit, ending {}",
          lb.name(),
          port,
          oldest.client);
      oldest.close();
    }
  }

  @Override
  public void expireIdle(long nowNanos) {
    long idle = lb.settings().udpIdleTimeout().toNanos();
    for (Session session : sessions.values()) {
      if (nowNanos - session.lastActive > idle) {
        session.close();
      }
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      closeQuietly(channel);
      LocalLoadBalancer.join(loopThread);
    }
  }

  private static void closeQuietly(DatagramChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // closed
      }
    }
  }

  /** One client's datagrams to one backend, and the backend's replies back. */
  final class Session implements ProxiedFlow {
    private final InetSocketAddress client;
    private final DatagramChannel upstream;
    private final Backend backend;
    private final AtomicBoolean ended = new AtomicBoolean();
    private volatile long lastActive = System.nanoTime();

    Session(InetSocketAddress client, DatagramChannel upstream, Backend backend) {
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
      return UdpListener.this;
    }

    void send(ByteBuffer datagram) {
      lastActive = System.nanoTime();
      try {
        upstream.write(datagram);
      } catch (IOException e) {
        // The backend's port is gone (ICMP unreachable): the next datagram opens a new session.
        close();
      }
    }

    void replyLoop() {
      ByteBuffer buffer = ByteBuffer.allocate(MAX_DATAGRAM);
      try {
        while (!ended.get()) {
          buffer.clear();
          upstream.read(buffer);
          buffer.flip();
          lastActive = System.nanoTime();
          channel.send(buffer, client);
        }
      } catch (IOException e) {
        close();
      }
    }

    @Override
    public void close() {
      if (ended.compareAndSet(false, true)) {
        sessions.remove(client, this);
        closeQuietly(upstream);
        backend.active.decrementAndGet();
        lb.unregister(this);
      }
    }
  }
}
