package io.ccm4j.provider.sim;

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
    String[] parts = cidr.split("/", -1);
    if (parts.length != 2
        || !parts[0].matches("\\d{1,3}(\\.\\d{1,3}){3}")
        || !parts[1].matches("\\d{1,2}")) {
      throw new IllegalArgumentException(
          "\"" + cidr + "\" is not an IPv4 CIDR such as 127.0.200.0/24");
    }
    int prefix = Integer.parseInt(parts[1]);
    if (prefix < 8 || prefix > 30) {
      throw new IllegalArgumentException("prefix of \"" + cidr + "\" must be between /8 and /30");
    }
    long address = toLong(parts[0]);
    if (address < 0) {
      throw new IllegalArgumentException(
          "\"" + cidr + "\" is not an IPv4 CIDR such as 127.0.200.0/24");
    }
    long mask = (0xffffffffL << (32 - prefix)) & 0xffffffffL;
    long network = address & mask;
    int hosts = (int) ((1L << (32 - prefix)) - 2);
    return new IpPool(cidr, network + 1, hosts);
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

  /** -1 when {@code ip} is not a dotted IPv4 address (parsed here: no name lookups). */
  private static long toLong(String ip) {
    if (ip == null || !ip.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
      return -1;
    }
    long value = 0;
    for (String octet : ip.split("\\.")) {
      int part = Integer.parseInt(octet);
      if (part > 255) {
        return -1;
      }
      value = (value << 8) | part;
    }
    return value;
  }

  private static String toString(long value) {
    return ((value >> 24) & 0xff)
        + "."
        + ((value >> 16) & 0xff)
        + "."
        + ((value >> 8) & 0xff)
        + "."
        + (value & 0xff);
  }
}
