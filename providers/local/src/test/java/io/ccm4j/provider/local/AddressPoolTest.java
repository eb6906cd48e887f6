package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.net.Cidr;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class AddressPoolTest {

  private static InetAddress ip(String text) throws Exception {
    return InetAddress.getByName(text);
  }

  @Test
  void handsOutHostAddressesLowestFirstAndTakesThemBack() throws Exception {
    AddressPool pool = new AddressPool(Cidr.parse("127.0.100.0/30"));
    assertThat(pool.allocate("a")).contains(ip("127.0.100.1"));
    assertThat(pool.allocate("b")).contains(ip("127.0.100.2"));
    assertThat(pool.allocate("c")).isEmpty();
    pool.release(ip("127.0.100.1"));
    assertThat(pool.allocate("c")).contains(ip("127.0.100.1"));
    assertThat(pool.owner(ip("127.0.100.1"))).contains("c");
  }

  @Test
  void reservesOnlyFreeAddressesInsideThePool() throws Exception {
    AddressPool pool = new AddressPool(Cidr.parse("127.0.100.0/24"));
    assertThat(pool.reserve(ip("127.0.100.9"), "a")).isTrue();
    assertThat(pool.reserve(ip("127.0.100.9"), "a")).isTrue();
    assertThat(pool.reserve(ip("127.0.100.9"), "b")).isFalse();
    assertThat(pool.reserve(ip("127.0.100.0"), "b")).isFalse();
    assertThat(pool.reserve(ip("127.0.100.255"), "b")).isFalse();
    assertThat(pool.reserve(ip("127.0.101.1"), "b")).isFalse();
    assertThat(pool.reserve(ip("::1"), "b")).isFalse();
    assertThat(pool.allocate("c")).contains(ip("127.0.100.1"));
    assertThat(pool.inUse()).isEqualTo(2);
  }
}
