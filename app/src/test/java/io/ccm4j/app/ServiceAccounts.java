package io.ccm4j.app;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/** ServiceAccounts for tests, and their tokens from the TokenRequest API. */
public final class ServiceAccounts {

  private ServiceAccounts() {}

  /** Creates {@code namespace/name}, or leaves the one there is. */
  public static void create(KubernetesClient admin, String namespace, String name) {
    admin
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(namespace)
                .endMetadata()
                .build())
        .createOr(existing -> existing.update());
  }

  /** A token of {@code namespace/name} valid for an hour. */
  public static String token(KubernetesClient admin, String namespace, String name) {
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
