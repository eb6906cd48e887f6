package io.ccm4j.controllers.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.net.Cidr;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NetworkSettingsTest {

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
        "010.0.0.0/8|\"010\" has a leading zero",
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
        "10.0.0.0/7|24|",
        "10.0.0.0/8|26|",
        "10.0.0.0/12|32|",
        "10.0.0.0/8|29|is too big for cluster CIDR 10.0.0.0/8: at most 20 bits",
        "10.0.0.0/24|16|must be between",
        "10.0.0.0/24|33|must be between",
        "10.0.0.0/30|32|",
        "fd00::/48|64|",
        "fd00::/47|64|is too big for cluster CIDR fd00::/47: at most 16 bits",
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
