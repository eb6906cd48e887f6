package io.ccm4j.controllers;

import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/** What a namespace needs before the tests' API server admits pods in it. */
public final class PodNamespaces {

  private PodNamespaces() {}

  /**
   * Creates the namespace's {@code default} ServiceAccount unless it exists: the ServiceAccount
   * admission plugin refuses pods without it, and nothing runs kube-controller-manager's controller
   * that creates it here.
   */
  public static void defaultServiceAccount(KubernetesClient client, String namespace) {
    client
        .serviceAccounts()
        .inNamespace(namespace)
        .resource(
            new ServiceAccountBuilder().withNewMetadata().withName("default").endMetadata().build())
        .createOr(existing -> existing.update());
  }
}
