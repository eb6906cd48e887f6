package io.ccm4j.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.util.io.pem.PemGenerationException;

/**
 * A key pair and an X.509 certificate for it, either self-signed (a CA, or a serving certificate
 * nobody needs to verify) or signed by a CA of this class. Used for the manager's serving
 * certificate when none is given, and by the local control plane for its CA, serving and client
 * certificates.
 */
public record SelfSignedCertificate(KeyPair keyPair, X509Certificate certificate) {

  private static final SecureRandom RANDOM = new SecureRandom();

  /** A CA certificate valid for {@code validity}. */
  public static SelfSignedCertificate certificateAuthority(String commonName, Duration validity) {
    return issue(commonName, List.of(), List.of(), validity, true, null, false);
  }

  /**
   * A serving certificate for the given DNS names and IP addresses, signed by {@code issuer} or,
   * when that is null, by itself.
   */
  public static SelfSignedCertificate serving(
      String commonName,
      List<String> dnsNames,
      List<String> ipAddresses,
      Duration validity,
      SelfSignedCertificate issuer) {
    return issue(commonName, dnsNames, ipAddresses, validity, false, issuer, false);
  }

  /** A client certificate: the common name is the user, the organizations are its groups. */
  public static SelfSignedCertificate client(
      String user, List<String> groups, Duration validity, SelfSignedCertificate issuer) {
    StringBuilder subject = new StringBuilder("CN=" + user);
    groups.forEach(group -> subject.append(",O=").append(group));
    return issue(subject.toString(), List.of(), List.of(), validity, false, issuer, true);
  }

  /**
   * A serving certificate for {@code localhost} and its loopback addresses, as upstream's
   * self-signed serving certificate names them. Not this host's name: finding it out may cost a DNS
   * lookup, which on a node whose DNS does not answer yet holds the manager's start for 10 s.
   */
  public static SelfSignedCertificate forLocalhost(Duration validity) {
    return serving("ccm4j", List.of("localhost"), List.of("127.0.0.1", "::1"), validity, null);
  }

  private static SelfSignedCertificate issue(
      String subject,
      List<String> dnsNames,
      List<String> ipAddresses,
      Duration validity,
      boolean isCa,
      SelfSignedCertificate issuer,
      boolean clientAuth) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(256, RANDOM);
      KeyPair keyPair = generator.generateKeyPair();
      X500Name subjectName = new X500Name(subject.startsWith("CN=") ? subject : "CN=" + subject);
      X500Name issuerName =
          issuer == null
              ? subjectName
              : X500Name.getInstance(issuer.certificate.getSubjectX500Principal().getEncoded());
      Instant now = Instant.now();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              issuerName,
              new BigInteger(63, RANDOM),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(validity)),
              subjectName,
              keyPair.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
      if (isCa) {
        builder.addExtension(
            Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      } else {
        builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        builder.addExtension(
            Extension.extendedKeyUsage,
            false,
            new ExtendedKeyUsage(
                clientAuth ? KeyPurposeId.id_kp_clientAuth : KeyPurposeId.id_kp_serverAuth));
      }
      List<GeneralName> names = new ArrayList<>();
      dnsNames.forEach(name -> names.add(new GeneralName(GeneralName.dNSName, name)));
      ipAddresses.forEach(ip -> names.add(new GeneralName(GeneralName.iPAddress, ip)));
      if (!names.isEmpty()) {
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(names.toArray(GeneralName[]::new)));
      }
      PrivateKey signingKey = issuer == null ? keyPair.getPrivate() : issuer.keyPair.getPrivate();
      ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(signingKey);
      X509Certificate certificate =
          new JcaX509CertificateConverter().getCertificate(builder.build(signer));
      return new SelfSignedCertificate(keyPair, certificate);
    } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
      throw new IllegalStateException("cannot create certificate for " + subject, e);
    }
  }

  /** The certificate in PEM. */
  public String certificatePem() {
    return pem(certificate);
  }

  /** The private key in PEM (PKCS#8). */
  public String privateKeyPem() {
    try {
      return pem(new JcaPKCS8Generator(keyPair.getPrivate(), null));
    } catch (PemGenerationException e) {
      throw new IllegalStateException("cannot encode the private key", e);
    }
  }

  /** The public key in PEM (X.509 SubjectPublicKeyInfo). */
  public String publicKeyPem() {
    return pem(keyPair.getPublic());
  }

  private static String pem(Object object) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** A key store holding the key and certificate under the alias {@code serving}. */
  public KeyStore toKeyStore(char[] password) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry(
          "serving", keyPair.getPrivate(), password, new X509Certificate[] {certificate});
      return store;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a key store", e);
    }
  }
}
