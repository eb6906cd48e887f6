package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.security.Provider;
import java.security.Security;
import java.util.Optional;
import javax.crypto.Cipher;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

// The background install first: the provider is installed once per JVM.
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NativeCryptoTest {

  @Test
  @Order(2)
  void onLinuxX8664TheNativeProviderServesTlsCiphersFirst() throws Exception {
    assumeTrue(
        "Linux".equals(System.getProperty("os.name"))
            && "amd64".equals(System.getProperty("os.arch")),
        "the native provider is published for Linux x86-64 only");
    assumeTrue(!"off".equals(System.getenv("CCM4J_NATIVE_CRYPTO")), "switched off here");

    Optional<Provider> installed = NativeCrypto.install();

    assertThat(installed).isPresent();
    assertThat(Security.getProviders()[0]).isSameAs(installed.get());
    assertThat(Cipher.getInstance("AES/GCM/NoPadding").getProvider()).isSameAs(installed.get());
    assertThat(NativeCrypto.installed()).startsWith(installed.get().getName());
    // The JDK's TLS still works on top of it (the API server and the serving port use it).
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, null, null);
    assertThat(tls.createSSLEngine().getSupportedCipherSuites()).contains("TLS_AES_128_GCM_SHA256");
  }

  @Test
  @Order(1)
  void installedInTheBackgroundItIsNamedOnceItArrived() {
    assumeTrue(
        "Linux".equals(System.getProperty("os.name"))
            && "amd64".equals(System.getProperty("os.arch")),
        "the native provider is published for Linux x86-64 only");
    assumeTrue(!"off".equals(System.getenv("CCM4J_NATIVE_CRYPTO")), "switched off here");

    NativeCrypto.installInBackground();

    // installed() waits for the background thread rather than naming the JDK's crypto meanwhile.
    assertThat(NativeCrypto.installed()).startsWith("AmazonCorrettoCryptoProvider");
    assertThat(Security.getProviders()[0].getName()).isEqualTo("AmazonCorrettoCryptoProvider");
  }
}
