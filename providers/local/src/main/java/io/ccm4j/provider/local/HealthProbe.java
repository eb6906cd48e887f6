package io.ccm4j.provider.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** One HTTP health check: GET a path, healthy only on status 200 (as cloud load balancers do). */
final class HealthProbe {

  private HealthProbe() {}

  static boolean check(InetAddress address, int port, String path, Duration timeout) {
    int millis = (int) Math.max(1, timeout.toMillis());
    try (Socket socket = new Socket()) {
      long deadline = System.nanoTime() + timeout.toNanos();
      socket.connect(new InetSocketAddress(address, port), millis);
      socket.setSoTimeout(millis);
      OutputStream out = socket.getOutputStream();
      String host = address.getHostAddress();
      out.write(
          ("GET "
                  + path
                  + " HTTP/1.1\r\nHost: "
                  + host
                  + ":"
                  + port
                  + "\r\nUser-Agent: ccm4j-local-lb\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder statusLine = new StringBuilder();
      int c;
      while ((c = in.read()) != -1 && c != '\n' && statusLine.length() < 200) {
        statusLine.append((char) c);
        if (System.nanoTime() > deadline) {
          return false;
        }
      }
      // "HTTP/1.1 200 OK"
      String[] parts = statusLine.toString().trim().split(" ");
      return parts.length >= 2 && parts[0].startsWith("HTTP/") && parts[1].equals("200");
    } catch (IOException | RuntimeException e) {
      // A probe thread must not die: an unanswerable probe is a failed one.
      return false;
    }
  }
}
