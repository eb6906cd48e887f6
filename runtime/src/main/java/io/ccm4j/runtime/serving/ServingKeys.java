package io.ccm4j.runtime.serving;

import io.ccm4j.tls.SelfSignedCertificate;
import java.security.KeyStore;
import java.time.Duration;

/** The key and certificate an HTTPS server presents, in a key store with its password. */
public record ServingKeys(KeyStore keyStore, char[] password) {

  /** A self-signed certificate for localhost, made in memory (A1: when no certificate is given). */
  public static ServingKeys selfSigned() {
    char[] password = "in-memory".toCharArray();
    return new ServingKeys(
        SelfSignedCertificate.forLocalhost(Duration.ofDays(365)).toKeyStore(password), password);
  }
}
