package io.ccm4j.runtime.serving;

import java.net.http.HttpClient;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * An HTTP client for a {@link ManagementServer} on loopback serving the in-memory self-signed
 * certificate ({@link ServingKeys#selfSigned()}): it trusts any certificate, so it is for such
 * local endpoints only (benchmarks and tests).
 */
public final class LocalManagerHttp {

  private LocalManagerHttp() {}

  public static HttpClient client() {
    return client(null);
  }

  /**
   * The same, presenting the client certificate of {@code clientKeys} (its one key entry) when the
   * server asks for one; none when null.
   */
  public static HttpClient client(KeyStore clientKeys, char[] password) {
    try {
      KeyManagerFactory keys =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(clientKeys, password);
      return client(keys.getKeyManagers());
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("unusable client certificate: " + e.getMessage(), e);
    }
  }

  private static HttpClient client(KeyManager[] clientKeys) {
    try {
      SSLContext trustAll = SSLContext.getInstance("TLS");
      trustAll.init(
          clientKeys,
          new TrustManager[] {
            new X509TrustManager() {
              @Override
              public void checkClientTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public void checkServerTrusted(X509Certificate[] chain, String authType) {}

              @Override
              public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
              }
            }
          },
          null);
      SSLParameters parameters = new SSLParameters();
      parameters.setEndpointIdentificationAlgorithm("");
      return HttpClient.newBuilder()
          .sslContext(trustAll)
          .sslParameters(parameters)
          .connectTimeout(Duration.ofSeconds(2))
          .build();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("no TLS in this JVM", e);
    }
  }
}
