package io.ccm4j.doctor;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodelifecycle.Tolerations;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.PodAffinityTerm;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategyBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** Checks cloud-controller-manager workloads against {@link Rule}, and fixes what can be fixed. */
public final class Doctor {

  private static final Taint UNINITIALIZED =
      new TaintBuilder()
          .withKey(WellKnownTaints.UNINITIALIZED)
          .withValue("true")
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();
  private static final Taint NOT_READY_NO_SCHEDULE =
      new TaintBuilder()
          .withKey(WellKnownTaints.NODE_NOT_READY)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();
  private static final Taint NOT_READY_NO_EXECUTE =
      new TaintBuilder()
          .withKey(WellKnownTaints.NODE_NOT_READY)
          .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
          .build();
  private static final Taint NETWORK_UNAVAILABLE =
      new TaintBuilder()
          .withKey(WellKnownTaints.NODE_NETWORK_UNAVAILABLE)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();
  private static final Taint CONTROL_PLANE =
      new TaintBuilder()
          .withKey(WellKnownTaints.CONTROL_PLANE)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();
  private static final Taint MASTER =
      new TaintBuilder()
          .withKey(WellKnownTaints.MASTER)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();

  /** The labels that mark a control-plane node, either of which places the CCM there. */
  private static final Set<String> CONTROL_PLANE_LABELS =
      Set.of(WellKnownLabels.ROLE_CONTROL_PLANE, WellKnownLabels.ROLE_MASTER);

  /** Where a pod's node selection lets it run. */
  enum Placement {
    CONTROL_PLANE,
    /** Only nodes with the master label, which kubeadm no longer sets since Kubernetes 1.24. */
    MASTER_ONLY,
    ANYWHERE
  }

  private Doctor() {}

  /**
   * The CCM workloads among the documents.
   *
   * @throws ManifestException naming the file and line of a document that is no valid object
   */
  public static List<CcmWorkload> workloads(List<ManifestDocument> documents)
      throws ManifestException {
    List<CcmWorkload> workloads = new ArrayList<>();
    for (ManifestDocument document : documents) {
      CcmWorkload.detect(document).ifPresent(workloads::add);
    }
    return workloads;
  }

  /**
   * When no CCM is found: the workloads that pass {@code --cloud-provider} all the same
   * (kube-controller-manager, cluster-autoscaler, a node agent, or a CCM not recognised), one line
   * each.
   */
  public static List<String> notCcmsPassingCloudProvider(List<ManifestDocument> documents) {
    List<String> lines = new ArrayList<>();
    for (ManifestDocument document : documents) {
      CcmWorkload.notACcmButPassesCloudProvider(document).ifPresent(lines::add);
    }
    return lines;
  }

  /**
   * The input again, every object in its order, with each CCM workload replaced by its (fixed)
   * version: {@code --fix}'s output, a drop-in for the input (ServiceAccounts, RBAC, Secrets stay).
   * Objects of a {@code kind: List} come out one document each; comments are not kept.
   */
  public static String manifestsWith(
      List<ManifestDocument> documents, List<CcmWorkload> workloads) {
    Map<ManifestDocument, CcmWorkload> bySource = new java.util.IdentityHashMap<>();
    workloads.forEach(workload -> bySource.put(workload.source(), workload));
    List<String> yaml = new ArrayList<>();
    for (ManifestDocument document : documents) {
      CcmWorkload workload = bySource.get(document);
      String text = workload != null ? workload.toYaml() : CcmWorkload.yaml(document.object());
      yaml.add(text.startsWith("---\n") ? text.substring(4) : text);
    }
    return String.join("---\n", yaml);
  }

