package io.ccm4j.doctor;

import static io.ccm4j.doctor.PodSpecs.CONTROL_PLANE;
import static io.ccm4j.doctor.PodSpecs.MASTER;
import static io.ccm4j.doctor.PodSpecs.UNINITIALIZED;
import static io.ccm4j.doctor.PodSpecs.affinityOf;
import static io.ccm4j.doctor.PodSpecs.hasHostnameAntiAffinity;
import static io.ccm4j.doctor.PodSpecs.mayRunTwo;
import static io.ccm4j.doctor.PodSpecs.placement;
import static io.ccm4j.doctor.PodSpecs.requiredNodeSelectorTerms;
import static io.ccm4j.doctor.PodSpecs.requiresLabel;
import static io.ccm4j.doctor.PodSpecs.surges;
import static io.ccm4j.doctor.PodSpecs.tolerates;
import static io.ccm4j.doctor.PodSpecs.toleratesNetworkUnavailable;
import static io.ccm4j.doctor.PodSpecs.toleratesNotReady;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodelifecycle.Tolerations;
import io.ccm4j.doctor.PodSpecs.Placement;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirementBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetUpdateStrategy;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentStrategy;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDaemonSet;
import io.fabric8.kubernetes.api.model.apps.RollingUpdateDeployment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Changes a CCM workload in place so that every fixable {@link Rule} passes. */
final class Fixes {

  private Fixes() {}

  /**
   * Fixes the workload.
   *
   * @return what is left to the user: a flag inside a shell command that cannot be rewritten safely
   */
  static List<String> fixInPlace(CcmWorkload workload) {
    List<String> byHand = new ArrayList<>();
    if (workload.removedApiVersion().isPresent()) {
      workload.serveAsAppsV1();
    }
    if (!workload.placeholders().isEmpty()) {
      byHand.add(
          "%s: %s/%s: fill in by hand what the placeholders stand for (%s)"
              .formatted(
                  workload.source().location(),
                  workload.kind(),
                  workload.name(),
                  String.join(", ", workload.placeholders())));
    }
    // First what was meant, then the rules on the flags as now written.
    edit(workload, CcmFlags::straysJoined, byHand);
    if (workload.managedClusterKubeconfig().isPresent()) {
      fixRemote(workload, byHand);
      return byHand;
    }
    PodSpec pod = workload.pod();
    boolean scheduled = !workload.bypassesScheduler();
    // As Checks: a CCM that leaves node initialisation to another component waits for nothing.
    if (scheduled && workload.initialisesNodes() && !tolerates(pod, UNINITIALIZED)) {
      addToleration(pod, WellKnownTaints.UNINITIALIZED, WellKnownTaints.EFFECT_NO_SCHEDULE);
    }
    if (!toleratesNotReady(workload)) {
      // The least tolerationSeconds of the matching tolerations decides: a 0 would still evict.
      withoutImmediateEviction(pod, PodSpecs.NOT_READY_NO_EXECUTE);
    }
    if (!toleratesNotReady(workload)) {
      addToleration(pod, WellKnownTaints.NODE_NOT_READY, null);
    }
    if (scheduled && workload.createsRoutes() && !toleratesNetworkUnavailable(workload)) {
      addToleration(
          pod, WellKnownTaints.NODE_NETWORK_UNAVAILABLE, WellKnownTaints.EFFECT_NO_SCHEDULE);
    }
    pod.setHostNetwork(true);
    turnOnLeaderElection(workload, byHand);
    if (!scheduled) {
      return byHand;
    }
    Placement placement = placement(pod);
    boolean toleratesControlPlane = tolerates(pod, CONTROL_PLANE);
    if (placement != Placement.CONTROL_PLANE || PodSpecs.controlPlaneLabelValue(pod).isPresent()) {
      placeOnControlPlane(pod);
    }
    if (!toleratesControlPlane) {
      addToleration(pod, WellKnownTaints.CONTROL_PLANE, WellKnownTaints.EFFECT_NO_SCHEDULE);
    }
    if ((placement != Placement.CONTROL_PLANE || !toleratesControlPlane)
        && !tolerates(pod, MASTER)) {
      addToleration(pod, WellKnownTaints.MASTER, WellKnownTaints.EFFECT_NO_SCHEDULE);
    }
    if (!Checks.ccmLabelTerms(workload).isEmpty()) {
      // Before the replicas are spread: a region anti-affinity made preferred keeps none apart.
      CcmLabelTerms.makePreferences(pod, workload.podLabels(), PodSpecs.mayRunTwo(workload));
    }
    spreadReplicas(workload);
    // Host networking (added above if missing) or one pod per node: a surge pod may find no node
    // it fits on (the port is taken), and the rollout stalls; the old pod goes first instead.
    if (surges(workload)) {
      oneAtATime(workload);
    }
    return byHand;
  }

