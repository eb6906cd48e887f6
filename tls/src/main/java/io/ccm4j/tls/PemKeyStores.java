package io.ccm4j.tls;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

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
      if (!matches(key, chain.iterator().next().getPublicKey())) {
        throw new IllegalArgumentException(
            "the private key %s does not match the certificate %s"
                .formatted(keyFile, certificateFile));
      }
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

  /**
   * The first private key in the file. Blocks before it are skipped: {@code openssl ecparam
   * -genkey} writes the curve ({@code EC PARAMETERS}) ahead of the key.
   */
  private static PrivateKey readKey(Path keyFile) throws IOException {
    try (Reader reader = Files.newBufferedReader(keyFile, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
        if (object instanceof PEMKeyPair pair) {
          // The public part of a SEC1 (EC PRIVATE KEY) key is optional.
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
        if (object instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
        if (object instanceof PEMEncryptedKeyPair
            || object instanceof PKCS8EncryptedPrivateKeyInfo) {
          throw new IllegalArgumentException(
              keyFile + " holds an encrypted private key; give it unencrypted");
        }
      }
      throw new IllegalArgumentException(keyFile + " holds no PEM private key");
    }
  }

  /**
   * Whether the key signs what the certificate's public key verifies: a mismatched pair would
   * otherwise be noticed only at the first TLS handshake, each one failing.
   */
  private static boolean matches(PrivateKey key, PublicKey publicKey)
      throws GeneralSecurityException {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          case "Ed448" -> "Ed448";
          default -> null;
        };
    if (algorithm == null || !key.getAlgorithm().equals(publicKey.getAlgorithm())) {
      return algorithm == null; // an algorithm not checked here is left to the handshake
    }
    byte[] probe = "ccm4j serving key check".getBytes(StandardCharsets.US_ASCII);
    Signature signer = Signature.getInstance(algorithm);
    signer.initSign(key);
    signer.update(probe);
    byte[] signature = signer.sign();
    Signature verifier = Signature.getInstance(algorithm);
    verifier.initVerify(publicKey);
    verifier.update(probe);
    return verifier.verify(signature);
  }
}
