package io.ccm4j.doctor;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodelifecycle.Tolerations;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a CCM workload's pod spec says: which taints it tolerates, where its node selection lets it
 * run, whether two of it may run at once. Queries only; {@link Checks} and {@link Fixes} use them.
 */
final class PodSpecs {

  private PodSpecs() {}

  static final Taint UNINITIALIZED =
      new TaintBuilder()
          .withKey(WellKnownTaints.UNINITIALIZED)
          .withValue("true")
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();
  static final Taint NOT_READY_NO_SCHEDULE =
      new TaintBuilder()
          .withKey(WellKnownTaints.NODE_NOT_READY)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();
  static final Taint NOT_READY_NO_EXECUTE =
      new TaintBuilder()
          .withKey(WellKnownTaints.NODE_NOT_READY)
          .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
          .build();
  static final Taint NETWORK_UNAVAILABLE =
      new TaintBuilder()
          .withKey(WellKnownTaints.NODE_NETWORK_UNAVAILABLE)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();
  static final Taint CONTROL_PLANE =
      new TaintBuilder()
          .withKey(WellKnownTaints.CONTROL_PLANE)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();
  static final Taint MASTER =
      new TaintBuilder()
          .withKey(WellKnownTaints.MASTER)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();

  /** Where a pod's node selection lets it run. */
  enum Placement {
    CONTROL_PLANE,
    /** Only nodes with the master label, which kubeadm no longer sets since Kubernetes 1.24. */
    MASTER_ONLY,
    ANYWHERE
  }

  /**
   * The not-ready taint's effects that matter: NoSchedule when the scheduler places the pod,
   * NoExecute unless the DaemonSet controller adds that toleration itself; none for a static pod.
   */
  static boolean toleratesNotReady(CcmWorkload workload) {
    return missingNotReadyTolerations(workload).isEmpty();
  }

  /** The not-ready effects that matter and the pod does not tolerate, each with what it does. */
  static List<String> missingNotReadyTolerations(CcmWorkload workload) {
    PodSpec pod = workload.pod();
    List<String> missing = new ArrayList<>();
    if (!workload.bypassesScheduler() && !tolerates(pod, NOT_READY_NO_SCHEDULE)) {
      missing.add("node.kubernetes.io/not-ready:NoSchedule (keeps it from being scheduled)");
    }
    if (!workload.isStaticPod()
        && !(workload.object() instanceof DaemonSet)
        && !staysDespite(pod, NOT_READY_NO_EXECUTE)) {
      missing.add("node.kubernetes.io/not-ready:NoExecute (evicts it)");
    }
    return missing;
  }

  /**
   * Whether the pod stays on a node with this NoExecute taint: a toleration matches it, and none of
   * those that match evicts at once. The taint manager evicts after the least tolerationSeconds of
   * the matching tolerations, and at once when one of them is 0 or less.
   */
  static boolean staysDespite(PodSpec pod, Taint taint) {
    List<Toleration> tolerations = pod.getTolerations() == null ? List.of() : pod.getTolerations();
    List<Toleration> matching =
        tolerations.stream().filter(t -> t != null && Tolerations.tolerates(t, taint)).toList();
    return !matching.isEmpty() && matching.stream().noneMatch(PodSpecs::evictsAtOnce);
  }

  /** A toleration with tolerationSeconds of 0 or less: it lets the pod be evicted at once. */
  static boolean evictsAtOnce(Toleration toleration) {
    return toleration.getTolerationSeconds() != null && toleration.getTolerationSeconds() <= 0;
  }

  /**
   * Whether the pod tolerates node.kubernetes.io/network-unavailable: itself, or through the
   * DaemonSet controller, which adds that toleration to the pods of a DaemonSet on the host
   * network.
   */
  static boolean toleratesNetworkUnavailable(CcmWorkload workload) {
    return tolerates(workload.pod(), NETWORK_UNAVAILABLE)
        || (workload.object() instanceof DaemonSet
            && Boolean.TRUE.equals(workload.pod().getHostNetwork()));
  }

