package io.ccm4j.controllers;

import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;

/**
 * A ValidatingAdmissionPolicy and its binding that refuse updates of core objects whose name starts
 * with a prefix: a write the API server denies, for the tests of what a controller does then.
 * {@link #close} lifts the denial. The API server applies a new policy some moments after its
 * creation, so a test waits until a probe's write is refused.
 */
public final class AdmissionDenial implements AutoCloseable {

  private static final String API_VERSION = "admissionregistration.k8s.io/v1";

  private final KubernetesClient client;
  private final String policy;

  private AdmissionDenial(KubernetesClient client, String policy) {
    this.client = client;
    this.policy = policy;
  }

  /**
   * Denies {@code UPDATE} of these core {@code resources} ("pods/status", "services") to objects
   * whose name starts with {@code namePrefix}, with {@code message}.
   */
  public static AdmissionDenial ofUpdates(
      KubernetesClient client,
      String policy,
      List<String> resources,
      String namePrefix,
      String message) {
    client
        .resource(
            new GenericKubernetesResourceBuilder()
                .withApiVersion(API_VERSION)
                .withKind("ValidatingAdmissionPolicy")
                .withNewMetadata()
                .withName(policy)
                .endMetadata()
                .addToAdditionalProperties(
                    "spec",
                    Map.of(
                        "failurePolicy",
                        "Fail",
                        "matchConstraints",
                        Map.of(
                            "resourceRules",
                            List.of(
                                Map.of(
                                    "apiGroups", List.of(""),
                                    "apiVersions", List.of("v1"),
                                    "operations", List.of("UPDATE"),
                                    "resources", resources))),
                        "validations",
                        List.of(
                            Map.of(
                                "expression",
                                "!object.metadata.name.startsWith('" + namePrefix + "')",
                                "message",
                                message))))
                .build())
        .create();
    client
        .resource(
            new GenericKubernetesResourceBuilder()
                .withApiVersion(API_VERSION)
                .withKind("ValidatingAdmissionPolicyBinding")
                .withNewMetadata()
                .withName(policy)
                .endMetadata()
                .addToAdditionalProperties(
                    "spec", Map.of("policyName", policy, "validationActions", List.of("Deny")))
                .build())
        .create();
    return new AdmissionDenial(client, policy);
  }

  @Override
  public void close() {
    client
        .genericKubernetesResources(API_VERSION, "ValidatingAdmissionPolicyBinding")
        .withName(policy)
        .delete();
    client
        .genericKubernetesResources(API_VERSION, "ValidatingAdmissionPolicy")
        .withName(policy)
        .delete();
  }
}