  /** Every rule the workload violates. */
  public static List<Rule> check(CcmWorkload workload) {
    PodSpec pod = workload.pod();
    List<Rule> violated = new ArrayList<>();
    // The scheduler never sees a static pod or a pod with spec.nodeName: NoSchedule taints and
    // node selection do not apply, and the kubelet admits a static pod whatever its taints.
    boolean scheduled = !workload.bypassesScheduler();
    // Another component (a cloud-node-manager) may initialise nodes: then nothing waits on this
    // CCM.
    if (scheduled && workload.initialisesNodes() && !tolerates(pod, UNINITIALIZED)) {
      violated.add(Rule.TOLERATE_UNINITIALIZED);
    }
    if (scheduled && workload.createsRoutes() && !tolerates(pod, NETWORK_UNAVAILABLE)) {
      violated.add(Rule.TOLERATE_NETWORK_UNAVAILABLE);
    }
    if (!toleratesNotReady(workload)) {
      violated.add(Rule.TOLERATE_NOT_READY);
    }
    if (!Boolean.TRUE.equals(pod.getHostNetwork())) {
      violated.add(Rule.HOST_NETWORK);
    }
    if (workload.leaderElectionOff() && mayRunTwo(workload)) {
      violated.add(Rule.LEADER_ELECTION);
    }
    if (scheduled) {
      Placement placement = placement(pod);
      if (placement != Placement.ANYWHERE && !tolerates(pod, CONTROL_PLANE)) {
        violated.add(Rule.TOLERATE_CONTROL_PLANE);
      }
      if (placement == Placement.ANYWHERE) {
        violated.add(Rule.CONTROL_PLANE_PLACEMENT);
      }
      if (placement == Placement.MASTER_ONLY) {
        violated.add(Rule.MASTER_SELECTOR);
      }
      if (workload.maxPods() > 1
          && !(workload.object() instanceof DaemonSet)
          && !hasHostnameAntiAffinity(pod)) {
        violated.add(Rule.ANTI_AFFINITY);
      }
      if (workload.object() instanceof Deployment deployment
          && surges(deployment.getSpec().getStrategy())
          && (Boolean.TRUE.equals(pod.getHostNetwork())
              || (workload.maxPods() > 1 && hasRequiredHostnameAntiAffinity(pod)))) {
        violated.add(Rule.ROLLING_UPDATE);
      }
    }
    if ("Pod".equals(workload.kind()) && !workload.isStaticPod()) {
      violated.add(Rule.SCALABLE_WORKLOAD);
    }
    return violated;
  }

  /**
   * The findings for one workload.
   *
   * @throws ManifestException naming the workload's file and line when its content cannot be judged
   *     (an empty item where an object belongs)
   */
  public static List<Finding> findings(CcmWorkload workload) throws ManifestException {
    try {
      return check(workload).stream().map(rule -> finding(workload, rule)).toList();
    } catch (RuntimeException e) {
      throw unreadable(workload, e);
    }
  }

  /**
   * A finding, with its severity and wording for this workload where they depend on it: a missing
   * not-ready toleration deadlocks only when the CCM is on the CNI's critical path (it needs the
   * pod network, or hands out the pod CIDRs or routes the CNI waits for); otherwise it delays the
   * CCM until the CNI is up. The message names the effects that are missing.
   */
  private static Finding finding(CcmWorkload workload, Rule rule) {
    if (rule != Rule.TOLERATE_NOT_READY) {
      return Finding.of(workload, rule);
    }
    PodSpec pod = workload.pod();
    boolean onCniPath =
        !Boolean.TRUE.equals(pod.getHostNetwork())
            || workload.allocatesNodeCidrs()
            || workload.createsRoutes();
    String consequence =
        "It does not tolerate "
            + String.join(" nor ", missingNotReadyTolerations(workload))
            + "; new nodes are not ready until the CNI runs. "
            + (onCniPath
                ? "The CNI waits for this CCM (it needs the pod network, or gives the pod CIDRs or"
                    + " routes the CNI waits for): deadlock."
                : "The CCM runs on the host network and hands out no pod CIDRs or routes, so it"
                    + " only starts once the CNI has: slower, not a deadlock, unless the CNI waits"
                    + " for the node addresses this CCM sets (some do, to pick the node's IP): then"
                    + " it is one.");
    return Finding.of(
        workload, rule, onCniPath ? Rule.Severity.ERROR : Rule.Severity.WARNING, consequence);
  }

  /** All findings for all workloads. */
  public static List<Finding> examine(List<ManifestDocument> documents) throws ManifestException {
    List<Finding> findings = new ArrayList<>();
    for (CcmWorkload workload : workloads(documents)) {
      findings.addAll(findings(workload));
    }
    return findings;
  }

  /**
   * Changes the workload in place so that every fixable rule passes.
   *
   * @throws ManifestException as {@link #findings}
   */
  public static void fix(CcmWorkload workload) throws ManifestException {
    try {
      fixInPlace(workload);
    } catch (RuntimeException e) {
      throw unreadable(workload, e);
    }
  }

  private static ManifestException unreadable(CcmWorkload workload, RuntimeException e) {
    return new ManifestException(
        "%s: %s/%s: cannot be judged: %s"
            .formatted(workload.source().location(), workload.kind(), workload.name(), e));
  }

