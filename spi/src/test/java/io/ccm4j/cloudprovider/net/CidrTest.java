package io.ccm4j.cloudprovider.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
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

  /**
   * {@code 010.0.0.0/8}: refused by Go's {@code net.ParseCIDR} since Go 1.17, and so by every
   * reader of CIDRs in ccm4j (flags, cloud configs, source ranges), saying why.
   */
  @ParameterizedTest
  @ValueSource(strings = {"010.0.0.0/8", "10.00.0.0/16", "10.0.0.07/32"})
  void leadingZerosAreRefusedSayingWhy(String text) {
    assertThatThrownBy(() -> Cidr.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid CIDR address")
        .hasMessageContaining("has a leading zero");
    assertThat(Cidr.tryParse(text)).isEmpty();
  }

  @ParameterizedTest(name = "{0} contains {1}: {2}")
  @CsvSource({
    "127.0.100.0/24, 127.0.100.7, true",
    "127.0.100.0/24, 127.0.101.7, false",
    "127.0.100.0/24, ::ffff:127.0.100.7, true",
    "fd00::/8, fd00::1, true",
    "fd00::/8, 127.0.100.7, false",
    "0.0.0.0/0, ::1, false",
  })
  void containsAddresses(String cidr, String address, boolean contains) {
    assertThat(Cidr.parse(cidr).contains(IpAddresses.parse(address))).isEqualTo(contains);
  }

  /**
   * A network ccm4j did not choose (a cloud's route destination) spelled IPv4-mapped is the IPv6
   * network it spells, as Go's {@code net.ParseCIDR} reads it; its ends are IPv4 addresses then.
   */
  @ParameterizedTest(name = "{0}: first {1}, last {2}")
  @CsvSource({
    "::ffff:10.244.1.0/120, 10.244.1.0, 10.244.1.255",
    "::FFFF:10.244.1.7/120, 10.244.1.0, 10.244.1.255",
    "::ffff:a00:0/104, 10.0.0.0, 10.255.255.255",
    "::ffff:0:0/96, 0.0.0.0, 255.255.255.255",
    "::ffff:10.244.1.0/90, ::ffc0:0:0, ::ffff:ffff:ffff", // wider than IPv4: its start is IPv6
    "10.244.1.0/24, 10.244.1.0, 10.244.1.255",
    "fd00::/120, fd00::, fd00::ff",
  })
  void anIpv4MappedNetworkIsKeptWhenAsked(String text, String first, String last) {
    Cidr parsed = Cidr.parseKeepingIpv4Mapped(text);

    assertThat(parsed.firstAddress()).isEqualTo(IpAddresses.parse(first));
    assertThat(parsed.lastAddress()).isEqualTo(IpAddresses.parse(last));
  }

  @ParameterizedTest(name = "{0}: {1} addresses, the 2nd {2}")
  @CsvSource({
    "127.0.100.0/24, 256, 127.0.100.1",
    "10.0.0.0/30, 4, 10.0.0.1",
    "fd00::/120, 256, fd00::1"
  })
  void sizeAndAddresses(String cidr, long size, String second) {
    Cidr parsed = Cidr.parse(cidr);
    assertThat(parsed.size()).isEqualTo(BigInteger.valueOf(size));
    assertThat(parsed.addressAt(1)).isEqualTo(IpAddresses.parse(second));
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
}
