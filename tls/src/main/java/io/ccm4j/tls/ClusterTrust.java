package io.ccm4j.tls;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.internal.CertUtils;
import io.fabric8.kubernetes.client.internal.SSLUtils;
import java.io.IOException;
import java.io.InputStream;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Optional;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * The API server's certificate checked against the cluster's CA alone when the client's
 * configuration names one (a kubeconfig's {@code certificate-authority[-data]}, the service
 * account's {@code ca.crt} in a pod), as client-go checks it. fabric8 adds that CA to the JDK's
 * default trust store, some 145 public CAs, so a certificate any of them issued for the API
 * server's name or address would be taken for the cluster's. With no CA named, or verification
 * switched off ({@code insecure-skip-tls-verify}), or a trust store of the operator's own,
 * fabric8's choice stands.
 */
public final class ClusterTrust {

  private ClusterTrust() {}

  /** Makes {@code http} trust the cluster's CA alone, when {@code config} names one. */
  public static void apply(HttpClient.Builder http, Config config) {
    trustManagers(config)
        .ifPresent(
            trust -> {
              try {
                http.sslContext(SSLUtils.keyManagers(config), trust);
              } catch (GeneralSecurityException | IOException e) {
                throw new KubernetesClientException(
                    "cannot read the client certificate: " + e.getMessage(), e);
              }
            });
  }

  /** The trust managers of the cluster's CA; empty when fabric8's are to stand. */
  public static Optional<TrustManager[]> trustManagers(Config config) {
    if (config.isTrustCerts()
        || isSet(config.getTrustStoreFile())
        || !isSet(config.getCaCertData()) && !isSet(config.getCaCertFile())) {
      return Optional.empty();
    }
    try (InputStream pem =
        CertUtils.getInputStreamFromDataOrFile(config.getCaCertData(), config.getCaCertFile())) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      int index = 0;
      for (Certificate ca : CertificateFactory.getInstance("X.509").generateCertificates(pem)) {
        store.setCertificateEntry("cluster-ca-" + index++, ca);
      }
      if (index == 0) {
        throw new KubernetesClientException("the cluster's CA holds no certificate");
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return Optional.of(factory.getTrustManagers());
    } catch (GeneralSecurityException | IOException e) {
      throw new KubernetesClientException("cannot read the cluster's CA: " + e.getMessage(), e);
    }
  }

  private static boolean isSet(String value) {
    return value != null && !value.isBlank();
  }
}