  private static void fixInPlace(CcmWorkload workload) {
    PodSpec pod = workload.pod();
    boolean scheduled = !workload.bypassesScheduler();
    if (scheduled && !tolerates(pod, UNINITIALIZED)) {
      addToleration(pod, WellKnownTaints.UNINITIALIZED, WellKnownTaints.EFFECT_NO_SCHEDULE);
    }
    if (!toleratesNotReady(workload)) {
      addToleration(pod, WellKnownTaints.NODE_NOT_READY, null);
    }
    if (scheduled && workload.createsRoutes() && !tolerates(pod, NETWORK_UNAVAILABLE)) {
      addToleration(
          pod, WellKnownTaints.NODE_NETWORK_UNAVAILABLE, WellKnownTaints.EFFECT_NO_SCHEDULE);
    }
    pod.setHostNetwork(true);
    if (mayRunTwo(workload)) {
      for (Container container : pod.getContainers()) {
        if (container.getArgs() != null) {
          container.setArgs(CcmFlags.withLeaderElection(container.getArgs()));
        }
        if (container.getCommand() != null) {
          container.setCommand(CcmFlags.withLeaderElection(container.getCommand()));
        }
      }
    }
    if (!scheduled) {
      return;
    }
    Placement placement = placement(pod);
    boolean toleratesControlPlane = tolerates(pod, CONTROL_PLANE);
    if (placement != Placement.CONTROL_PLANE) {
      placeOnControlPlane(pod);
    }
    if (!toleratesControlPlane) {
      addToleration(pod, WellKnownTaints.CONTROL_PLANE, WellKnownTaints.EFFECT_NO_SCHEDULE);
    }
    if ((placement != Placement.CONTROL_PLANE || !toleratesControlPlane)
        && !tolerates(pod, MASTER)) {
      addToleration(pod, WellKnownTaints.MASTER, WellKnownTaints.EFFECT_NO_SCHEDULE);
    }
    if (workload.maxPods() > 1
        && !(workload.object() instanceof DaemonSet)
        && !hasHostnameAntiAffinity(pod)
        && !workload.podLabels().isEmpty()) {
      // Added to what is there: other anti-affinity terms stay.
      pod.setAffinity(
          new AffinityBuilder(affinityOf(pod))
              .editOrNewPodAntiAffinity()
              .addToRequiredDuringSchedulingIgnoredDuringExecution(
                  new PodAffinityTermBuilder()
                      .withTopologyKey(WellKnownLabels.HOSTNAME)
                      .withLabelSelector(
                          new LabelSelectorBuilder().withMatchLabels(workload.podLabels()).build())
                      .build())
              .endPodAntiAffinity()
              .build());
    }
    // Host networking (added above if missing) or one pod per node: a surge pod may find no node
    // it fits on (the port is taken), and the rollout stalls; the old pod goes first instead.
    if (workload.object() instanceof Deployment deployment
        && surges(deployment.getSpec().getStrategy())) {
      deployment
          .getSpec()
          .setStrategy(
              new DeploymentStrategyBuilder()
                  .withType("RollingUpdate")
                  .withNewRollingUpdate()
                  .withMaxSurge(new IntOrString(0))
                  .withMaxUnavailable(new IntOrString(1))
                  .endRollingUpdate()
                  .build());
    }
  }

  private static void addToleration(PodSpec pod, String key, String effect) {
    List<Toleration> tolerations =
        new ArrayList<>(pod.getTolerations() == null ? List.of() : pod.getTolerations());
    tolerations.add(
        new TolerationBuilder().withKey(key).withOperator("Exists").withEffect(effect).build());
    pod.setTolerations(tolerations);
  }

  /**
   * The not-ready taint's effects that matter: NoSchedule when the scheduler places the pod,
   * NoExecute unless the DaemonSet controller adds that toleration itself; none for a static pod.
   */
  private static boolean toleratesNotReady(CcmWorkload workload) {
    return missingNotReadyTolerations(workload).isEmpty();
  }

  /** The not-ready effects that matter and the pod does not tolerate, each with what it does. */
  private static List<String> missingNotReadyTolerations(CcmWorkload workload) {
    PodSpec pod = workload.pod();
    List<String> missing = new ArrayList<>();
    if (!workload.bypassesScheduler() && !tolerates(pod, NOT_READY_NO_SCHEDULE)) {
      missing.add("node.kubernetes.io/not-ready:NoSchedule (keeps it from being scheduled)");
    }
    if (!workload.isStaticPod()
        && !(workload.object() instanceof DaemonSet)
        && !tolerates(pod, NOT_READY_NO_EXECUTE)) {
      missing.add("node.kubernetes.io/not-ready:NoExecute (evicts it)");
    }
    return missing;
  }

  static boolean tolerates(PodSpec pod, Taint taint) {
    List<Toleration> tolerations = pod.getTolerations() == null ? List.of() : pod.getTolerations();
    return tolerations.stream().anyMatch(t -> Tolerations.tolerates(t, taint));
  }

