package io.ccm4j.controllers.nodeipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.controllers.network.NetworkSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RangeAllocatorTest {

  private static RangeAllocator allocator(String clusterCidrs, String serviceCidrs) {
    NetworkSettings defaults = NetworkSettings.defaults();
    return new RangeAllocator(
        NetworkSettings.parseDualStack(clusterCidrs),
        defaults::nodeCidrMaskSize,
        serviceCidrs.isEmpty() ? List.of() : NetworkSettings.parseDualStack(serviceCidrs));
  }

  private static List<String> text(Optional<List<Cidr>> cidrs) {
    return cidrs.orElseThrow().stream().map(Cidr::toString).toList();
  }

  @Test
  void dualStackNodesGetOneCidrPerFamilyInTheClusterCidrsOrder() {
    RangeAllocator allocator = allocator("fd00:10::/56,10.244.0.0/16", "");

    assertThat(text(allocator.allocate("a", "uid-a")))
        .containsExactly("fd00:10::/64", "10.244.0.0/24");
    assertThat(text(allocator.allocate("b", "uid-b")))
        .containsExactly("fd00:10:0:1::/64", "10.244.1.0/24");
  }

  @Test
  void aCidrTwoNodesHaveGoesToTheOtherOneWhenTheFirstLeavesNeverToANewNode() {
    RangeAllocator allocator = allocator("10.0.0.0/22", "");
    assertThat(allocator.adopt("a", "uid-a", List.of("10.0.0.0/24"))).isEmpty();
    assertThat(allocator.adopt("b", "uid-b", List.of("10.0.0.0/24")))
        .containsExactly("podCIDR 10.0.0.0/24 is also assigned to node a");
    for (String node : List.of("c", "d", "e")) {
      assertThat(allocator.allocate(node, "uid-" + node)).isPresent();
    }

    allocator.release("a");

    assertThat(allocator.ownerOf(Cidr.parse("10.0.0.0/24"))).contains("b");
    assertThat(allocator.allocate("f", "uid-f")).as("b still routes it").isEmpty();
    allocator.release("b");
    assertThat(text(allocator.allocate("f", "uid-f"))).containsExactly("10.0.0.0/24");
  }

  @Test
  void aPodCidrReachingPastTheClusterCidrKeepsTheSubnetsItOverlaps() {
    RangeAllocator allocator = allocator("10.0.0.0/23", "");
    assertThat(allocator.adopt("wide", "uid-w", List.of("10.0.0.0/22")))
        .singleElement()
        .asString()
        .contains("not inside the cluster CIDR");
    assertThat(allocator.allocate("new", "uid-n")).as("both /24s are the wide node's").isEmpty();
    allocator.release("wide");
    assertThat(allocator.allocate("new", "uid-n")).isPresent();
  }

  @Test
  void theSameNodeGetsTheSameCidrsUntilItIsRecreated() {
    RangeAllocator allocator = allocator("10.0.0.0/22", "");
    List<String> first = text(allocator.allocate("a", "uid-1"));

    assertThat(text(allocator.allocate("a", "uid-1"))).isEqualTo(first);
    assertThat(text(allocator.allocate("a", "uid-2")))
        .as("a new node under the old name gets a new CIDR")
        .isNotEqualTo(first);
    assertThat(allocator.usage()).isEqualTo("10.0.0.0/22: 1/4 used");
  }

  @Test
  void exhaustionHoldsNothingAndReleaseMakesRoom() {
    RangeAllocator allocator = allocator("10.0.0.0/23,fd00::/63", "");
    assertThat(allocator.allocate("a", "1")).isPresent();
    assertThat(allocator.allocate("b", "2")).isPresent();

    assertThat(allocator.allocate("c", "3")).isEmpty();
    assertThat(allocator.allocation("c")).isEmpty();
    assertThat(allocator.usage()).isEqualTo("10.0.0.0/23: 2/2 used, fd00::/63: 2/2 used");

    assertThat(allocator.release("a")).isTrue();
    assertThat(allocator.release("a")).isFalse();
    assertThat(text(allocator.allocate("c", "3"))).containsExactly("10.0.0.0/24", "fd00::/64");
  }

  @Test
  void whenOneFamilyIsFullTheOtherFamilysCidrIsGivenBack() {
    RangeAllocator allocator =
        new RangeAllocator(
            NetworkSettings.parseDualStack("10.0.0.0/24,fd00::/48"),
            family -> family == Cidr.Family.IPv4 ? 24 : 64,
            List.of());
    allocator.allocate("a", "1");

    assertThat(allocator.allocate("b", "2")).isEmpty();

    assertThat(allocator.usage()).isEqualTo("10.0.0.0/24: 1/1 used, fd00::/48: 1/65536 used");
  }

  @Test
  void adoptedCidrsAreNeverHandedOutAgain() {
    RangeAllocator allocator = allocator("10.0.0.0/22", "");

    assertThat(allocator.adopt("old-0", "u0", List.of("10.0.0.0/24"))).isEmpty();
    assertThat(allocator.adopt("old-2", "u2", List.of("10.0.2.0/24"))).isEmpty();

    assertThat(text(allocator.allocate("new-a", "ua"))).containsExactly("10.0.1.0/24");
    assertThat(text(allocator.allocate("new-b", "ub"))).containsExactly("10.0.3.0/24");
    assertThat(allocator.allocate("new-c", "uc")).isEmpty();
  }

  @Test
  void cidrsOutsideTheClusterCidrOrHeldByAnotherNodeAreProblems() {
    RangeAllocator allocator = allocator("10.0.0.0/16", "");
    allocator.adopt("a", "ua", List.of("10.0.1.0/24"));

    assertThat(allocator.adopt("b", "ub", List.of("192.168.0.0/24")))
        .singleElement()
        .asString()
        .contains("podCIDR 192.168.0.0/24 is outside the cluster CIDR (10.0.0.0/16)");
    assertThat(allocator.adopt("c", "uc", List.of("10.0.1.0/24")))
        .containsExactly("podCIDR 10.0.1.0/24 is also assigned to node a");
    assertThat(allocator.adopt("d", "ud", List.of("fd00::/64")))
        .singleElement()
        .asString()
        .contains("outside the cluster CIDR");
    assertThat(allocator.adopt("e", "ue", List.of("bogus")))
        .containsExactly("podCIDR \"bogus\" is not a valid CIDR");
    assertThat(allocator.ownerOf(Cidr.parse("10.0.1.0/24"))).contains("a");
  }

  @Test
  void theServiceRangeIsKeptOut() {
    RangeAllocator allocator = allocator("10.0.0.0/22", "10.0.1.0/24");

    List<String> handedOut = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      allocator.allocate("n" + i, "u" + i).ifPresent(c -> handedOut.add(c.get(0).toString()));
    }

    assertThat(handedOut).containsExactly("10.0.0.0/24", "10.0.2.0/24", "10.0.3.0/24");
    assertThat(allocator.adopt("x", "ux", List.of("10.0.1.0/24")))
        .containsExactly("podCIDR 10.0.1.0/24 overlaps the service cluster IP range");
  }

  @Test
  void aServiceRangeOutsideTheClusterCidrChangesNothing() {
    RangeAllocator allocator = allocator("10.0.0.0/23", "10.96.0.0/12,fd00::/108");

    assertThat(allocator.allocate("a", "1")).isPresent();
    assertThat(allocator.allocate("b", "2")).isPresent();
  }

  @Test
  void concurrentAllocationsNeverShareACidr() throws Exception {
    RangeAllocator allocator = allocator("10.0.0.0/16", "");
    List<String> handedOut = Collections.synchronizedList(new ArrayList<>());
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> futures =
          IntStream.range(0, 300)
              .mapToObj(
                  i ->
                      threads.submit(
                          () ->
                              allocator
                                  .allocate("node-" + i, "uid-" + i)
                                  .ifPresent(c -> handedOut.add(c.get(0).toString()))))
              .<Future<?>>map(f -> f)
              .toList();
      for (Future<?> future : futures) {
        future.get();
      }
    } finally {
      threads.shutdownNow();
    }

    assertThat(handedOut).hasSize(256).doesNotHaveDuplicates();
  }

  @Test
  void readoptingWithOtherCidrsReleasesTheOldOnes() {
    RangeAllocator allocator = allocator("10.0.0.0/23", "");
    allocator.allocate("a", "1"); // 10.0.0.0/24, patch in flight
    // someone else gave the node 10.0.1.0/24 first
    assertThat(allocator.adopt("a", "1", List.of("10.0.1.0/24"))).isEmpty();

    assertThat(text(allocator.allocate("b", "2"))).containsExactly("10.0.0.0/24");
  }
}
