package io.ccm4j.provider.local;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP port of a load balancer: accepts on the load balancer's address and splices each connection
 * to a serving backend's node port, non-blocking on the cloud's {@link EventLoops}. A client
 * outside the source ranges is reset at once. When connecting to the chosen backend fails or times
 * out, the next serving one is tried, so a node that vanished between health checks costs no
 * connection. Half-closes are passed on, so either side may finish first.
 */
final class TcpListener implements Listener {

  private static final Logger log = LoggerFactory.getLogger(TcpListener.class);
  private static final int BACKLOG = 4096;
  private static final int ACCEPTS_PER_WAKEUP = 256;
  private static final long PAUSE_LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final LocalLoadBalancer lb;
  private final int port;
  private final List<Acceptor> acceptors = new ArrayList<>();
  private final Set<Connection> connecting = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile int nodePort;

  /**
   * One listening socket per event loop (SO_REUSEPORT): the kernel spreads new connections over the
   * loops, and each connection stays on the loop that accepted it.
   */
  TcpListener(LocalLoadBalancer lb, InetAddress address, int port, int nodePort)
      throws IOException {
    this.lb = lb;
    this.port = port;
    this.nodePort = nodePort;
    refuseIfTaken(address, port);
    try {
      for (EventLoop loop : lb.loops().all()) {
        acceptors.add(new Acceptor(loop, address));
      }
    } catch (IOException e) {
      close();
      throw e;
    }
  }

  /**
   * SO_REUSEPORT would let this listener silently share {@code address:port} with another process's
   * (a second ccm4j, a stale one), each getting part of the connections. A bind without it fails
   * against any listener there, while SO_REUSEADDR lets it pass the TIME_WAIT connections of an
   * earlier listener of ours.
   */
  private static void refuseIfTaken(InetAddress address, int port) throws IOException {
    try (ServerSocketChannel probe = ServerSocketChannel.open(familyOf(address))) {
      probe.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      probe.bind(new InetSocketAddress(address, port), 1);
    } catch (java.net.BindException e) {
      throw bindFailure(address, port, e);
    }
  }

  /** Why {@code address:port} could not be bound, in words an operator can act on. */
  static IOException bindFailure(InetAddress address, int port, java.net.BindException e) {
    String where = address.getHostAddress() + ":" + port;
    String reason = String.valueOf(e.getMessage());
    if (reason.contains("Permission denied")) {
      return new IOException(
          "%s cannot be bound: a port below 1024 needs root or CAP_NET_BIND_SERVICE (%s)"
              .formatted(where, reason),
          e);
    }
    return new IOException(
        "%s is already in use by another listener (%s)".formatted(where, reason), e);
  }

  /** A listening socket and the loop that accepts on it. */
  private final class Acceptor implements EventLoop.Handler {
    private final EventLoop loop;
    private final ServerSocketChannel server;
    private SelectionKey key;
    private volatile boolean paused;
    private long lastPauseLogged = System.nanoTime() - PAUSE_LOG_INTERVAL_NANOS;

    Acceptor(EventLoop loop, InetAddress address) throws IOException {
      this.loop = loop;
      // Of the address's family: a dual-stack socket hands every IPv4 client over as a mapped
      // IPv6 address, which costs a conversion per connection.
      this.server = ServerSocketChannel.open(familyOf(address));
      try {
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.setOption(StandardSocketOptions.SO_REUSEPORT, true);
        server.bind(new InetSocketAddress(address, port), BACKLOG);
        server.configureBlocking(false);
      } catch (IOException | UnsupportedOperationException e) {
        server.close();
        throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
      }
      IOException[] failure = new IOException[1];
      loop.executeAndWait(
          () -> {
            try {
              key = server.register(loop.selector(), SelectionKey.OP_ACCEPT, this);
            } catch (IOException e) {
              failure[0] = e;
            }
          });
      if (failure[0] != null || key == null) {
        server.close();
        throw failure[0] != null ? failure[0] : new IOException("event loop is not running");
      }
    }