  /**
   * A nodeSelector on a control-plane role label, or a required node affinity each of whose terms
   * asks for one ({@code Exists} or {@code In}).
   */
  static Placement placement(PodSpec pod) {
    Map<String, String> selector = pod.getNodeSelector() == null ? Map.of() : pod.getNodeSelector();
    if (selector.containsKey(WellKnownLabels.ROLE_CONTROL_PLANE)) {
      return Placement.CONTROL_PLANE;
    }
    if (selector.containsKey(WellKnownLabels.ROLE_MASTER)) {
      return Placement.MASTER_ONLY;
    }
    List<NodeSelectorTerm> terms = requiredNodeSelectorTerms(pod);
    boolean everyTermOnControlPlane =
        !terms.isEmpty()
            && terms.stream()
                .allMatch(
                    term ->
                        term.getMatchExpressions() != null
                            && term.getMatchExpressions().stream()
                                .anyMatch(Doctor::requiresControlPlaneLabel));
    return everyTermOnControlPlane ? Placement.CONTROL_PLANE : Placement.ANYWHERE;
  }

  private static boolean requiresControlPlaneLabel(NodeSelectorRequirement requirement) {
    return CONTROL_PLANE_LABELS.contains(requirement.getKey())
        && ("Exists".equals(requirement.getOperator()) || "In".equals(requirement.getOperator()));
  }

  static List<NodeSelectorTerm> requiredNodeSelectorTerms(PodSpec pod) {
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
        .getNodeSelectorTerms()
        .stream()
        .filter(Objects::nonNull)
        .toList();
  }

  /**
   * Requires the control-plane label, in each of the pod's required node terms (ORed; their
   * expressions ANDed), or in one new term. Not the master label: every cluster since 1.24 has the
   * control-plane label, and the API server warns about a selector on the master label. A selector
   * on the master label alone is dropped: the affinity replaces it.
   */
  private static void placeOnControlPlane(PodSpec pod) {
    if (pod.getNodeSelector() != null
        && pod.getNodeSelector().containsKey(WellKnownLabels.ROLE_MASTER)) {
      Map<String, String> selector = new LinkedHashMap<>(pod.getNodeSelector());
      selector.remove(WellKnownLabels.ROLE_MASTER);
      pod.setNodeSelector(selector.isEmpty() ? null : selector);
    }
    List<NodeSelectorTerm> existing = requiredNodeSelectorTerms(pod);
    List<NodeSelectorTerm> terms = new ArrayList<>();
    for (NodeSelectorTerm base : existing.isEmpty() ? List.of(new NodeSelectorTerm()) : existing) {
      terms.add(
          new NodeSelectorTermBuilder(base)
              .addToMatchExpressions(
                  new NodeSelectorRequirementBuilder()
                      .withKey(WellKnownLabels.ROLE_CONTROL_PLANE)
                      .withOperator("Exists")
                      .build())
              .build());
    }
    pod.setAffinity(
        new AffinityBuilder(affinityOf(pod))
            .editOrNewNodeAffinity()
            .editOrNewRequiredDuringSchedulingIgnoredDuringExecution()
            .withNodeSelectorTerms(terms)
            .endRequiredDuringSchedulingIgnoredDuringExecution()
            .endNodeAffinity()
            .build());
  }

  private static Affinity affinityOf(PodSpec pod) {
    return pod.getAffinity() == null ? new Affinity() : pod.getAffinity();
  }

  /** Whether a rolling update may start a pod before one stops (the default: 25% surge). */
  /**
   * Whether two pods of the workload may run at once: more than one replica, or a Deployment whose
   * rollout surges (the default RollingUpdate starts the new pod before the old one stops).
   */
  static boolean mayRunTwo(CcmWorkload workload) {
    return workload.maxPods() > 1
        || (workload.object() instanceof Deployment deployment
            && surges(deployment.getSpec().getStrategy()));
  }

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
    IntOrString maxSurge = strategy.getRollingUpdate().getMaxSurge();
    return maxSurge.getIntVal() != null
        ? maxSurge.getIntVal() != 0
        : !List.of("0", "0%").contains(maxSurge.getStrVal());
  }

  static boolean hasRequiredHostnameAntiAffinity(PodSpec pod) {
    return requiredAntiAffinity(pod).stream()
        .anyMatch(t -> t != null && WellKnownLabels.HOSTNAME.equals(t.getTopologyKey()));
  }

  private static List<PodAffinityTerm> requiredAntiAffinity(PodSpec pod) {
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
