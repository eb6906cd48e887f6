package io.ccm4j.runtime.serving;

import java.security.cert.X509Certificate;
import java.util.Optional;

/** Who may read what on the serving port. */
public interface AccessControl {

  /**
   * Why a request is refused: its HTTP status, the Kubernetes {@code Status} reason and message.
   */
  record Denial(int status, String reason, String message) {}

  /** Everyone may read everything: for in-process tests and tools on loopback. */
  AccessControl ALLOW_ALL = (method, path, authorization) -> Optional.empty();

  /**
   * Empty when the request may be served.
   *
   * @param authorization the request's {@code Authorization} header, if any
   */
  Optional<Denial> check(String method, String path, Optional<String> authorization);

  /**
   * The same for a request whose TLS handshake presented a client certificate that one of the
   * serving port's client CAs ({@code --client-ca-file}) issued, if one did; by default the
   * certificate does not count.
   *
   * @param clientCertificate the verified client certificate (the chain's first)
   */
  default Optional<Denial> check(
      String method,
      String path,
      Optional<String> authorization,
      Optional<X509Certificate> clientCertificate) {
    return check(method, path, authorization);
  }
}