  static boolean tolerates(PodSpec pod, Taint taint) {
    List<Toleration> tolerations = pod.getTolerations() == null ? List.of() : pod.getTolerations();
    return tolerations.stream().anyMatch(t -> Tolerations.tolerates(t, taint));
  }

  /**
   * Why each toleration naming the taint's key still does not tolerate it (the real rules: {@code
   * Exists} matches any value, {@code Equal} (the default) only the taint's value, an empty effect
   * every effect), one sentence each; empty when none names the key.
   */
  static List<String> nearMisses(PodSpec pod, Taint taint) {
    List<Toleration> tolerations = pod.getTolerations() == null ? List.of() : pod.getTolerations();
    List<String> misses = new ArrayList<>();
    for (Toleration t : tolerations) {
      if (t == null || !taint.getKey().equals(t.getKey())) {
        continue;
      }
      if (Tolerations.tolerates(t, taint)) {
        if (WellKnownTaints.EFFECT_NO_EXECUTE.equals(taint.getEffect()) && evictsAtOnce(t)) {
          misses.add(
              "It tolerates %s:%s with tolerationSeconds: %d, which evicts it at once (leave"
                      .formatted(taint.getKey(), taint.getEffect(), t.getTolerationSeconds())
                  + " tolerationSeconds out to stay).");
        }
        continue;
      }
      String operator =
          t.getOperator() == null || t.getOperator().isEmpty() ? "Equal" : t.getOperator();
      String effect = t.getEffect() == null || t.getEffect().isEmpty() ? "" : t.getEffect();
      String value = t.getValue() == null ? "" : t.getValue();
      String taintValue = taint.getValue() == null ? "" : taint.getValue();
      String why;
      String hint;
      if (!operator.equals("Equal") && !operator.equals("Exists")) {
        why = "operator " + operator + " is neither Equal nor Exists";
        hint = "operator: Exists matches any value";
      } else if (!effect.isEmpty() && !effect.equals(taint.getEffect())) {
        why = "the taint's effect is " + taint.getEffect();
        hint = "a toleration without an effect matches every effect";
      } else {
        why =
            taintValue.isEmpty()
                ? "the taint's value is empty"
                : "the taint's value is \"" + taintValue + "\"";
        hint = "operator: Exists matches any value";
      }
      misses.add(
          "It tolerates %s%s:%s with operator %s, but %s, so it does not match (%s)."
              .formatted(
                  t.getKey(),
                  value.isEmpty() ? "" : "=" + value,
                  effect.isEmpty() ? "(all effects)" : effect,
                  operator,
                  why,
                  hint));
    }
    return misses;
  }

  /**
   * Where the nodeSelector and the required node affinity (ANDed) let the pod run. A term (the
   * terms ORed) asking for the master label ({@code Exists} or {@code In}, whatever else it asks),
   * or for the legacy {@code kubernetes.io/role In [master]}, is master-only: no node of a current
   * cluster has it; one asking for the control-plane label alone places the pod on control-plane
   * nodes; any other term lets it run anywhere. Preferred node affinity is only a preference and is
   * not read.
   */
  static Placement placement(PodSpec pod) {
    Map<String, String> selector = pod.getNodeSelector() == null ? Map.of() : pod.getNodeSelector();
    Placement byAffinity = affinityPlacement(requiredNodeSelectorTerms(pod));
    if (selectsMasterRole(selector) || byAffinity == Placement.MASTER_ONLY) {
      return Placement.MASTER_ONLY;
    }
    if (selector.containsKey(WellKnownLabels.ROLE_CONTROL_PLANE)) {
      return Placement.CONTROL_PLANE;
    }
    return byAffinity;
  }

  private static Placement affinityPlacement(List<NodeSelectorTerm> terms) {
    if (terms.isEmpty()) {
      return Placement.ANYWHERE;
    }
    List<Placement> each = terms.stream().map(PodSpecs::termPlacement).toList();
    if (each.contains(Placement.ANYWHERE)) {
      return Placement.ANYWHERE;
    }
    return each.contains(Placement.CONTROL_PLANE) ? Placement.CONTROL_PLANE : Placement.MASTER_ONLY;
  }

