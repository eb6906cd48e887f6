package io.ccm4j.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** HTTP requests answered by a simulated kube-proxy ({@code node=<node> service=<ns>/<name>}). */
public final class KubeProxyRequests {

  private static final Pattern ANSWERED_BY = Pattern.compile("node=(\\S+) service=(\\S+)");

  private KubeProxyRequests() {}

  /** One HTTP request on a new connection: the answering node and Service, or none. */
  public static Map<String, String> request(String address, int port) {
    return request(address, null, port);
  }

  /** As {@link #request(String, int)}, from {@code source} (a loopback address) when not null. */
  public static Map<String, String> request(String address, String source, int port) {
    try (Socket socket = new Socket()) {
      if (source != null) {
        socket.bind(new InetSocketAddress(source, 0));
      }
      socket.connect(new InetSocketAddress(address, port), 2000);
      socket.setSoTimeout(2000);
      OutputStream out = socket.getOutputStream();
      out.write(
          "GET / HTTP/1.1\r\nHost: lb\r\nConnection: close\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      Matcher matcher = ANSWERED_BY.matcher(response);
      return matcher.find() ? Map.of(matcher.group(1), matcher.group(2)) : Map.of();
    } catch (IOException e) {
      return Map.of();
    }
  }
}
