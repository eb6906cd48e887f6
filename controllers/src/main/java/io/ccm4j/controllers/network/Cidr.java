package io.ccm4j.controllers.network;

import java.math.BigInteger;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * An IP network such as {@code 10.244.0.0/16} or {@code fd00:10::/56}: the address with the host
 * bits cleared (as Go's {@code net.ParseCIDR} returns it) and the prefix length. Parsing never
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

  private static final Pattern IPV4 =
      Pattern.compile(
          "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
  private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]+");

  public Cidr {
    if (prefixLength < 0 || prefixLength > family.bits()) {
      throw new IllegalArgumentException(
          "prefix length %d out of range for %s".formatted(prefixLength, family));
    }
    network = network.and(mask(family, prefixLength));
  }

  /**
   * Parses {@code address/prefix}; host bits are cleared.
   *
   * @throws IllegalArgumentException saying what is wrong with {@code text}
   */
  public static Cidr parse(String text) {
    String value = text == null ? "" : text.trim();
    int slash = value.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("invalid CIDR address: \"" + value + "\"");
    }
    BigInteger address;
    Family family;
    String ip = value.substring(0, slash);
    if (IPV4.matcher(ip).matches()) {
      family = Family.IPv4;
      address = toInteger(literal(ip, value));
    } else if (ip.contains(":") && IPV6_CHARS.matcher(ip).matches()) {
      InetAddress parsed = literal(ip, value);
      if (!(parsed instanceof Inet6Address)) {
        // Java turns ::ffff:a.b.c.d into an IPv4 address; such CIDRs are ambiguous.
        throw new IllegalArgumentException(
            "invalid CIDR address: \"" + value + "\" (IPv4-mapped IPv6 is not supported)");
      }
      family = Family.IPv6;
      address = toInteger(parsed);
    } else {
      throw new IllegalArgumentException("invalid CIDR address: \"" + value + "\"");
    }
    String prefix = value.substring(slash + 1);
    if (!prefix.matches("\\d{1,3}")) {
      throw new IllegalArgumentException("invalid CIDR address: \"" + value + "\"");
    }
    int length = Integer.parseInt(prefix);
    if (length > family.bits()) {
      throw new IllegalArgumentException("invalid CIDR address: \"" + value + "\"");
    }
    return new Cidr(family, address, length);
  }

  private static InetAddress literal(String ip, String whole) {
    try {
      // Only ever called with a validated literal, so no lookup happens.
      return InetAddress.getByName(ip);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("invalid CIDR address: \"" + whole + "\"");
    }
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
