package io.ccm4j.provider.sim;

import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.cloudprovider.net.IpAddresses;
import java.math.BigInteger;
import java.net.Inet4Address;
import java.util.BitSet;
import java.util.Optional;

/**
 * The IPv4 addresses the sim hands to load balancers: a CIDR without its network and broadcast
 * addresses (for prefixes up to /30), taken lowest first.
 */
final class IpPool {

  private final String cidr;
  private final long base;
  private final int size;
  private final BitSet used = new BitSet();

  private IpPool(String cidr, long base, int size) {
    this.cidr = cidr;
    this.base = base;
    this.size = size;
  }

  /**
   * @throws IllegalArgumentException when {@code cidr} is not an IPv4 CIDR of /8 to /30
   */
  static IpPool parse(String cidr) {
    Cidr parsed =
        Cidr.tryParse(cidr)
            .filter(network -> network.family() == Cidr.Family.IPv4)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "\"" + cidr + "\" is not an IPv4 CIDR such as 127.0.200.0/24"));
    if (parsed.prefixLength() < 8 || parsed.prefixLength() > 30) {
      throw new IllegalArgumentException("prefix of \"" + cidr + "\" must be between /8 and /30");
    }
    int hosts = parsed.size().intValue() - 2;
    return new IpPool(cidr, parsed.first().longValue() + 1, hosts);
  }

  String cidr() {
    return cidr;
  }

  int size() {
    return size;
  }

  synchronized Optional<String> next() {
    int free = used.nextClearBit(0);
    if (free >= size) {
      return Optional.empty();
    }
    used.set(free);
    return Optional.of(toString(base + free));
  }

  boolean contains(String ip) {
    long value = toLong(ip);
    return value >= base && value < base + size;
  }

  /** Takes {@code ip} if it is in the pool and free. */
  synchronized boolean claim(String ip) {
    if (!contains(ip) || used.get((int) (toLong(ip) - base))) {
      return false;
    }
    used.set((int) (toLong(ip) - base));
    return true;
  }

  synchronized void release(String ip) {
    if (contains(ip)) {
      used.clear((int) (toLong(ip) - base));
    }
  }

  /** -1 when {@code ip} is not an IPv4 address. */
  private static long toLong(String ip) {
    return IpAddresses.tryParse(ip)
        .filter(address -> address instanceof Inet4Address)
        .map(address -> new BigInteger(1, address.getAddress()).longValue())
        .orElse(-1L);
  }

  private static String toString(long value) {
    return Cidr.format(Cidr.Family.IPv4, BigInteger.valueOf(value));
  }
}