  /**
   * A CCM that manages another cluster gets no tolerations, host networking or control-plane
   * placement here (its placement holds up nothing there): only what keeps it running.
   */
  private static void fixRemote(CcmWorkload workload, List<String> byHand) {
    turnOnLeaderElection(workload, byHand);
    if (workload.bypassesScheduler()) {
      return;
    }
    spreadReplicas(workload);
    if (Checks.rolloutHangs(workload)) {
      oneAtATime(workload);
    }
  }

  private static void turnOnLeaderElection(CcmWorkload workload, List<String> byHand) {
    if (mayRunTwo(workload)) {
      // The CCM's own flags; a sidecar's are left as they are.
      edit(workload, CcmFlags::leaderElectionOn, byHand);
    }
  }

  /**
   * Writes the edits of the CCM's flags into its command line ({@code --leader-elect false} becomes
   * {@code --leader-elect=false}, as meant); those inside a shell command that cannot be rewritten
   * safely are left as they are, and {@code byHand} says which.
   */
  private static void edit(
      CcmWorkload workload,
      Function<List<String>, List<CcmFlags.Edit>> edits,
      List<String> byHand) {
    CcmCommandLine line = workload.commandLine();
    List<CcmFlags.Edit> wanted = edits.apply(line.words());
    if (!line.apply(wanted)) {
      byHand.add(
          "%s: %s/%s: write %s by hand inside the shell command (--fix does not rewrite this"
                  .formatted(
                      workload.source().location(),
                      workload.kind(),
                      workload.name(),
                      String.join(", ", wanted.stream().map(CcmFlags.Edit::word).toList()))
              + " script: "
              + line.notRewritable().orElse("the words to change are not written plainly")
              + ")");
    }
  }

  private static void spreadReplicas(CcmWorkload workload) {
    PodSpec pod = workload.pod();
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
  }

  private static void oneAtATime(CcmWorkload workload) {
    IntOrString noSurge = new IntOrString(0);
    IntOrString oneUnavailable = new IntOrString(1);
    if (workload.object() instanceof Deployment deployment) {
      deployment
          .getSpec()
          .setStrategy(
              new DeploymentStrategy(
                  new RollingUpdateDeployment(noSurge, oneUnavailable), "RollingUpdate"));
    } else if (workload.object() instanceof DaemonSet daemonSet) {
      daemonSet
          .getSpec()
          .setUpdateStrategy(
              new DaemonSetUpdateStrategy(
                  new RollingUpdateDaemonSet(noSurge, oneUnavailable), "RollingUpdate"));
    }
  }

  /**
   * In the preferred node affinity, a requirement on the master label (which no current node has)
   * becomes one on the control-plane label ({@code Exists}); weights and other terms stay.
   */
  static void preferControlPlaneOverMaster(PodSpec pod) {
    if (pod.getAffinity() == null
        || pod.getAffinity().getNodeAffinity() == null
        || pod.getAffinity().getNodeAffinity().getPreferredDuringSchedulingIgnoredDuringExecution()
            == null) {
      return;
    }
    for (var weighted :
        pod.getAffinity().getNodeAffinity().getPreferredDuringSchedulingIgnoredDuringExecution()) {
      NodeSelectorTerm term = weighted == null ? null : weighted.getPreference();
      if (term == null || term.getMatchExpressions() == null) {
        continue;
      }
      List<NodeSelectorRequirement> expressions = new ArrayList<>();
      for (NodeSelectorRequirement r : term.getMatchExpressions()) {
        if (requiresLabel(r, WellKnownLabels.ROLE_MASTER)) {
          r =
              new NodeSelectorRequirementBuilder()
                  .withKey(WellKnownLabels.ROLE_CONTROL_PLANE)
                  .withOperator("Exists")
                  .build();
        }
        if (!expressions.contains(r)) {
          expressions.add(r);
        }
      }
      term.setMatchExpressions(expressions);
    }
  }

