package io.ccm4j.cloudprovider.net;

import java.net.Inet6Address;
import java.net.InetSocketAddress;

/** A bound socket's address as a URL a user can paste into curl. */
public final class SocketUrls {

  private SocketUrls() {}

  /**
   * {@code https://127.0.0.1:10258}, {@code https://[::1]:10258}: the address's literal, where
   * {@link InetSocketAddress#toString()} gives {@code /127.0.0.1:10258}.
   */
  public static String url(String scheme, InetSocketAddress address) {
    String host =
        address.getAddress() == null
            ? address.getHostString()
            : address.getAddress().getHostAddress();
    int zone = host.indexOf('%');
    if (zone >= 0 && address.getAddress() instanceof Inet6Address) {
      host = host.substring(0, zone);
    }
    if (host.contains(":")) {
      host = "[" + host + "]";
    }
    return scheme + "://" + host + ":" + address.getPort();
  }
}
