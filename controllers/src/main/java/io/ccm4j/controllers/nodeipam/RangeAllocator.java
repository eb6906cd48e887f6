package io.ccm4j.controllers.nodeipam;

import io.ccm4j.cloudprovider.net.Cidr;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToIntFunction;
import java.util.stream.Collectors;

/**
 * Which node holds which pod CIDRs: one {@link CidrSet} per cluster CIDR (one per family when
 * dual-stack), and each node's allocation. Pure and thread-safe; the controller does the I/O. A
 * subnet is never held by two nodes: allocation, adoption of a node's existing podCIDRs and release
 * all run under one lock.
 */
final class RangeAllocator {

  /** Holds the subnets that overlap the service CIDR; no node name can contain '<'. */
  static final String SERVICE_RANGE_OWNER = "<service-cluster-ip-range>";

  /** The pod CIDRs a node holds, with the node's UID (a node recreated under its name is new). */
  record Allocation(String uid, List<Cidr> cidrs) {}

  private final List<CidrSet> sets;
  private final Map<String, Allocation> allocations = new HashMap<>();

  /**
   * Pod CIDRs nodes have that could not be recorded for them because another node held the subnet
   * (two nodes given the same CIDR by someone else, or a node-cidr-mask-size change): when that
   * subnet is freed it goes to them, never to a new node.
   */
  private final Map<String, List<Cidr>> unrecorded = new HashMap<>();

  /**
   * @param maskSize the prefix length of the pod CIDRs for a family
   * @param serviceCidrs ranges no pod CIDR may overlap (upstream's filterOutServiceRange)
   * @throws IllegalArgumentException when a mask size does not fit its cluster CIDR
   */
  RangeAllocator(
      List<Cidr> clusterCidrs, ToIntFunction<Cidr.Family> maskSize, List<Cidr> serviceCidrs) {
    List<CidrSet> built = new ArrayList<>();
    for (Cidr cidr : clusterCidrs) {
      built.add(new CidrSet(cidr, maskSize.applyAsInt(cidr.family())));
    }
    this.sets = List.copyOf(built);
    for (Cidr service : serviceCidrs) {
      for (CidrSet set : sets) {
        if (set.clusterCidr().overlaps(service)) {
          set.occupy(service, SERVICE_RANGE_OWNER);
        }
      }
    }
  }

  /**
   * One pod CIDR per cluster CIDR for the node, in the cluster CIDRs' order. A node that already
   * has an allocation under the same UID gets it again (its write may not have landed yet); one
   * recreated under the same name loses the old one first. Empty when a cluster CIDR has no free
   * subnet left; then nothing is held for the node.
   */
  synchronized Optional<List<Cidr>> allocate(String node, String uid) {
    Allocation previous = allocations.get(node);
    if (previous != null) {
      if (previous.uid().equals(uid) && previous.cidrs().size() == sets.size()) {
        return Optional.of(previous.cidrs());
      }
      release(node);
    }
    List<Cidr> cidrs = new ArrayList<>();
    for (CidrSet set : sets) {
      Optional<Cidr> next = set.allocateNext(node);
      if (next.isEmpty()) {
        for (int i = 0; i < cidrs.size(); i++) {
          sets.get(i).release(cidrs.get(i), node);
        }
        return Optional.empty();
      }
      cidrs.add(next.get());
    }
    allocations.put(node, new Allocation(uid, List.copyOf(cidrs)));
    return Optional.of(List.copyOf(cidrs));
  }

