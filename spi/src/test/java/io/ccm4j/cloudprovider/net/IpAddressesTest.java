package io.ccm4j.cloudprovider.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class IpAddressesTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
    "10.0.0.1, /10.0.0.1",
    "0.0.0.0, /0.0.0.0",
    "255.255.255.255, /255.255.255.255",
    "fd00::1, /fd00:0:0:0:0:0:0:1",
    "::1, /0:0:0:0:0:0:0:1",
    "FD00::A, /fd00:0:0:0:0:0:0:a",
    // Go reads ::ffff:a.b.c.d as the IPv4 address
    "::ffff:10.0.0.1, /10.0.0.1",
  })
  void readsLiteralsAsGoDoes(String text, String address) {
    assertThat(IpAddresses.parse(text).toString()).isEqualTo(address);
  }

  /** One answer everywhere for what Go's net.ParseIP refuses, and no DNS lookup for a name. */
  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "010.0.0.1      | octet \"010\" has a leading zero",
        "10.0.0.01      | octet \"01\" has a leading zero",
        "10.0.0.256     | octet 256 is above 255",
        "10.0.0         | is not a valid IP address",
        "10.0.0.1.2     | is not a valid IP address",
        "''             | is not a valid IP address",
        "localhost      | is not a valid IP address",
        "fd00:::1       | is not a valid IP address",
        "g::1           | is not a valid IP address",
        "fe80::00001    | field \"00001\" has more than 4 hex digits",
        "fd00:12345::1  | field \"12345\" has more than 4 hex digits",
        "' 10.0.0.1'    | is not a valid IP address",
      })
  void refusesWhatGoRefuses(String text, String problem) {
    assertThatThrownBy(() -> IpAddresses.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(problem);
    assertThat(IpAddresses.isIp(text)).isFalse();
  }
}
