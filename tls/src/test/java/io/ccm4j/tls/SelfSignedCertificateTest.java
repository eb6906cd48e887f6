package io.ccm4j.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SelfSignedCertificateTest {

  @Test
  void theServingCertificateNamesLocalhostAndItsLoopbackAddressesOnly() throws Exception {
    SelfSignedCertificate serving = SelfSignedCertificate.forLocalhost(Duration.ofDays(1));

    // As upstream's self-signed serving certificate: no host name, which may need a DNS lookup.
    assertThat(serving.certificate().getSubjectAlternativeNames())
        .containsExactlyInAnyOrder(
            List.of(2, "localhost"), List.of(7, "127.0.0.1"), List.of(7, "0:0:0:0:0:0:0:1"));
  }
}
