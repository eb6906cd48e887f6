package io.ccm4j.controllers.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CidrTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "10.244.0.0/16, 10.244.0.0/16",
    "10.244.3.7/16, 10.244.0.0/16",
    "' 192.168.1.0/24 ', 192.168.1.0/24",
    "0.0.0.0/0, 0.0.0.0/0",
    "10.0.0.1/32, 10.0.0.1/32",
    "fd00:10:0:0::/56, fd00:10::/56",
    "FD00::1/64, fd00::/64",
    "2001:db8:0:0:1:0:0:1/128, 2001:db8::1:0:0:1/128",
    "2001:0:0:1:0:0:0:1/128, 2001:0:0:1::1/128",
    "::/0, ::/0",
    "::1/128, ::1/128",
    "fd00:1:2:3:4:5:6:7/128, fd00:1:2:3:4:5:6:7/128",
  })
  void parsesAndPrintsAsGoDoes(String text, String printed) {
    assertThat(Cidr.parse(text).toString()).isEqualTo(printed);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "garbage",
        "10.0.0.0",
        "10.0.0.0/33",
        "10.0.0/8",
        "10.0.0.256/8",
        "010.0.0.0/8",
        "10.0.0.0/-1",
        "10.0.0.0/ 8",
        "fd00::/129",
        "fd00:::1/64",
        "g::1/64",
        "::ffff:10.0.0.0/104",
        "localhost/8"
      })
  void rejectsWhatIsNoCidrWithoutLookingUpNames(String text) {
    assertThatThrownBy(() -> Cidr.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid CIDR address");
  }

  @ParameterizedTest(name = "{0}: first {1}, last {2}")
  @CsvSource({
    "10.0.0.0/24, 167772160, 167772415",
    "10.0.0.0/31, 167772160, 167772161",
    "10.0.0.7/32, 167772167, 167772167",
    "0.0.0.0/0, 0, 4294967295",
  })
  void firstAndLastAddress(String cidr, long first, long last) {
    Cidr parsed = Cidr.parse(cidr);
    assertThat(parsed.first()).isEqualTo(BigInteger.valueOf(first));
    assertThat(parsed.last()).isEqualTo(BigInteger.valueOf(last));
  }

  @ParameterizedTest(name = "{0} contains {1}: {2}; overlaps: {3}")
  @CsvSource({
    "10.0.0.0/16, 10.0.3.0/24, true, true",
    "10.0.0.0/16, 10.1.0.0/24, false, false",
    "10.0.0.0/16, 10.0.0.0/8, false, true",
    "10.0.0.0/16, 10.0.0.0/16, true, true",
    "fd00::/48, fd00:0:0:ff::/64, true, true",
    "fd00::/48, fd00:1::/64, false, false",
    // the same numbers in another family are another network
    "0.0.0.0/0, ::/96, false, false",
  })
  void containmentAndOverlap(String outer, String inner, boolean contains, boolean overlaps) {
    assertThat(Cidr.parse(outer).contains(Cidr.parse(inner))).isEqualTo(contains);
    assertThat(Cidr.parse(outer).overlaps(Cidr.parse(inner))).isEqualTo(overlaps);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"10.0.0.0/16", "fd00::/48", "10.0.0.0/16,fd00::/48", "fd00::/48,10.0.0.0/8"})
  void clusterCidrsAreOneOrOnePerFamily(String value) {
    assertThat(NetworkSettings.parseDualStack(value)).hasSize(value.split(",").length);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "10.0.0.0/16,10.1.0.0/16|two CIDRs must be dual-stack",
        "fd00::/48,fd01::/48|two CIDRs must be dual-stack",
        "10.0.0.0/16,fd00::/48,10.1.0.0/16|at most 2 CIDRs",
        "10.0.0.0/16,|invalid CIDR address",
        "10.0.0.0/16;fd00::/48|invalid CIDR address",
      })
  void otherClusterCidrListsAreRejected(String value, String message) {
    assertThatThrownBy(() -> NetworkSettings.parseDualStack(value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @ParameterizedTest(name = "{0} cut at /{1}: {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "10.0.0.0/16|24|",
        "10.0.0.0/8|24|",
        "10.0.0.0/7|24|is too big",
        "10.0.0.0/24|16|must be between",
        "10.0.0.0/24|33|must be between",
        "10.0.0.0/30|32|",
        "fd00::/48|64|",
        "fd00::/47|64|is too big",
        "fd00::/112|128|",
      })
  void maskSizesMustFitTheClusterCidr(String cidr, int mask, String problem) {
    assertThat(NetworkSettings.maskSizeProblem(Cidr.parse(cidr), mask).orElse(null))
        .satisfies(
            found -> {
              if (problem == null) {
                assertThat(found).isNull();
              } else {
                assertThat(found).contains(problem);
              }
            });
  }

  @org.junit.jupiter.api.Test
  void defaultsAreUpstreams() {
    NetworkSettings defaults = NetworkSettings.defaults();
    assertThat(defaults.clusterCidrs()).isEmpty();
    assertThat(defaults.configureCloudRoutes()).isTrue();
    assertThat(defaults.allocateNodeCidrs()).isFalse();
    assertThat(defaults.routeReconciliationPeriod()).hasSeconds(10);
    assertThat(
            List.of(
                defaults.nodeCidrMaskSize(Cidr.Family.IPv4),
                defaults.nodeCidrMaskSize(Cidr.Family.IPv6)))
        .containsExactly(24, 64);
  }
}
