package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.net.Cidr;
import java.math.BigInteger;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The load balancer addresses of the {@code local} cloud: the host addresses of one loopback
 * network, handed out lowest first. Not thread-safe; {@link LocalLoadBalancers} serialises calls.
 */
final class AddressPool {

  private final Cidr network;
  private final long first;
  private final long last;
  private final Map<InetAddress, String> owners = new HashMap<>();

  AddressPool(Cidr network) {
    this.network = network;
    long size = network.size().longValueExact();
    // Skip the network and broadcast addresses, as a cloud's subnet would.
    this.first = size > 2 ? 1 : 0;
    this.last = size > 2 ? size - 2 : size - 1;
  }

  Cidr network() {
    return network;
  }

  boolean contains(InetAddress address) {
    if (!network.contains(address)) {
      return false;
    }
    long offset = offset(address);
    return offset >= first && offset <= last;
  }

  /** The owner of an address, if it is taken. */
  Optional<String> owner(InetAddress address) {
    return Optional.ofNullable(owners.get(address));
  }

  /** Takes the lowest free address for {@code owner}; empty when the pool is exhausted. */
  Optional<InetAddress> allocate(String owner) {
    for (long i = first; i <= last; i++) {
      InetAddress candidate = network.addressAt(i);
      if (!owners.containsKey(candidate)) {
        owners.put(candidate, owner);
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /** Takes a given address; false when it is outside the pool or someone else has it. */
  boolean reserve(InetAddress address, String owner) {
    if (!contains(address)) {
      return false;
    }
    String current = owners.putIfAbsent(address, owner);
    return current == null || current.equals(owner);
  }

  void release(InetAddress address) {
    owners.remove(address);
  }

  int inUse() {
    return owners.size();
  }

  private long offset(InetAddress address) {
    return new BigInteger(1, address.getAddress()).subtract(network.first()).longValue();
  }
}