  /** The tolerations of the NoExecute taint that evict at once keep the pod instead. */
  private static void withoutImmediateEviction(PodSpec pod, Taint taint) {
    if (pod.getTolerations() == null) {
      return;
    }
    List<Toleration> tolerations = new ArrayList<>();
    for (Toleration t : pod.getTolerations()) {
      tolerations.add(
          t != null && Tolerations.tolerates(t, taint) && PodSpecs.evictsAtOnce(t)
              ? new TolerationBuilder(t).withTolerationSeconds(null).build()
              : t);
    }
    pod.setTolerations(tolerations);
  }

  static void addToleration(PodSpec pod, String key, String effect) {
    List<Toleration> tolerations =
        new ArrayList<>(pod.getTolerations() == null ? List.of() : pod.getTolerations());
    tolerations.add(
        new TolerationBuilder().withKey(key).withOperator("Exists").withEffect(effect).build());
    pod.setTolerations(tolerations);
  }

  /**
   * Requires the control-plane label in each of the pod's required node terms (ORed; their
   * expressions ANDed), or in one new term, a requirement on the master label becoming one on the
   * control-plane label ({@code Exists}). Not the master label: every cluster since 1.24 has the
   * control-plane label, and the API server warns about a selector on the master label. A
   * nodeSelector on the master label is dropped: the affinity replaces it.
   */
  static void placeOnControlPlane(PodSpec pod) {
    preferControlPlaneOverMaster(pod);
    if (pod.getNodeSelector() != null && PodSpecs.selectsMasterRole(pod.getNodeSelector())) {
      Map<String, String> selector = new LinkedHashMap<>(pod.getNodeSelector());
      selector.remove(WellKnownLabels.ROLE_MASTER);
      selector.remove(PodSpecs.LEGACY_ROLE, "master");
      pod.setNodeSelector(selector.isEmpty() ? null : selector);
    }
    // A value kubeadm's nodes lack (they carry the label empty): the affinity asks Exists instead.
    String selected =
        pod.getNodeSelector() == null
            ? null
            : pod.getNodeSelector().get(WellKnownLabels.ROLE_CONTROL_PLANE);
    if (selected != null && !selected.isEmpty()) {
      Map<String, String> selector = new LinkedHashMap<>(pod.getNodeSelector());
      selector.remove(WellKnownLabels.ROLE_CONTROL_PLANE);
      pod.setNodeSelector(selector.isEmpty() ? null : selector);
    }
    List<NodeSelectorTerm> existing = requiredNodeSelectorTerms(pod);
    List<NodeSelectorTerm> terms = new ArrayList<>();
    for (NodeSelectorTerm base : existing.isEmpty() ? List.of(new NodeSelectorTerm()) : existing) {
      List<NodeSelectorRequirement> expressions =
          new ArrayList<>(
              base.getMatchExpressions() == null ? List.of() : base.getMatchExpressions());
      expressions.removeIf(
          r ->
              r != null
                  && (WellKnownLabels.ROLE_MASTER.equals(r.getKey())
                      || PodSpecs.asksMasterRole(r)
                      || PodSpecs.asksControlPlaneValue(r)));
      if (expressions.stream()
          .noneMatch(r -> requiresLabel(r, WellKnownLabels.ROLE_CONTROL_PLANE))) {
        expressions.add(
            new NodeSelectorRequirementBuilder()
                .withKey(WellKnownLabels.ROLE_CONTROL_PLANE)
                .withOperator("Exists")
                .build());
      }
      NodeSelectorTerm term =
          new NodeSelectorTermBuilder(base).withMatchExpressions(expressions).build();
      if (!terms.contains(term)) {
        terms.add(term);
      }
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
}
