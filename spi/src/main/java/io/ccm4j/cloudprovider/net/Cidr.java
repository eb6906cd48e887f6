package io.ccm4j.cloudprovider.net;

import java.math.BigInteger;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;

/**
 * An IP network such as {@code 10.244.0.0/16} or {@code fd00:10::/56}: the address with the host
 * bits cleared (as Go's {@code net.ParseCIDR} returns it) and the prefix length. The one reading of
 * a CIDR in ccm4j: flags, cloud configs, source ranges, routes and pod CIDRs. The address is read
 * by {@link IpAddresses} (so {@code 010.0.0.0/8} is refused, as by Go since 1.17), parsing never
 * looks a name up in DNS, and {@link #toString()} prints the form Go prints (IPv6 compressed).
 */
public record Cidr(Family family, BigInteger network, int prefixLength)
    implements Comparable<Cidr> {

  /** IPv4 or IPv6, with the address width. */
  public enum Family {
    IPv4(32),
    IPv6(128);

    private final int bits;

    Family(int bits) {
      this.bits = bits;
    }

    public int bits() {
      return bits;
    }
  }

  public Cidr {
    if (prefixLength < 0 || prefixLength > family.bits()) {
      throw new IllegalArgumentException(
          "prefix length %d out of range for %s".formatted(prefixLength, family));
    }
    network = network.and(mask(family, prefixLength));
  }

  /**
   * Parses {@code address/prefix}; host bits are cleared (Kubernetes accepts them set, for source
   * ranges).
   *
   * @throws IllegalArgumentException saying what is wrong with {@code text}
   */
  public static Cidr parse(String text) {
    return parse(text, false);
  }

  /**
   * Like {@link #parse}, but an IPv4-mapped IPv6 network ({@code ::ffff:10.244.1.0/120}) is the
   * IPv6 network it spells, as Go's {@code net.ParseCIDR} reads it, instead of refused. For
   * networks ccm4j reads but did not choose, such as a cloud's route destinations: its {@link
   * #firstAddress()} and {@link #lastAddress()} are then IPv4 addresses, which an IPv4 network
   * {@linkplain #contains(InetAddress) contains}, as Go's {@code IPNet.Contains} does.
   *
   * @throws IllegalArgumentException saying what is wrong with {@code text}
   */
  public static Cidr parseKeepingIpv4Mapped(String text) {
    return parse(text, true);
  }

  private static Cidr parse(String text, boolean keepIpv4Mapped) {
    String value = text == null ? "" : text.trim();
    int slash = value.indexOf('/');
    if (slash < 0) {
      throw invalid(value, "no /prefix");
    }
    InetAddress address;
    try {
      address = IpAddresses.parse(value.substring(0, slash));
    } catch (IllegalArgumentException e) {
      throw invalid(value, e.getMessage());
    }
    boolean ipv4Mapped = address instanceof Inet4Address && value.substring(0, slash).contains(":");
    if (ipv4Mapped && !keepIpv4Mapped) {
      // Java turns ::ffff:a.b.c.d into an IPv4 address; such CIDRs are ambiguous.
      throw invalid(value, "IPv4-mapped IPv6 is not supported");
    }
    Family family = address instanceof Inet6Address || ipv4Mapped ? Family.IPv6 : Family.IPv4;
    String prefix = value.substring(slash + 1);
    if (!prefix.matches("\\d{1,3}") || Integer.parseInt(prefix) > family.bits()) {
      throw invalid(value, "prefix length must be between 0 and " + family.bits());
    }
    BigInteger network =
        ipv4Mapped ? IPV4_MAPPED_PREFIX.or(toInteger(address)) : toInteger(address);
    return new Cidr(family, network, Integer.parseInt(prefix));
  }

  /** {@code ::ffff:0:0}, the network of the IPv4-mapped IPv6 addresses. */
  private static final BigInteger IPV4_MAPPED_PREFIX = BigInteger.valueOf(0xffff).shiftLeft(32);

  /** The network {@code text} spells, or empty when it is none. */
  public static Optional<Cidr> tryParse(String text) {
    try {
      return Optional.of(parse(text));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Go's error text ({@code invalid CIDR address: ...}), with the reason. */
  private static IllegalArgumentException invalid(String value, String reason) {
    return new IllegalArgumentException(
        "invalid CIDR address: \"%s\" (%s)".formatted(value, reason));
  }

  /** The address as an unsigned integer. */
  private static BigInteger toInteger(InetAddress address) {
    return new BigInteger(1, address.getAddress());
  }

  private static BigInteger mask(Family family, int prefixLength) {
    BigInteger all = BigInteger.ONE.shiftLeft(family.bits()).subtract(BigInteger.ONE);
    BigInteger host =
        BigInteger.ONE.shiftLeft(family.bits() - prefixLength).subtract(BigInteger.ONE);
    return all.xor(host);
  }

  /** The first address of the network. */
  public BigInteger first() {
    return network;
  }

  /** The last address of the network. */
  public BigInteger last() {
    return network
        .add(BigInteger.ONE.shiftLeft(family.bits() - prefixLength))
        .subtract(BigInteger.ONE);
  }

  /** The number of addresses in the network. */
  public BigInteger size() {
    return BigInteger.ONE.shiftLeft(family.bits() - prefixLength);
  }

  /** The address {@code offset} after the network address. */
  public InetAddress addressAt(long offset) {
    return address(network.add(BigInteger.valueOf(offset)));
  }

  /** The network address; an IPv4-mapped one is its IPv4 address, as Java reads it. */
  public InetAddress firstAddress() {
    return address(first());
  }

  /** The last address of the network; an IPv4-mapped one is its IPv4 address. */
  public InetAddress lastAddress() {
    return address(last());
  }

  private InetAddress address(BigInteger value) {
    byte[] raw = value.toByteArray();
    byte[] bytes = new byte[family.bits() / 8];
    int copy = Math.min(raw.length, bytes.length);
    System.arraycopy(raw, raw.length - copy, bytes, bytes.length - copy, copy);
    try {
      return InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Whether the address lies in this network; an IPv4-mapped IPv6 address (a client of a dual-stack
   * socket) counts as its IPv4 address.
   */
  public boolean contains(InetAddress address) {
    byte[] bytes = address.getAddress();
    if (bytes.length == 16 && family == Family.IPv4 && isV4Mapped(bytes)) {
      bytes = Arrays.copyOfRange(bytes, 12, 16);
    }
    return bytes.length * 8 == family.bits() && contains(new BigInteger(1, bytes));
  }

  private static boolean isV4Mapped(byte[] bytes) {
    for (int i = 0; i < 10; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return bytes[10] == (byte) 0xff && bytes[11] == (byte) 0xff;
  }

  public boolean contains(BigInteger address) {
    return address.compareTo(first()) >= 0 && address.compareTo(last()) <= 0;
  }

  /** Whether {@code other} lies entirely inside this network. */
  public boolean contains(Cidr other) {
    return other.family == family && contains(other.first()) && contains(other.last());
  }

  /** Whether the two networks share at least one address. */
  public boolean overlaps(Cidr other) {
    return other.family == family
        && other.first().compareTo(last()) <= 0
        && first().compareTo(other.last()) <= 0;
  }

  @Override
  public String toString() {
    return format(family, network) + "/" + prefixLength;
  }

  /** An address as Go prints it: dotted quad, or RFC 5952 compressed lower-case IPv6. */
  public static String format(Family family, BigInteger address) {
    if (family == Family.IPv4) {
      long value = address.longValue();
      return ((value >> 24) & 0xff)
          + "."
          + ((value >> 16) & 0xff)
          + "."
          + ((value >> 8) & 0xff)
          + "."
          + (value & 0xff);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = address.shiftRight(16 * (7 - i)).intValue() & 0xffff;
    }
    int bestStart = -1;
    int bestLength = 1; // a single zero group is not compressed
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        out.append("::");
        i += bestLength - 1;
        continue;
      }
      if (out.length() > 0 && out.charAt(out.length() - 1) != ':') {
        out.append(':');
      }
      out.append(Integer.toHexString(groups[i]));
    }
    return out.toString();
  }

  @Override
  public int compareTo(Cidr other) {
    int byFamily = family.compareTo(other.family);
    if (byFamily != 0) {
      return byFamily;
    }
    int byNetwork = network.compareTo(other.network);
    return byNetwork != 0 ? byNetwork : Integer.compare(prefixLength, other.prefixLength);
  }
}
