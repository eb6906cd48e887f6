package io.ccm4j.cloudprovider.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class SocketUrlsTest {

  @Test
  void anAddressIsWrittenAsCurlTakesIt() {
    assertThat(SocketUrls.url("https", new InetSocketAddress("127.0.0.1", 10258)))
        .isEqualTo("https://127.0.0.1:10258");
    assertThat(SocketUrls.url("https", new InetSocketAddress("::1", 10259)))
        .isEqualTo("https://[0:0:0:0:0:0:0:1]:10259");
    assertThat(SocketUrls.url("http", InetSocketAddress.createUnresolved("example.test", 80)))
        .isEqualTo("http://example.test:80");
  }
}