  private static Placement termPlacement(NodeSelectorTerm term) {
    List<NodeSelectorRequirement> expressions =
        term.getMatchExpressions() == null ? List.of() : term.getMatchExpressions();
    if (expressions.stream().anyMatch(PodSpecs::asksMasterRole)) {
      return Placement.MASTER_ONLY;
    }
    return expressions.stream().anyMatch(r -> requiresLabel(r, WellKnownLabels.ROLE_CONTROL_PLANE))
        ? Placement.CONTROL_PLANE
        : Placement.ANYWHERE;
  }

  /**
   * The value a pod asks the control-plane label to have where one that kubeadm's nodes (which
   * carry the label with an empty value) cannot give: a nodeSelector entry with a value, or a
   * required {@code In} whose values leave out the empty one.
   */
  static Optional<String> controlPlaneLabelValue(PodSpec pod) {
    Map<String, String> selector = pod.getNodeSelector() == null ? Map.of() : pod.getNodeSelector();
    String selected = selector.get(WellKnownLabels.ROLE_CONTROL_PLANE);
    if (selected != null && !selected.isEmpty()) {
      return Optional.of(
          "nodeSelector " + WellKnownLabels.ROLE_CONTROL_PLANE + ": \"" + selected + "\"");
    }
    return requiredNodeSelectorTerms(pod).stream()
        .filter(term -> term.getMatchExpressions() != null)
        .flatMap(term -> term.getMatchExpressions().stream())
        .filter(PodSpecs::asksControlPlaneValue)
        .findFirst()
        .map(r -> "required node affinity " + r.getKey() + " In " + r.getValues());
  }

  static boolean asksControlPlaneValue(NodeSelectorRequirement r) {
    return r != null
        && WellKnownLabels.ROLE_CONTROL_PLANE.equals(r.getKey())
        && "In".equals(r.getOperator())
        && (r.getValues() == null || !r.getValues().contains(""));
  }

  /** Whether a nodeSelector asks for the master role: its label, or the legacy one's master. */
  static boolean selectsMasterRole(Map<String, String> selector) {
    return selector.containsKey(WellKnownLabels.ROLE_MASTER)
        || "master".equals(selector.get(LEGACY_ROLE));
  }

  /** The legacy role label some installers set beside the role's own ({@code master}). */
  static final String LEGACY_ROLE = "kubernetes.io/role";

  /**
   * Whether the requirement asks for the master role: the master label, or the legacy role label
   * {@code In [master]}. Either matches only a cluster's control-plane nodes, and only where an
   * installer still sets it.
   */
  static boolean asksMasterRole(NodeSelectorRequirement requirement) {
    return requiresLabel(requirement, WellKnownLabels.ROLE_MASTER)
        || (requirement != null
            && LEGACY_ROLE.equals(requirement.getKey())
            && "In".equals(requirement.getOperator())
            && requirement.getValues() != null
            && requirement.getValues().equals(List.of("master")));
  }

  static boolean requiresLabel(NodeSelectorRequirement requirement, String key) {
    return requirement != null
        && key.equals(requirement.getKey())
        && ("Exists".equals(requirement.getOperator()) || "In".equals(requirement.getOperator()));
  }

  static List<NodeSelectorTerm> requiredNodeSelectorTerms(PodSpec pod) {
    return requiredNodeSelectorTermsAsListed(pod).stream().filter(Objects::nonNull).toList();
  }

  /**
   * The required node affinity's terms as the pod spec lists them, null entries kept (so an index
   * is the term's place in the manifest); empty when it has none.
   */
  static List<NodeSelectorTerm> requiredNodeSelectorTermsAsListed(PodSpec pod) {
    var affinity = pod.getAffinity();
    if (affinity == null
        || affinity.getNodeAffinity() == null
        || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null
        || affinity
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms()
            == null) {
      return List.of();
    }
    return affinity
        .getNodeAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms();
  }

