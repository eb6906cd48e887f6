package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.BindException;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class TcpListenerBindFailureTest {

  @Test
  void aPrivilegedPortRefusedSaysWhatItNeeds() throws Exception {
    InetAddress address = InetAddress.getByName("10.77.0.10");

    String message =
        TcpListener.bindFailure(address, 80, new BindException("Permission denied")).getMessage();

    assertThat(message)
        .isEqualTo(
            "10.77.0.10:80 cannot be bound: a port below 1024 needs root or"
                + " CAP_NET_BIND_SERVICE (Permission denied)")
        .doesNotContain("in use");
  }

  @Test
  void aPortTakenSaysItIsInUse() throws Exception {
    InetAddress address = InetAddress.getByName("127.0.0.1");

    String message =
        TcpListener.bindFailure(address, 8080, new BindException("Address already in use"))
            .getMessage();

    assertThat(message)
        .isEqualTo("127.0.0.1:8080 is already in use by another listener (Address already in use)");
  }
}