    @Override
    public void ready(SelectionKey ignored) {
      for (int i = 0; i < ACCEPTS_PER_WAKEUP && !closed.get(); i++) {
        SocketChannel client;
        try {
          client = server.accept();
        } catch (IOException e) {
          pause(e);
          return;
        }
        if (client == null) {
          return;
        }
        InetAddress from = ((InetSocketAddress) remote(client)).getAddress();
        if (from == null || !lb.allows(from)) {
          lb.refused.increment();
          reset(client);
          continue;
        }
        new Connection(loop, client).start();
      }
    }

    @Override
    public void failed(IOException e) {
      log.warn("local load balancer {}: port {}: {}", lb.name(), port, e.toString());
    }

    /**
     * A failed accept (out of file descriptors: EMFILE) leaves the pending connection queued and
     * the socket readable: accepting again at once would spin the loop and starve its connections.
     * Accepting resumes at the next sweep ({@link #resume}); the log says so once per 10 s.
     */
    private void pause(IOException e) {
      paused = true;
      if (key.isValid()) {
        key.interestOps(0);
      }
      long now = System.nanoTime();
      if (now - lastPauseLogged >= PAUSE_LOG_INTERVAL_NANOS) {
        lastPauseLogged = now;
        log.warn(
            "local load balancer {}: accept on port {} failed, pausing accepts briefly: {}",
            lb.name(),
            port,
            e.toString());
      }
    }

    void resume() {
      if (paused) {
        loop.execute(
            () -> {
              paused = false;
              if (key.isValid() && !closed.get()) {
                key.interestOps(SelectionKey.OP_ACCEPT);
              }
            });
      }
    }

    void close() {
      loop.executeAndWait(
          () -> {
            if (key != null) {
              key.cancel();
            }
            try {
              server.close();
            } catch (IOException ignored) {
              // closed
            }
            // A cancelled key keeps the socket open until the next select.
            loop.flushCancelled();
          });
    }
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

  static StandardProtocolFamily familyOf(InetAddress address) {
    return address instanceof Inet4Address
        ? StandardProtocolFamily.INET
        : StandardProtocolFamily.INET6;
  }

  private static java.net.SocketAddress remote(SocketChannel channel) {
    try {
      return channel.getRemoteAddress();
    } catch (IOException e) {
      return new InetSocketAddress(0);
    }
  }

  /** Refuses as closely as user space can: an RST instead of a FIN. */
  private static void reset(SocketChannel channel) {
    try {
      channel.setOption(StandardSocketOptions.SO_LINGER, 0);
    } catch (IOException ignored) {
      // closing anyway
    }
    closeQuietly(channel);
  }

