package io.ccm4j.controllers.nodeipam;

import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.controllers.network.NetworkSettings;
import java.math.BigInteger;
import java.util.Optional;

/**
 * The pod CIDRs of one cluster CIDR (upstream's {@code cidrset.CidrSet}): the cluster CIDR cut into
 * subnets of one prefix length, each free or held by an owner (a node name). Allocation goes round
 * from the subnet after the last one handed out, so a released subnet is not reused at once. Not
 * thread-safe: {@link RangeAllocator} serialises access.
 */
final class CidrSet {

  private final Cidr clusterCidr;
  private final int subnetPrefixLength;
  private final int subnetShift;
  private final String[] owners;
  private int allocated;
  private int nextCandidate;

  /**
   * @throws IllegalArgumentException when the subnet prefix does not fit the cluster CIDR ({@link
   *     NetworkSettings#maskSizeProblem})
   */
  CidrSet(Cidr clusterCidr, int subnetPrefixLength) {
    NetworkSettings.maskSizeProblem(clusterCidr, subnetPrefixLength)
        .ifPresent(
            problem -> {
              throw new IllegalArgumentException("node CIDR mask size " + problem);
            });
    int bits = clusterCidr.family().bits();
    this.clusterCidr = clusterCidr;
    this.subnetPrefixLength = subnetPrefixLength;
    this.subnetShift = bits - subnetPrefixLength;
    this.owners = new String[1 << (subnetPrefixLength - clusterCidr.prefixLength())];
  }

  Cidr clusterCidr() {
    return clusterCidr;
  }

  int capacity() {
    return owners.length;
  }

  int allocated() {
    return allocated;
  }

  /** The next free subnet, now held by {@code owner}; empty when every subnet is taken. */
  Optional<Cidr> allocateNext(String owner) {
    for (int i = 0; i < owners.length; i++) {
      int candidate = (nextCandidate + i) % owners.length;
      if (owners[candidate] == null) {
        owners[candidate] = owner;
        allocated++;
        nextCandidate = (candidate + 1) % owners.length;
        return Optional.of(subnet(candidate));
      }
    }
    return Optional.empty();
  }

  /**
   * Marks every subnet {@code cidr} overlaps as held by {@code owner}, unless one of them is held
   * by someone else: then nothing changes and that other owner is returned.
   *
   * @throws IllegalArgumentException when {@code cidr} does not overlap the cluster CIDR
   */
  Optional<String> occupy(Cidr cidr, String owner) {
    int[] range = indices(cidr);
    for (int i = range[0]; i <= range[1]; i++) {
      if (owners[i] != null && !owners[i].equals(owner)) {
        return Optional.of(owners[i]);
      }
    }
    for (int i = range[0]; i <= range[1]; i++) {
      if (owners[i] == null) {
        owners[i] = owner;
        allocated++;
      }
    }
    return Optional.empty();
  }

  /** Frees the subnets {@code cidr} overlaps that {@code owner} holds. */
  void release(Cidr cidr, String owner) {
    int[] range = indices(cidr);
    for (int i = range[0]; i <= range[1]; i++) {
      if (owner.equals(owners[i])) {
        owners[i] = null;
        allocated--;
      }
    }
  }

  /** The holder of the subnet containing the first address of {@code cidr}. */
  Optional<String> ownerOf(Cidr cidr) {
    return Optional.ofNullable(owners[indices(cidr)[0]]);
  }

  /**
   * The first and last subnet index {@code cidr} overlaps (upstream's getBeginningAndEndIndices).
   */
  private int[] indices(Cidr cidr) {
    if (!clusterCidr.overlaps(cidr)) {
      throw new IllegalArgumentException(
          "%s is outside the cluster CIDR %s".formatted(cidr, clusterCidr));
    }
    BigInteger first = cidr.first().max(clusterCidr.first());
    BigInteger last = cidr.last().min(clusterCidr.last());
    return new int[] {index(first), index(last)};
  }

  private int index(BigInteger address) {
    return address.subtract(clusterCidr.first()).shiftRight(subnetShift).intValueExact();
  }

  private Cidr subnet(int index) {
    return new Cidr(
        clusterCidr.family(),
        clusterCidr.first().add(BigInteger.valueOf(index).shiftLeft(subnetShift)),
        subnetPrefixLength);
  }
}
