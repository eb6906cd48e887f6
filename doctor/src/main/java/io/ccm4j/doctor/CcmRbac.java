package io.ccm4j.doctor;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The RBAC of the manifests that only a cloud-controller-manager needs: a ClusterRole that may
 * patch or update nodes (to initialise them) and update services/status (to publish load
 * balancers), bound by a ClusterRoleBinding to a ServiceAccount. Node agents, CSI drivers and
 * cluster-autoscaler need at most one of the two.
 */
final class CcmRbac {

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** The ClusterRoles that grant both, by name. */
  private final Map<String, ClusterRole> ccmRoles;

  private final List<ClusterRoleBinding> bindings;

  private CcmRbac(Map<String, ClusterRole> ccmRoles, List<ClusterRoleBinding> bindings) {
    this.ccmRoles = ccmRoles;
    this.bindings = bindings;
  }

  static CcmRbac none() {
    return new CcmRbac(Map.of(), List.of());
  }

  /**
   * The ClusterRoles and ClusterRoleBindings among the documents; malformed ones are passed over.
   */
  static CcmRbac of(List<ManifestDocument> documents) {
    Map<String, List<PolicyRule>> rules = new LinkedHashMap<>();
    Map<String, ClusterRole> roles = new LinkedHashMap<>();
    List<ClusterRoleBinding> bindings = new ArrayList<>();
    for (ManifestDocument document : documents) {
      try {
        switch (document.kind()) {
          case "ClusterRole" -> {
            ClusterRole role = SERIALIZATION.convertValue(document.object(), ClusterRole.class);
            if (role.getMetadata() != null && role.getMetadata().getName() != null) {
              rules
                  .computeIfAbsent(role.getMetadata().getName(), name -> new ArrayList<>())
                  .addAll(role.getRules() == null ? List.of() : role.getRules());
              roles.put(role.getMetadata().getName(), role);
            }
          }
          case "ClusterRoleBinding" ->
              bindings.add(SERIALIZATION.convertValue(document.object(), ClusterRoleBinding.class));
          default -> {}
        }
      } catch (IllegalArgumentException e) {
        // Not judged here: RBAC is only a sign.
      }
    }
    roles.keySet().removeIf(name -> !grantsCcmWrites(rules.get(name)));
    return new CcmRbac(roles, bindings);
  }

  /**
   * The sign the RBAC gives for a pod's ServiceAccount ({@code namespace} may be null when the
   * manifest leaves it to {@code kubectl apply -n}).
   */
  Optional<CcmRecognition.Sign> signFor(String namespace, String serviceAccount) {
    String account =
        serviceAccount == null || serviceAccount.isEmpty() ? "default" : serviceAccount;
    for (ClusterRoleBinding binding : bindings) {
      if (binding.getRoleRef() == null
          || !"ClusterRole".equals(binding.getRoleRef().getKind())
          || !ccmRoles.containsKey(binding.getRoleRef().getName())
          || binding.getSubjects() == null) {
        continue;
      }
      for (Subject subject : binding.getSubjects()) {
        if (subject != null
            && "ServiceAccount".equals(subject.getKind())
            && account.equals(subject.getName())
            && (namespace == null || Objects.equals(namespace, subject.getNamespace()))) {
          return Optional.of(
              new CcmRecognition.Sign(
                  "ClusterRole %s, bound to its ServiceAccount %s, patches nodes and updates"
                          .formatted(binding.getRoleRef().getName(), account)
                      + " services/status",
                  2));
        }
      }
    }
    return Optional.empty();
  }

  private static boolean grantsCcmWrites(List<PolicyRule> rules) {
    return grants(rules, "nodes", List.of("patch", "update"))
        && grants(rules, "services/status", List.of("update", "patch"));
  }

  private static boolean grants(List<PolicyRule> rules, String resource, List<String> verbs) {
    return rules.stream()
        .filter(Objects::nonNull)
        .anyMatch(
            rule ->
                contains(rule.getApiGroups(), "")
                    && contains(rule.getResources(), resource)
                    && verbs.stream().anyMatch(verb -> contains(rule.getVerbs(), verb)));
  }

  private static boolean contains(List<String> values, String wanted) {
    return values != null && (values.contains(wanted) || values.contains("*"));
  }
}