  private static void closeQuietly(SocketChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing to do
      }
    }
  }

  /**
   * Gives up on connection attempts past the connect timeout (the next backend is tried), and
   * resumes accepting where a failed accept paused it.
   */
  @Override
  public void expireIdle(long nowNanos) {
    for (Connection connection : connecting) {
      if (nowNanos > connection.connectDeadline) {
        int attempt = connection.attempt;
        connection.loop.execute(() -> connection.connectTimedOut(attempt));
      }
    }
    acceptors.forEach(Acceptor::resume);
  }

  /** Stops accepting; returns once the port refuses connections. Open connections stay. */
  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      acceptors.forEach(Acceptor::close);
      for (Connection connection : connecting) {
        connection.close();
      }
    }
  }

  /** One client connection spliced to one backend; lives on one event loop. */
  final class Connection implements ProxiedFlow {
    private final EventLoop loop;
    private final SocketChannel client;
    private List<Backend> failed = List.of();
    private final Pipe toUpstream = new Pipe();
    private final Pipe toClient = new Pipe();
    private SocketChannel upstream;
    private SelectionKey clientKey;
    private SelectionKey upstreamKey;
    private volatile Backend backend;
    private volatile long connectDeadline = Long.MAX_VALUE;
    // Which connection attempt a timeout was noticed for: a later attempt is not the late one.
    private volatile int attempt;
    private boolean counted;
    private boolean ended;

    Connection(EventLoop loop, SocketChannel client) {
      this.loop = loop;
      this.client = client;
    }

    @Override
    public Backend backend() {
      return backend;
    }

    @Override
    public Listener listener() {
      return TcpListener.this;
    }

    void start() {
      try {
        client.configureBlocking(false);
      } catch (IOException e) {
        closeQuietly(client);
        return;
      }
      connectNext();
    }

    private void connectNext() {
      while (!closed.get()) {
        Backend next = lb.backends().pick(failed);
        if (next == null) {
          break;
        }
        backend = next;
        attempt++;
        next.active.incrementAndGet();
        counted = true;
        try {
          // Of the backend's family: an IPv6 socket for an IPv4 backend costs a setsockopt more.
          upstream = SocketChannel.open(familyOf(next.address));
          upstream.configureBlocking(false);
          // On loopback the handshake is usually over when connect returns: checking at once
          // spares registering for OP_CONNECT, a wakeup and an interest change.
          if (upstream.connect(new InetSocketAddress(next.address, nodePort))
              || upstream.finishConnect()) {
            connected();
          } else {
            connectDeadline = System.nanoTime() + lb.settings().connectTimeout().toNanos();
            connecting.add(this);
            upstreamKey =
                upstream.register(loop.selector(), SelectionKey.OP_CONNECT, new Side(true));
          }
          return;
        } catch (IOException e) {
          attemptFailed();
        }
      }
      lb.unserved.increment();
      ended = true;
      reset(client);
    }

    private void attemptFailed() {
      connecting.remove(this);
      connectDeadline = Long.MAX_VALUE;
      if (upstreamKey != null) {
        upstreamKey.cancel();
        upstreamKey = null;
      }
      closeQuietly(upstream);
      upstream = null;
      if (counted) {
        backend.active.decrementAndGet();
        counted = false;
      }
      if (failed.isEmpty()) {
        failed = new ArrayList<>(2);
      }
      failed.add(backend);
      log.debug("local load balancer {}: {} did not accept port {}", lb.name(), backend, nodePort);
    }

    void connectTimedOut(int timedOut) {
      if (!ended && timedOut == attempt && upstream != null && upstream.isConnectionPending()) {
        attemptFailed();
        connectNext();
      }
    }

    private void connected() throws IOException {
      connecting.remove(this);
      connectDeadline = Long.MAX_VALUE;
      backend.total.increment();
      lb.register(this);
      if (upstreamKey == null) {
        upstreamKey = upstream.register(loop.selector(), SelectionKey.OP_READ, new Side(true));
      } else {
        upstreamKey.interestOps(SelectionKey.OP_READ);
      }
      clientKey = client.register(loop.selector(), SelectionKey.OP_READ, new Side(false));
      if (closed.get()) {
        closeNow();
        return;
      }
      // The client usually sent its first bytes while the backend was being connected: pass them
      // on now rather than after a wakeup (interest changes before the next select cost nothing).
      try {
        toUpstream.fill(client, upstream, loop.scratch(), toClient);
        update();
      } catch (IOException e) {
        closeNow(); // the client's or backend's failure, not a failed connection attempt
      }
    }

    /** The handler of one of the two channels. */
    private final class Side implements EventLoop.Handler {
      private final boolean isUpstream;

      Side(boolean isUpstream) {
        this.isUpstream = isUpstream;
      }

      @Override
      public void ready(SelectionKey key) throws IOException {
        if (ended) {
          return;
        }
        if (key.isConnectable()) {
          try {
            upstream.finishConnect();
          } catch (IOException e) {
            attemptFailed();
            connectNext();
            return;
          }
          connected();
          return;
        }
        SocketChannel self = isUpstream ? upstream : client;
        SocketChannel other = isUpstream ? client : upstream;
        Pipe from = isUpstream ? toClient : toUpstream;
        Pipe to = isUpstream ? toUpstream : toClient;
        if (key.isReadable()) {
          from.fill(self, other, loop.scratch(), to);
        }
        if (key.isValid() && key.isWritable()) {
          to.flush(self, from);
        }
        update();
      }

      @Override
      public void failed(IOException e) {
        closeNow();
      }
    }

    private void update() throws IOException {
      if (toUpstream.done() && toClient.done()) {
        closeNow();
        return;
      }
      interest(clientKey, toUpstream.wantsRead(), toClient.wantsWrite());
      interest(upstreamKey, toClient.wantsRead(), toUpstream.wantsWrite());
    }

    private static void interest(SelectionKey key, boolean read, boolean write) {
      int ops = (read ? SelectionKey.OP_READ : 0) | (write ? SelectionKey.OP_WRITE : 0);
      if (key.isValid() && key.interestOps() != ops) {
        key.interestOps(ops);
      }
    }

    @Override
    public void close() {
      loop.execute(this::closeNow);
    }

    /** Closes a channel; a registered one once its key is gone (cheaper: no JDK shutdown). */
    private void release(SelectionKey key, SocketChannel channel) {
      if (channel == null) {
        return;
      }
      if (key != null && key.isValid() && loop.inLoop()) {
        key.cancel();
        loop.closeAfterSelect(channel);
      } else {
        closeQuietly(channel);
      }
    }

    private void closeNow() {
      if (ended) {
        return;
      }
      ended = true;
      connecting.remove(this);
      release(clientKey, client);
      release(upstreamKey, upstream);
      if (counted) {
        backend.active.decrementAndGet();
        counted = false;
      }
      lb.unregister(this);
    }
  }

  /**
   * One direction of a connection. Bytes are read into the loop's scratch buffer and written on at
   * once; only what the destination cannot take now is copied aside (then reading pauses), so a
   * typical request or answer allocates nothing.
   */
  private static final class Pipe {
    /** Below any MSS: a first write this small goes out at once even with Nagle on. */
    private static final int SMALL_WRITE = 1024;

    private ByteBuffer pending;
    private boolean sourceEnded;
    private boolean shutDown;
    private boolean wrote;
    private boolean noDelay;

    /**
     * Sets TCP_NODELAY on the destination before its second write (or a first large one): a first
     * small write leaves nothing unacknowledged for Nagle to wait on, so it goes out at once
     * anyway, and a one-exchange connection (an HTTP request, its answer) spares two setsockopt
     * calls. No later write is ever held back.
     */
    private void write(SocketChannel destination, ByteBuffer bytes) throws IOException {
      if (!noDelay && (wrote || bytes.remaining() > SMALL_WRITE)) {
        destination.setOption(StandardSocketOptions.TCP_NODELAY, true);
        noDelay = true;
      }
      wrote = true;
      destination.write(bytes);
    }

    void fill(SocketChannel source, SocketChannel destination, ByteBuffer scratch, Pipe reverse)
        throws IOException {
      if (!sourceEnded && pending == null) {
        scratch.clear();
        int n = source.read(scratch);
        if (n < 0) {
          sourceEnded = true;
        } else if (n > 0) {
          scratch.flip();
          write(destination, scratch);
          if (scratch.hasRemaining()) {
            pending = ByteBuffer.allocate(scratch.remaining());
            pending.put(scratch).flip();
          }
        }
      }
      flush(destination, reverse);
    }

    /**
     * Writes what is pending; passes the source's end on as a half-close, unless the other
     * direction is over too: then the connection is closed, which sends the FIN anyway.
     */
    void flush(SocketChannel destination, Pipe reverse) throws IOException {
      if (pending != null) {
        write(destination, pending);
        if (!pending.hasRemaining()) {
          pending = null;
        }
      }
      if (sourceEnded && !shutDown && pending == null) {
        shutDown = true;
        if (reverse.shutDown) {
          return;
        }
        try {
          destination.shutdownOutput();
        } catch (IOException e) {
          // the destination is already gone: this direction is over either way
        }
      }
    }

    boolean wantsRead() {
      return !sourceEnded && pending == null;
    }

    boolean wantsWrite() {
      return pending != null;
    }

    boolean done() {
      return shutDown;
    }
  }
}
