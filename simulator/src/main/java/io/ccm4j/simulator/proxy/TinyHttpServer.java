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
  final LongAdder connections = new LongAdder();
  final LongAdder requests = new LongAdder();

  TinyHttpServer(
      InetAddress address, int port, Function<String, Response> handler, ProxyThreads threads)
      throws IOException {
    this.handler = handler;
    this.server = ServerSocketChannel.open();
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
        selector.select(500);
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
            key.cancel();
            closeQuietly((SocketChannel) key.channel());
          }
        }
      }
    } catch (IOException e) {
      // the selector broke: stop serving
    } finally {
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

  private void acceptAll() throws IOException {
    SocketChannel channel;
    while ((channel = server.accept()) != null) {
      connections.increment();
      channel.configureBlocking(false);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      channel.register(selector, SelectionKey.OP_READ, new Exchange());
    }
  }

  /** The state of one connection: the request bytes so far, or the answer being written. */
  private final class Exchange {
    private ByteBuffer in = ByteBuffer.allocate(1024);
    private ByteBuffer out;
    private boolean closeAfterWrite;

    void ready(SelectionKey key) throws IOException {
      SocketChannel channel = (SocketChannel) key.channel();
      if (key.isWritable() && out != null) {
        write(key, channel);
        return;
      }
      if (!key.isReadable()) {
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
        key.cancel();
        channel.close();
        return;
      }
      answerIfComplete(key, channel);
    }

    private void answerIfComplete(SelectionKey key, SocketChannel channel) throws IOException {
      int end = headerEnd();
      if (end < 0) {
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
      write(key, channel);
    }

    private void write(SelectionKey key, SocketChannel channel) throws IOException {
      channel.write(out);
      if (out.hasRemaining()) {
        key.interestOps(SelectionKey.OP_WRITE);
        return;
      }
      out = null;
      if (closeAfterWrite) {
        key.cancel();
        channel.close();
        return;
      }
      key.interestOps(SelectionKey.OP_READ);
      if (in.position() > 0) {
        answerIfComplete(key, channel); // a pipelined request
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
