package io.ccm4j.controllers.nodeipam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.net.Cidr;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CidrSetTest {

  private static List<String> drain(CidrSet set) {
    List<String> all = new ArrayList<>();
    for (Optional<Cidr> next = set.allocateNext("n");
        next.isPresent();
        next = set.allocateNext("n")) {
      all.add(next.get().toString());
    }
    return all;
  }

  @ParameterizedTest(name = "{0} at /{1}: {2} CIDRs, first {3}, last {4}")
  @CsvSource({
    "10.0.0.0/16, 24, 256, 10.0.0.0/24, 10.0.255.0/24",
    "10.0.0.0/8, 24, 65536, 10.0.0.0/24, 10.255.255.0/24",
    "10.0.0.0/8, 26, 262144, 10.0.0.0/26, 10.255.255.192/26",
    "10.0.0.0/24, 24, 1, 10.0.0.0/24, 10.0.0.0/24",
    "10.0.0.0/30, 32, 4, 10.0.0.0/32, 10.0.0.3/32",
    "0.0.0.0/16, 32, 65536, 0.0.0.0/32, 0.0.255.255/32",
    "255.255.0.0/16, 24, 256, 255.255.0.0/24, 255.255.255.0/24",
    "fd00:10::/56, 64, 256, fd00:10::/64, fd00:10:0:ff::/64",
    "fd00::/48, 64, 65536, fd00::/64, fd00:0:0:ffff::/64",
    "2001:db8::/112, 120, 256, 2001:db8::/120, 2001:db8::ff00/120",
    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:0/112, 128, 65536, ffff:ffff:ffff:ffff:ffff:ffff:ffff:0/128, ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128",
  })
  void handsOutEverySubnetOnceThenNothing(
      String cluster, int mask, int count, String first, String last) {
    CidrSet set = new CidrSet(Cidr.parse(cluster), mask);
    List<String> all = drain(set);

    assertThat(all).hasSize(count).doesNotHaveDuplicates();
    assertThat(all.get(0)).isEqualTo(first);
    assertThat(all.get(all.size() - 1)).isEqualTo(last);
    assertThat(set.allocateNext("late")).isEmpty();
    assertThat(set.allocated()).isEqualTo(count);
  }

  @Test
  void aReleasedSubnetIsReusedOnlyAfterTheOthers() {
    CidrSet set = new CidrSet(Cidr.parse("10.0.0.0/22"), 24);
    Cidr a = set.allocateNext("a").orElseThrow();
    set.allocateNext("b").orElseThrow();
    set.release(a, "a");

    assertThat(set.allocateNext("c")).map(Cidr::toString).contains("10.0.2.0/24");
    assertThat(set.allocateNext("d")).map(Cidr::toString).contains("10.0.3.0/24");
    assertThat(set.allocateNext("e")).map(Cidr::toString).contains("10.0.0.0/24");
    assertThat(set.allocateNext("f")).isEmpty();
  }

  @Test
  void releaseFreesOnlyWhatTheOwnerHolds() {
    CidrSet set = new CidrSet(Cidr.parse("10.0.0.0/23"), 24);
    Cidr a = set.allocateNext("a").orElseThrow();

    set.release(a, "someone-else");

    assertThat(set.ownerOf(a)).contains("a");
    assertThat(set.allocated()).isEqualTo(1);
  }

  @Test
  void occupyingMarksSubnetsAndReportsAnotherOwner() {
    CidrSet set = new CidrSet(Cidr.parse("10.0.0.0/16"), 24);

    assertThat(set.occupy(Cidr.parse("10.0.5.0/24"), "a")).isEmpty();
    assertThat(set.occupy(Cidr.parse("10.0.5.0/24"), "a")).as("idempotent").isEmpty();
    assertThat(set.occupy(Cidr.parse("10.0.5.128/25"), "b")).contains("a");
    assertThat(set.allocated()).isEqualTo(1);
    // a CIDR wider than the subnet marks every subnet it covers
    assertThat(set.occupy(Cidr.parse("10.0.8.0/22"), "wide")).isEmpty();
    assertThat(set.allocated()).isEqualTo(5);
    Set<String> rest = new HashSet<>(drain(set));
    assertThat(rest)
        .hasSize(251)
        .doesNotContain(
            "10.0.5.0/24", "10.0.8.0/24", "10.0.9.0/24", "10.0.10.0/24", "10.0.11.0/24");
  }

  @Test
  void aRangeLargerThanTheClusterCidrTakesAllOfIt() {
    CidrSet set = new CidrSet(Cidr.parse("10.0.0.0/16"), 24);

    assertThat(set.occupy(Cidr.parse("10.0.0.0/8"), "service")).isEmpty();

    assertThat(set.allocated()).isEqualTo(256);
    assertThat(set.allocateNext("a")).isEmpty();
  }

  @Test
  void aCidrOutsideTheClusterCidrIsRefused() {
    CidrSet set = new CidrSet(Cidr.parse("10.0.0.0/16"), 24);

    assertThatThrownBy(() -> set.occupy(Cidr.parse("10.1.0.0/24"), "a"))
        .hasMessageContaining("outside the cluster CIDR 10.0.0.0/16");
    assertThatThrownBy(() -> set.occupy(Cidr.parse("fd00::/64"), "a"))
        .hasMessageContaining("outside the cluster CIDR");
  }

  @ParameterizedTest(name = "{0} at /{1}")
  @CsvSource({
    "10.0.0.0/16, 15",
    "10.0.0.0/16, 33",
    "10.0.0.0/8, 29",
    "fd00::/48, 65",
    "fd00::/64, 129"
  })
  void masksThatDoNotFitAreRefused(String cluster, int mask) {
    assertThatThrownBy(() -> new CidrSet(Cidr.parse(cluster), mask))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("node CIDR mask size");
  }
}