  /** The preferred node affinity's terms (weights dropped); empty when it has none. */
  static List<NodeSelectorTerm> preferredNodeSelectorTerms(PodSpec pod) {
    var affinity = pod.getAffinity();
    if (affinity == null
        || affinity.getNodeAffinity() == null
        || affinity.getNodeAffinity().getPreferredDuringSchedulingIgnoredDuringExecution()
            == null) {
      return List.of();
    }
    return affinity.getNodeAffinity().getPreferredDuringSchedulingIgnoredDuringExecution().stream()
        .filter(Objects::nonNull)
        .map(term -> term.getPreference())
        .filter(Objects::nonNull)
        .toList();
  }

  /** Whether a preferred node affinity term asks for the label ({@code Exists} or {@code In}). */
  static boolean prefersLabel(PodSpec pod, String key) {
    return preferredNodeSelectorTerms(pod).stream()
        .anyMatch(
            term ->
                term.getMatchExpressions() != null
                    && term.getMatchExpressions().stream().anyMatch(r -> requiresLabel(r, key)));
  }

  static Affinity affinityOf(PodSpec pod) {
    return pod.getAffinity() == null ? new Affinity() : pod.getAffinity();
  }

  /**
   * Whether two pods of the workload may run at once: more than one replica, or a Deployment whose
   * rollout surges (the default RollingUpdate starts the new pod before the old one stops).
   */
  static boolean mayRunTwo(CcmWorkload workload) {
    return workload.maxPods() > 1 || surges(workload);
  }

  /**
   * Whether the workload's rolling update may start a pod before the one it replaces stops: a
   * Deployment's by default (25 %), a DaemonSet's only when its {@code maxSurge} says so (then on
   * the same node as the old pod).
   */
  static boolean surges(CcmWorkload workload) {
    if (workload.object() instanceof Deployment deployment) {
      return surges(deployment.getSpec().getStrategy());
    }
    if (workload.object() instanceof DaemonSet daemonSet) {
      return surges(daemonSet.getSpec().getUpdateStrategy());
    }
    return false;
  }

  /** Whether a DaemonSet's rolling update surges: only with a {@code maxSurge} other than 0. */
  static boolean surges(DaemonSetUpdateStrategy strategy) {
    if (strategy == null
        || "OnDelete".equals(strategy.getType())
        || strategy.getRollingUpdate() == null
        || strategy.getRollingUpdate().getMaxSurge() == null) {
      return false;
    }
    return !isZero(strategy.getRollingUpdate().getMaxSurge());
  }

  /** Whether a rolling update may start a pod before one stops (the default: 25% surge). */
  static boolean surges(DeploymentStrategy strategy) {
    if (strategy == null) {
      return true;
    }
    if ("Recreate".equals(strategy.getType())) {
      return false;
    }
    if (strategy.getRollingUpdate() == null || strategy.getRollingUpdate().getMaxSurge() == null) {
      return true;
    }
    return !isZero(strategy.getRollingUpdate().getMaxSurge());
  }

  private static boolean isZero(IntOrString value) {
    return value.getIntVal() != null
        ? value.getIntVal() == 0
        : List.of("0", "0%").contains(value.getStrVal());
  }

  static boolean hasRequiredHostnameAntiAffinity(PodSpec pod) {
    return requiredAntiAffinity(pod).stream()
        .anyMatch(t -> t != null && WellKnownLabels.HOSTNAME.equals(t.getTopologyKey()));
  }

  static List<PodAffinityTerm> requiredAntiAffinity(PodSpec pod) {
    var affinity = pod.getAffinity();
    if (affinity == null
        || affinity.getPodAntiAffinity() == null
        || affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution()
            == null) {
      return List.of();
    }
    return affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
  }

  static boolean hasHostnameAntiAffinity(PodSpec pod) {
    if (hasRequiredHostnameAntiAffinity(pod)) {
      return true;
    }
    var affinity = pod.getAffinity();
    if (affinity == null || affinity.getPodAntiAffinity() == null) {
      return false;
    }
    var preferred =
        affinity.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution();
    return preferred != null
        && preferred.stream()
            .anyMatch(
                t ->
                    t != null
                        && t.getPodAffinityTerm() != null
                        && WellKnownLabels.HOSTNAME.equals(
                            t.getPodAffinityTerm().getTopologyKey()));
  }
}
