package io.ccm4j.runtime.tls;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Reads a PEM certificate chain and private key ({@code --tls-cert-file}, {@code
 * --tls-private-key-file}).
 */
public final class PemKeyStores {

  private PemKeyStores() {}

  /**
   * @throws IllegalArgumentException naming the file that cannot be read or holds no certificate or
   *     key
   */
  public static KeyStore load(Path certificateFile, Path keyFile, char[] password) {
    try {
      Collection<? extends Certificate> chain;
      try (var in = Files.newInputStream(certificateFile)) {
        chain = CertificateFactory.getInstance("X.509").generateCertificates(in);
      }
      if (chain.isEmpty()) {
        throw new IllegalArgumentException(certificateFile + " holds no PEM certificate");
      }
      PrivateKey key = readKey(keyFile);
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("serving", key, password, chain.toArray(Certificate[]::new));
      return store;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot load the serving certificate %s and key %s: %s"
              .formatted(certificateFile, keyFile, e.getMessage()),
          e);
    }
  }

  private static PrivateKey readKey(Path keyFile) throws IOException {
    try (Reader reader = Files.newBufferedReader(keyFile, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      Object object = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (object instanceof PEMKeyPair pair) {
        return converter.getKeyPair(pair).getPrivate();
      }
      if (object instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      throw new IllegalArgumentException(keyFile + " holds no unencrypted PEM private key");
    }
  }
}
