package io.ccm4j.app;

import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/** Tokens for ServiceAccounts, from the TokenRequest API. */
final class ServiceAccountTokens {

  private ServiceAccountTokens() {}

  /** A token of {@code namespace/name} valid for an hour. */
  static String request(KubernetesClient admin, String namespace, String name) {
    return admin
        .serviceAccounts()
        .inNamespace(namespace)
        .withName(name)
        .tokenRequest(
            new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L).endSpec().build())
        .getStatus()
        .getToken();
  }
}
