package io.ccm4j.simulator.proxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * A minimal HTTP/1.1 server on one address and port: one selector thread, non-blocking, keep-alive
 * unless the client says {@code Connection: close}, request bodies skipped. Enough for curl, wrk
 * and load balancer health checks, and cheap per connection, so a benchmark measures the load
 * balancer rather than its backends.
 */
final class TinyHttpServer implements PortServer {

  /** An answer: status code and text body. */
  record Response(int status, String body) {}

  private static final int MAX_REQUEST = 16 * 1024;

  private final ServerSocketChannel server;
  private final Selector selector;
  private final Function<String, Response> handler;
  private final Thread thread;
  private volatile boolean running = true;
  private final java.util.List<SocketChannel> toClose = new java.util.ArrayList<>();
  final LongAdder connections = new LongAdder();
  final LongAdder requests = new LongAdder();

  TinyHttpServer(
      InetAddress address, int port, Function<String, Response> handler, ProxyThreads threads)
      throws IOException {
    this.handler = handler;
    // Of the address's family: a dual-stack socket hands IPv4 clients over as mapped IPv6
    // addresses.
    this.server =
        ServerSocketChannel.open(
            address instanceof java.net.Inet4Address
                ? java.net.StandardProtocolFamily.INET
                : java.net.StandardProtocolFamily.INET6);
    try {
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(new InetSocketAddress(address, port), 4096);
      server.configureBlocking(false);
      this.selector = Selector.open();
      server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException e) {
      server.close();
      throw e;
    }
    this.thread =
        threads.startPlatform(
            "kube-proxy-http-" + address.getHostAddress() + ":" + server.socket().getLocalPort(),
            this::loop);
  }

  int port() {
    return server.socket().getLocalPort();
  }

  private void loop() {
    try {
      while (running) {
        if (toClose.isEmpty()) {
          selector.select(500);
        } else {
          selector.selectNow(); // under load something is always ready: no extra system call
        }
        closePending();
        for (var it = selector.selectedKeys().iterator(); it.hasNext(); ) {
          SelectionKey key = it.next();
          it.remove();
          try {
            if (key.isAcceptable()) {
              acceptAll();
            } else if (key.isValid()) {
              ((Exchange) key.attachment()).ready(key);
            }
          } catch (IOException | RuntimeException e) {
            release(key, (SocketChannel) key.channel());
          }
        }
      }
    } catch (IOException e) {
      // the selector broke: stop serving
    } finally {
      closePending();
      for (SelectionKey key : selector.keys()) {
        try {
          key.channel().close();
        } catch (IOException ignored) {
          // closing
        }
      }
      try {
        selector.close();
      } catch (IOException ignored) {
        // closing
      }
    }
  }

  /**
   * Closes a connection; a registered one after the next select has dropped its key (closing a
   * registered channel costs the JDK a getsockopt and a shutdown more).
   */
  private void release(SelectionKey key, SocketChannel channel) {
    if (key != null) {
      key.cancel();
      toClose.add(channel);
    } else {
      closeQuietly(channel);
    }
  }

  private void closePending() {
    for (SocketChannel channel : toClose) {
      closeQuietly(channel);
    }
    toClose.clear();
  }

  private void acceptAll() throws IOException {
    SocketChannel channel;
    while ((channel = server.accept()) != null) {
      connections.increment();
      try {
        channel.configureBlocking(false);
        // The request is often there already: a connection answered at once and closed is never
        // registered with the selector (no epoll_ctl, no wakeup).
        Exchange exchange = new Exchange(channel);
        exchange.ready(null, true, false);
      } catch (IOException | RuntimeException e) {
        closeQuietly(channel);
      }
    }
  }

  /** The state of one connection: the request bytes so far, or the answer being written. */
  private final class Exchange {
    private final SocketChannel channel;
    private SelectionKey key;
    private ByteBuffer in = ByteBuffer.allocate(1024);
    private ByteBuffer out;
    private boolean closeAfterWrite;
    private int answered;

    Exchange(SocketChannel channel) {
      this.channel = channel;
    }

    void ready(SelectionKey key) throws IOException {
      ready(key, key.isReadable(), key.isWritable());
    }

