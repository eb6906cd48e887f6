package io.ccm4j.runtime.serving;

import io.fabric8.kubernetes.client.Config;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;

/**
 * Who may read the serving port (upstream's delegated authn/authz options): the paths anyone may
 * read, the API servers the token and access reviews go to when not the manager's own ({@code
 * --authentication-kubeconfig}, {@code --authorization-kubeconfig}), and the authorities whose
 * client certificates name a user ({@code --client-ca-file}; none: tokens only).
 */
public record ServingAccess(
    List<String> alwaysAllowPaths,
    Optional<Config> authentication,
    Optional<Config> authorization,
    List<X509Certificate> clientCas) {

  /** Upstream's {@code --authorization-always-allow-paths}: the health endpoints. */
  public static final List<String> DEFAULT_ALWAYS_ALLOW_PATHS =
      List.of("/healthz", "/readyz", "/livez");

  public ServingAccess {
    alwaysAllowPaths = List.copyOf(alwaysAllowPaths);
    clientCas = List.copyOf(clientCas);
  }

  /** The health endpoints for anyone, reviews with the manager's own client. */
  public static ServingAccess defaults() {
    return allowing(DEFAULT_ALWAYS_ALLOW_PATHS);
  }

  /** These paths for anyone, reviews with the manager's own client. */
  public static ServingAccess allowing(List<String> alwaysAllowPaths) {
    return new ServingAccess(alwaysAllowPaths, Optional.empty(), Optional.empty(), List.of());
  }
}
