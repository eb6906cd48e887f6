package io.ccm4j.simulator.proxy;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * A minimal HTTP/1.1 server on one address and port: a virtual thread per connection, keep-alive
 * unless the client says {@code Connection: close}, GET/HEAD only in spirit (request bodies are
 * skipped). Enough for curl, wrk and load balancer health checks, and fast enough for a benchmark.
 */
final class TinyHttpServer implements PortServer {

  /** An answer: status code and text body. */
  record Response(int status, String body) {}

  private static final int MAX_LINE = 8192;

  private final ServerSocket server;
  private final Function<String, Response> handler;
  private final ProxyThreads threads;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  final LongAdder connections = new LongAdder();
  final LongAdder requests = new LongAdder();

  TinyHttpServer(
      InetAddress address, int port, Function<String, Response> handler, ProxyThreads threads)
      throws IOException {
    this.handler = handler;
    this.threads = threads;
    this.server = new ServerSocket();
    try {
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(address, port), 4096);
    } catch (IOException e) {
      server.close();
      throw e;
    }
    threads.start("kube-proxy-http-" + address.getHostAddress() + ":" + port, this::acceptLoop);
  }

  int port() {
    return server.getLocalPort();
  }

  private void acceptLoop() {
    while (!closed.get()) {
      try {
        Socket socket = server.accept();
        connections.increment();
        open.add(socket);
        threads.start("kube-proxy-conn", () -> serve(socket));
      } catch (IOException | RuntimeException e) {
        if (closed.get()) {
          return;
        }
      }
    }
  }

  private void serve(Socket socket) {
    try (socket) {
      socket.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(socket.getInputStream(), 2048);
      OutputStream out = socket.getOutputStream();
      while (!closed.get()) {
        String requestLine = readLine(in);
        if (requestLine == null) {
          return;
        }
        if (requestLine.isEmpty()) {
          continue;
        }
        boolean keepAlive = requestLine.endsWith("HTTP/1.1");
        long contentLength = 0;
        String header;
        while ((header = readLine(in)) != null && !header.isEmpty()) {
          String lower = header.toLowerCase(Locale.ROOT);
          if (lower.startsWith("connection:")) {
            String value = lower.substring("connection:".length()).trim();
            keepAlive = value.contains("keep-alive") || (keepAlive && !value.contains("close"));
          } else if (lower.startsWith("content-length:")) {
            contentLength = Long.parseLong(lower.substring("content-length:".length()).trim());
          }
        }
        if (header == null) {
          return;
        }
        in.skipNBytes(contentLength);
        String[] parts = requestLine.split(" ");
        String path = parts.length > 1 ? parts[1] : "/";
        requests.increment();
        Response response = handler.apply(path);
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
        byte[] all = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(body, 0, all, headBytes.length, body.length);
        out.write(all);
        out.flush();
        if (!keepAlive) {
          return;
        }
      }
    } catch (IOException | RuntimeException e) {
      // the client went away or spoke nonsense: drop the connection
    } finally {
      open.remove(socket);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != -1) {
      if (c == '\n') {
        int len = line.length();
        if (len > 0 && line.charAt(len - 1) == '\r') {
          line.setLength(len - 1);
        }
        return line.toString();
      }
      if (line.length() >= MAX_LINE) {
        throw new IOException("request line too long");
      }
      line.append((char) c);
    }
    return line.isEmpty() ? null : line.toString();
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 404 -> "Not Found";
      case 503 -> "Service Unavailable";
      default -> "Status";
    };
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      try {
        server.close();
      } catch (IOException ignored) {
        // closed
      }
      for (Socket socket : open) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // closed
        }
      }
    }
  }
}