  /**
   * Records pod CIDRs a node already has (at start-up, and for nodes given CIDRs by someone else),
   * so they are never handed out again. A CIDR that is no CIDR, lies outside every cluster CIDR or
   * is held by another node is not recorded; the node keeps it (podCIDRs cannot change once set)
   * and the problem is returned, to be reported.
   *
   * @return the problems, each naming the CIDR; empty when all is well
   */
  synchronized List<String> adopt(String node, String uid, List<String> podCidrs) {
    List<String> problems = new ArrayList<>();
    List<Cidr> valid = new ArrayList<>();
    for (String text : podCidrs) {
      Cidr cidr;
      try {
        cidr = Cidr.parse(text);
      } catch (IllegalArgumentException e) {
        problems.add("podCIDR \"%s\" is not a valid CIDR".formatted(text));
        continue;
      }
      Optional<CidrSet> set = setFor(cidr);
      if (set.isEmpty()) {
        problems.add(
            "podCIDR %s is outside the cluster CIDR (%s); it is left as it is and not managed"
                .formatted(cidr, clusterCidrsText()));
        continue;
      }
      if (!set.get().clusterCidr().contains(cidr)) {
        // Upstream's Occupy takes the overlap too: those subnets must never go to another node.
        problems.add(
            "podCIDR %s is not inside the cluster CIDR (%s); the subnets it overlaps are kept for it"
                .formatted(cidr, clusterCidrsText()));
      }
      valid.add(cidr);
    }
    Allocation previous = allocations.get(node);
    if (previous != null && previous.uid().equals(uid) && previous.cidrs().equals(valid)) {
      return problems;
    }
    if (previous != null) {
      release(node);
    }
    List<Cidr> held = new ArrayList<>();
    List<Cidr> conflicting = new ArrayList<>();
    for (Cidr cidr : valid) {
      Optional<String> other = setFor(cidr).orElseThrow().occupy(cidr, node);
      if (other.isEmpty()) {
        held.add(cidr);
      } else if (other.get().equals(SERVICE_RANGE_OWNER)) {
        problems.add("podCIDR %s overlaps the service cluster IP range".formatted(cidr));
      } else {
        problems.add("podCIDR %s is also assigned to node %s".formatted(cidr, other.get()));
        conflicting.add(cidr);
      }
    }
    allocations.put(node, new Allocation(uid, List.copyOf(held)));
    if (conflicting.isEmpty()) {
      unrecorded.remove(node);
    } else {
      unrecorded.put(node, conflicting);
    }
    return problems;
  }

  /**
   * Frees whatever the node holds; false when nothing became free. A freed subnet that another node
   * also has (see {@link #unrecorded}) goes to that node at once.
   */
  synchronized boolean release(String node) {
    unrecorded.remove(node);
    Allocation allocation = allocations.remove(node);
    if (allocation == null) {
      return false;
    }
    for (Cidr cidr : allocation.cidrs()) {
      setFor(cidr).ifPresent(set -> set.release(cidr, node));
    }
    reclaimUnrecorded();
    return !allocation.cidrs().isEmpty();
  }

  private void reclaimUnrecorded() {
    for (var it = unrecorded.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, List<Cidr>> entry = it.next();
      String holder = entry.getKey();
      List<Cidr> still = new ArrayList<>();
      List<Cidr> gained = new ArrayList<>();
      for (Cidr cidr : entry.getValue()) {
        if (setFor(cidr).orElseThrow().occupy(cidr, holder).isEmpty()) {
          gained.add(cidr);
        } else {
          still.add(cidr);
        }
      }
      if (!gained.isEmpty()) {
        Allocation current = allocations.get(holder);
        List<Cidr> cidrs = new ArrayList<>(current == null ? List.of() : current.cidrs());
        cidrs.addAll(gained);
        allocations.put(
            holder, new Allocation(current == null ? "" : current.uid(), List.copyOf(cidrs)));
      }
      if (still.isEmpty()) {
        it.remove();
      } else {
        entry.setValue(still);
      }
    }
  }

  synchronized Optional<Allocation> allocation(String node) {
    return Optional.ofNullable(allocations.get(node));
  }

  /** The node holding the subnet that contains {@code cidr}'s first address, if any. */
  synchronized Optional<String> ownerOf(Cidr cidr) {
    return setFor(cidr).flatMap(set -> set.ownerOf(cidr));
  }

  List<Cidr> clusterCidrs() {
    return sets.stream().map(CidrSet::clusterCidr).toList();
  }

  /** The share of the cluster CIDR's pod CIDRs in use, 0 to 1. */
  synchronized double usage(Cidr clusterCidr) {
    return sets.stream()
        .filter(set -> set.clusterCidr().equals(clusterCidr))
        .mapToDouble(set -> (double) set.allocated() / set.capacity())
        .findFirst()
        .orElse(0);
  }

  /** For logs and events: each cluster CIDR with its used and total pod CIDRs. */
  synchronized String usage() {
    return sets.stream()
        .map(set -> "%s: %d/%d used".formatted(set.clusterCidr(), set.allocated(), set.capacity()))
        .collect(Collectors.joining(", "));
  }

  /** The set whose cluster CIDR contains {@code cidr}, else one it overlaps. */
  private Optional<CidrSet> setFor(Cidr cidr) {
    return sets.stream()
        .filter(set -> set.clusterCidr().contains(cidr))
        .findFirst()
        .or(() -> sets.stream().filter(set -> set.clusterCidr().overlaps(cidr)).findFirst());
  }

  private String clusterCidrsText() {
    return sets.stream().map(set -> set.clusterCidr().toString()).collect(Collectors.joining(", "));
  }
}
