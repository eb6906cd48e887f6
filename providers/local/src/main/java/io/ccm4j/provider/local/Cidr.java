package io.ccm4j.provider.local;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/** An IPv4 or IPv6 network in CIDR notation, such as {@code 127.0.100.0/24} or {@code ::1/128}. */
record Cidr(byte[] network, int prefixLength) {

  /**
   * Parses {@code a.b.c.d/n} or {@code x:y::z/n}. Host bits may be set (as Kubernetes accepts for
   * source ranges); they are ignored.
   *
   * @throws IllegalArgumentException with a message saying what is wrong
   */
  static Cidr parse(String text) {
    String value = text == null ? "" : text.trim();
    int slash = value.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException(
          "\"" + value + "\" is not a CIDR (expected address/prefix)");
    }
    byte[] address = parseAddress(value.substring(0, slash));
    if (address == null) {
      throw new IllegalArgumentException("\"" + value + "\" does not start with an IP address");
    }
    int prefix;
    try {
      prefix = Integer.parseInt(value.substring(slash + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("\"" + value + "\" has no numeric prefix length");
    }
    if (prefix < 0 || prefix > address.length * 8) {
      throw new IllegalArgumentException(
          "\"%s\": prefix length must be between 0 and %d".formatted(value, address.length * 8));
    }
    return new Cidr(mask(address, prefix), prefix);
  }

  /** A numeric IPv4 or IPv6 address (never a host name lookup), or null. */
  static byte[] parseAddress(String text) {
    if (text == null
        || text.isEmpty()
        || !(text.contains(":")
            ? text.matches("[0-9a-fA-F:.]+")
            : text.matches("\\d{1,3}(\\.\\d{1,3}){3}"))) {
      return null;
    }
    try {
      return InetAddress.getByName(text).getAddress();
    } catch (UnknownHostException e) {
      return null;
    }
  }

  boolean contains(InetAddress address) {
    byte[] bytes = address.getAddress();
    if (bytes.length != network.length) {
      // An IPv4-mapped IPv6 client address compares as IPv4.
      if (bytes.length == 16 && network.length == 4 && isV4Mapped(bytes)) {
        bytes = Arrays.copyOfRange(bytes, 12, 16);
      } else {
        return false;
      }
    }
    return Arrays.equals(mask(bytes, prefixLength), network);
  }

  boolean isIpv4() {
    return network.length == 4;
  }

  /** The number of addresses in the network. */
  BigInteger size() {
    return BigInteger.ONE.shiftLeft(network.length * 8 - prefixLength);
  }

  /** The address at {@code offset} from the network address. */
  InetAddress addressAt(long offset) {
    BigInteger value = new BigInteger(1, network).add(BigInteger.valueOf(offset));
    byte[] raw = value.toByteArray();
    byte[] bytes = new byte[network.length];
    int copy = Math.min(raw.length, bytes.length);
    System.arraycopy(raw, raw.length - copy, bytes, bytes.length - copy, copy);
    try {
      return InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean isV4Mapped(byte[] bytes) {
    for (int i = 0; i < 10; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff;
  }

  private static byte[] mask(byte[] address, int prefix) {
    byte[] masked = address.clone();
    for (int i = 0; i < masked.length; i++) {
      int bits = Math.max(0, Math.min(8, prefix - i * 8));
      masked[i] &= (byte) (bits == 0 ? 0 : 0xff << (8 - bits));
    }
    return masked;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Cidr that
        && prefixLength == that.prefixLength
        && Arrays.equals(network, that.network);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(network) * 31 + prefixLength;
  }

  @Override
  public String toString() {
    try {
      return InetAddress.getByAddress(network).getHostAddress() + "/" + prefixLength;
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }
}
