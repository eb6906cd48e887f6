package io.ccm4j.provider.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Clients for the tests: HTTP over TCP (one request per connection, or kept alive) and UDP. */
final class Traffic {

  private Traffic() {}

  /** GET / on a new connection from {@code source} (or any), returns the body. */
  static String get(String address, int port, String source) throws IOException {
    try (KeptAlive connection = KeptAlive.open(address, port, source)) {
      return connection.get(false);
    }
  }

  static String get(String address, int port) throws IOException {
    return get(address, port, null);
  }

  /** Sends one datagram from {@code source} (or any) and returns the answer. */
  static String udp(String address, int port, String payload, String source, int timeoutMs)
      throws IOException {
    try (DatagramSocket socket =
        source == null
            ? new DatagramSocket()
            : new DatagramSocket(new InetSocketAddress(source, 0))) {
      socket.setSoTimeout(timeoutMs);
      byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
      socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.getByName(address), port));
      DatagramPacket reply = new DatagramPacket(new byte[2048], 2048);
      socket.receive(reply);
      return new String(reply.getData(), 0, reply.getLength(), StandardCharsets.UTF_8);
    }
  }

  /** The node named in an answer {@code node=<node> service=...}. */
  static String node(String answer) {
    for (String part : answer.trim().split(" ")) {
      if (part.startsWith("node=")) {
        return part.substring(5);
      }
    }
    throw new IllegalArgumentException("no node in answer: " + answer);
  }

  /** An HTTP/1.1 connection that can carry several requests. */
  static final class KeptAlive implements AutoCloseable {
    final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private KeptAlive(Socket socket) throws IOException {
      this.socket = socket;
      this.in = socket.getInputStream();
      this.out = socket.getOutputStream();
    }

    static KeptAlive open(String address, int port, String source) throws IOException {
      Socket socket = new Socket();
      try {
        if (source != null) {
          socket.bind(new InetSocketAddress(source, 0));
        }
        socket.connect(new InetSocketAddress(address, port), 2000);
        socket.setSoTimeout(5000);
        return new KeptAlive(socket);
      } catch (IOException e) {
        socket.close();
        throw e;
      }
    }

    /** One GET /; returns the body, or throws when the connection was closed or reset. */
    String get(boolean keepAlive) throws IOException {
      out.write(
          ("GET / HTTP/1.1\r\nHost: lb\r\n" + (keepAlive ? "" : "Connection: close\r\n") + "\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      int length = -1;
      String line;
      String status = readLine();
      if (status == null) {
        throw new IOException("connection closed before an answer");
      }
      while ((line = readLine()) != null && !line.isEmpty()) {
        if (line.toLowerCase().startsWith("content-length:")) {
          length = Integer.parseInt(line.substring(15).trim());
        }
      }
      if (length < 0) {
        throw new IOException("no Content-Length in answer: " + status);
      }
      byte[] body = in.readNBytes(length);
      return new String(body, StandardCharsets.UTF_8);
    }

    private String readLine() throws IOException {
      StringBuilder line = new StringBuilder();
      int c;
      while ((c = in.read()) != -1) {
        if (c == '\n') {
          return line.toString().replace("\r", "");
        }
        line.append((char) c);
      }
      return line.isEmpty() ? null : line.toString();
    }

    /** Whether the other side closed: a read returns end of stream or fails. */
    boolean closedByPeer() {
      try {
        socket.setSoTimeout(200);
        return in.read() == -1;
      } catch (java.net.SocketTimeoutException e) {
        return false;
      } catch (IOException e) {
        return true;
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