    /** Works on the connection; registers it (or changes its interest) if it must wait. */
    private void ready(SelectionKey key, boolean readable, boolean writable) throws IOException {
      if (writable && out != null) {
        write();
        return;
      }
      if (!readable) {
        return;
      }
      if (!in.hasRemaining()) {
        if (in.capacity() >= MAX_REQUEST) {
          throw new IOException("request too large");
        }
        ByteBuffer bigger = ByteBuffer.allocate(in.capacity() * 4);
        in.flip();
        bigger.put(in);
        in = bigger;
      }
      int n = channel.read(in);
      if (n < 0) {
        release(this.key, channel);
        return;
      }
      answerIfComplete();
    }

    private void await(int ops) throws IOException {
      if (key == null) {
        key = channel.register(selector, ops, this);
      } else if (key.interestOps() != ops) {
        key.interestOps(ops);
      }
    }

    private void answerIfComplete() throws IOException {
      int end = headerEnd();
      if (end < 0) {
        await(SelectionKey.OP_READ);
        return;
      }
      String head = new String(in.array(), 0, end, StandardCharsets.ISO_8859_1);
      // Drop the request (bodies are skipped: the simulated services ignore them).
      in.flip();
      in.position(Math.min(in.limit(), end + 4 + contentLength(head)));
      in.compact();
      String requestLine = head.substring(0, Math.max(0, head.indexOf('\r')));
      boolean keepAlive = requestLine.endsWith("HTTP/1.1");
      String connection = header(head, "connection:");
      if (connection != null) {
        String value = connection.toLowerCase(Locale.ROOT);
        keepAlive = value.contains("keep-alive") || (keepAlive && !value.contains("close"));
      }
      String[] parts = requestLine.split(" ");
      requests.increment();
      Response response = handler.apply(parts.length > 1 ? parts[1] : "/");
      out = encode(response, keepAlive);
      closeAfterWrite = !keepAlive;
      if (++answered == 2) {
        // A single answer per connection leaves nothing unacknowledged for Nagle to wait on;
        // from the second one on (keep-alive, pipelining) it could.
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      }
      write();
    }

    private void write() throws IOException {
      channel.write(out);
      if (out.hasRemaining()) {
        await(SelectionKey.OP_WRITE);
        return;
      }
      out = null;
      if (closeAfterWrite) {
        release(key, channel);
        return;
      }
      if (in.position() > 0) {
        answerIfComplete(); // a pipelined request
      } else {
        await(SelectionKey.OP_READ);
      }
    }

    private int headerEnd() {
      byte[] a = in.array();
      for (int i = 3; i < in.position(); i++) {
        if (a[i] == '\n' && a[i - 1] == '\r' && a[i - 2] == '\n' && a[i - 3] == '\r') {
          return i - 3;
        }
      }
      return -1;
    }
  }

  private static int contentLength(String head) {
    String value = header(head, "content-length:");
    if (value == null) {
      return 0;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The trimmed value of a header ({@code name} in lower case with its colon), or null. */
  private static String header(String head, String name) {
    int start = head.indexOf("\r\n") + 2;
    while (start > 1 && start < head.length()) {
      int end = head.indexOf("\r\n", start);
      if (end < 0) {
        end = head.length();
      }
      if (head.regionMatches(true, start, name, 0, name.length())) {
        return head.substring(start + name.length(), end).trim();
      }
      start = end + 2;
    }
    return null;
  }

  private static ByteBuffer encode(Response response, boolean keepAlive) {
    byte[] body = response.body().getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 "
            + response.status()
            + " "
            + reason(response.status())
            + "\r\nContent-Type: "
            + (response.body().startsWith("{") ? "application/json" : "text/plain")
            + "\r\nContent-Length: "
            + body.length
            + (keepAlive ? "" : "\r\nConnection: close")
            + "\r\n\r\n";
    byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
    ByteBuffer buffer = ByteBuffer.allocate(headBytes.length + body.length);
    buffer.put(headBytes).put(body).flip();
    return buffer;
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 404 -> "Not Found";
      case 503 -> "Service Unavailable";
      default -> "Status";
    };
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // closed
    }
  }

  /** Stops serving; returns once the port refuses connections. */
  @Override
  public void close() {
    if (!running) {
      return;
    }
    running = false;
    selector.wakeup();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      server.close();
    } catch (IOException ignored) {
      // closed
    }
  }
}
