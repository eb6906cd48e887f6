package io.ccm4j.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PemKeyStoresTest {

  private static final char[] PASSWORD = "test".toCharArray();
  private static final SelfSignedCertificate SERVING =
      SelfSignedCertificate.forLocalhost(Duration.ofDays(1));

  @TempDir Path dir;

  /** Made by {@code openssl ecparam -name prime256v1 -genkey} and {@code openssl req -x509}. */
  @Test
  void loadsAKeyWrittenAfterItsCurveParametersAsOpensslEcparamDoes() throws Exception {
    Path cert = resource("ecparam-cert.pem");
    Path key = resource("ecparam-key.pem");
    assertThat(Files.readString(key)).startsWith("-----BEGIN EC PARAMETERS-----");

    KeyStore store = PemKeyStores.load(cert, key, PASSWORD);

    assertThat(
            ((X509Certificate) store.getCertificate("serving")).getSubjectX500Principal().getName())
        .isEqualTo("CN=ccm4j-test");
    assertThat(store.getKey("serving", PASSWORD).getAlgorithm()).isEqualTo("EC");
  }

  @Test
  void loadsAKeyInPkcs8() throws Exception {
    KeyStore store =
        PemKeyStores.load(
            write("cert.pem", SERVING.certificatePem()),
            write("key.pem", SERVING.privateKeyPem()),
            PASSWORD);

    assertThat(store.getKey("serving", PASSWORD).getEncoded())
        .isEqualTo(SERVING.keyPair().getPrivate().getEncoded());
  }

  @Test
  void refusesAKeyThatIsNotTheCertificates() throws Exception {
    SelfSignedCertificate other = SelfSignedCertificate.forLocalhost(Duration.ofDays(1));
    Path cert = write("cert.pem", SERVING.certificatePem());
    Path key = write("key.pem", other.privateKeyPem());

    assertThatThrownBy(() -> PemKeyStores.load(cert, key, PASSWORD))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the private key " + key + " does not match the certificate " + cert);
  }

  @Test
  void namesAnEncryptedKeyAndAFileWithoutAKey() throws Exception {
    Path cert = write("cert.pem", SERVING.certificatePem());
    var encryptor =
        new JceOpenSSLPKCS8EncryptorBuilder(PKCSObjectIdentifiers.pbeWithSHAAnd3_KeyTripleDES_CBC)
            .setPassword("secret".toCharArray())
            .build();
    Path encrypted =
        write(
            "encrypted.pem", pem(new JcaPKCS8Generator(SERVING.keyPair().getPrivate(), encryptor)));
    Path certOnly = write("cert-as-key.pem", SERVING.certificatePem());

    assertThatThrownBy(() -> PemKeyStores.load(cert, encrypted, PASSWORD))
        .hasMessageContaining(encrypted + " holds an encrypted private key");
    assertThatThrownBy(() -> PemKeyStores.load(cert, certOnly, PASSWORD))
        .hasMessageContaining(certOnly + " holds no PEM private key");
  }

  private static Path resource(String name) throws Exception {
    return Path.of(PemKeyStoresTest.class.getResource("/tls/" + name).toURI());
  }

  private Path write(String name, String content) throws Exception {
    return Files.writeString(dir.resolve(name), content);
  }

  private static String pem(Object object) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    }
    return out.toString();
  }
}
