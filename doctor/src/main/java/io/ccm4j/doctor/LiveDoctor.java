package io.ccm4j.doctor;

import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.Taints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Diagnoses a running cluster's bootstrap: nodes stuck with the uninitialized taint, pending CCM
 * pods with the scheduler's reason, CNI pods kept out by not-ready nodes, the leader Lease, and the
 * dependency cycle that explains them.
 */
public final class LiveDoctor {

  /** One observation; errors make the doctor exit non-zero. */
  public record Observation(Rule.Severity severity, String what, String detail) {}

  private static final List<String> CNI_NAMES =
      List.of("cni", "calico", "flannel", "cilium", "weave", "canal", "kube-router", "antrea");

  private final KubernetesClient client;
  private final Duration stuckAfter;
  private final String leaseNamespace;
  private final String leaseName;

  /**
   * @param stuckAfter how long a node may carry the uninitialized taint before it counts as stuck
   */
  public LiveDoctor(
      KubernetesClient client, Duration stuckAfter, String leaseNamespace, String leaseName) {
    this.client = client;
    this.stuckAfter = stuckAfter;
    this.leaseNamespace = leaseNamespace;
    this.leaseName = leaseName;
  }

  public List<Observation> diagnose() {
    Instant now = Instant.now();
    List<Observation> observations = new ArrayList<>();
    List<Node> stuck = new ArrayList<>();
    for (Node node : client.nodes().list().getItems()) {
      boolean tainted =
          node.getSpec() != null && Taints.hasKey(node, WellKnownTaints.UNINITIALIZED);
      if (!tainted) {
        continue;
      }
      Duration age =
          Duration.between(
              ZonedDateTime.parse(node.getMetadata().getCreationTimestamp()).toInstant(), now);
      boolean isStuck = age.compareTo(stuckAfter) >= 0;
      if (isStuck) {
        stuck.add(node);
      }
      observations.add(
          new Observation(
              isStuck ? Rule.Severity.ERROR : Rule.Severity.WARNING,
              "node %s still has %s after %ds"
                  .formatted(
                      node.getMetadata().getName(), WellKnownTaints.UNINITIALIZED, age.toSeconds()),
              "no pod may schedule there until a cloud-controller-manager initialises it"));
    }
    List<Pod> pods = client.pods().inAnyNamespace().list().getItems();
    List<Pod> ccmPods = pods.stream().filter(p -> CcmWorkload.runsCcm(p.getSpec())).toList();
    List<String> pendingReasons = new ArrayList<>();
    for (Pod pod : ccmPods) {
      Optional<PodCondition> unscheduled = unscheduled(pod);
      if (unscheduled.isPresent()) {
        String message = String.valueOf(unscheduled.get().getMessage());
        pendingReasons.add(message);
        observations.add(
            new Observation(
                Rule.Severity.ERROR,
                "cloud-controller-manager pod %s/%s is pending"
                    .formatted(pod.getMetadata().getNamespace(), pod.getMetadata().getName()),
                "the scheduler says: " + message));
      }
    }
    for (Pod pod : pods) {
      if (ccmPods.contains(pod) || !looksLikeCni(pod)) {
        continue;
      }
      unscheduled(pod)
          .filter(c -> String.valueOf(c.getMessage()).contains(WellKnownTaints.NODE_NOT_READY))
          .ifPresent(
              c ->
                  observations.add(
                      new Observation(
                          Rule.Severity.ERROR,
                          "CNI pod %s/%s is kept out by not-ready nodes"
                              .formatted(
                                  pod.getMetadata().getNamespace(), pod.getMetadata().getName()),
                          "the scheduler says: " + c.getMessage())));
    }
    observations.addAll(leaseObservations(ccmPods, now));
    explainCycle(stuck, pendingReasons).ifPresent(observations::add);
    return observations;
  }

  private List<Observation> leaseObservations(List<Pod> ccmPods, Instant now) {
    List<Observation> result = new ArrayList<>();
    Lease lease = client.leases().inNamespace(leaseNamespace).withName(leaseName).get();
    long running =
        ccmPods.stream()
            .filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase()))
            .count();
    long withoutElection =
        ccmPods.stream()
            .filter(
                p ->
                    p.getSpec().getContainers().stream()
                        .anyMatch(c -> CcmFlags.leaderElectionOff(CcmWorkload.words(c))))
            .count();
    if (withoutElection > 1) {
      result.add(
          new Observation(
              Rule.Severity.ERROR,
              "%d cloud-controller-manager pods run without leader election"
                  .formatted(withoutElection),
              "they act at once and contend for the same nodes, load balancers and routes"));
    }
    if (lease == null || lease.getSpec() == null) {
      if (!ccmPods.isEmpty() && withoutElection < ccmPods.size()) {
        result.add(
            new Observation(
                running > 0 ? Rule.Severity.ERROR : Rule.Severity.WARNING,
                "no leader Lease %s/%s".formatted(leaseNamespace, leaseName),
                running > 0
                    ? "no instance holds the lease: no controller runs"
                    : "no instance has started yet"));
      }
      return result;
    }
    var spec = lease.getSpec();
    if (spec.getRenewTime() != null && spec.getLeaseDurationSeconds() != null) {
      Duration since = Duration.between(spec.getRenewTime().toInstant(), now);
      if (since.toSeconds() > spec.getLeaseDurationSeconds()) {
        result.add(
            new Observation(
                Rule.Severity.WARNING,
                "leader Lease %s/%s expired %ds ago (holder %s)"
                    .formatted(
                        leaseNamespace,
                        leaseName,
                        since.toSeconds() - spec.getLeaseDurationSeconds(),
                        spec.getHolderIdentity()),
                "no cloud-controller-manager is leading"));
      }
    }
    return result;
  }

  /** The dependency cycle, in words, when the observations form one. */
  private static Optional<Observation> explainCycle(List<Node> stuck, List<String> pendingReasons) {
    if (stuck.isEmpty() || pendingReasons.isEmpty()) {
      return Optional.empty();
    }
    String reasons = String.join(" ", pendingReasons).toLowerCase(Locale.ROOT);
    if (reasons.contains(WellKnownTaints.UNINITIALIZED)) {
      return Optional.of(
          new Observation(
              Rule.Severity.ERROR,
              "deadlock: nodes wait for the cloud-controller-manager, which waits for a node",
              "the nodes keep node.cloudprovider.kubernetes.io/uninitialized until the CCM initialises them;"
                  + " the CCM pod does not tolerate that taint, so it cannot start on any of them. Fix: tolerate"
                  + " the taint (`ccm4j doctor <manifest> --fix`)."));
    }
    if (reasons.contains(WellKnownTaints.NODE_NOT_READY)) {
      return Optional.of(
          new Observation(
              Rule.Severity.ERROR,
              "deadlock: the network waits for the cloud-controller-manager, which waits for the network",
              "the CNI needs the node addresses the CCM sets; until then the nodes are not-ready and their"
                  + " not-ready taint keeps the CCM pod out. Fix: tolerate node.kubernetes.io/not-ready and use"
                  + " hostNetwork."));
    }
    if (reasons.contains(WellKnownTaints.CONTROL_PLANE)) {
      return Optional.of(
          new Observation(
              Rule.Severity.ERROR,
              "deadlock: the cloud-controller-manager may only run where it is not tolerated",
              "it selects control-plane nodes but does not tolerate their taint, so no node initialises. Fix:"
                  + " tolerate node-role.kubernetes.io/control-plane."));
    }
    return Optional.empty();
  }

  private static Optional<PodCondition> unscheduled(Pod pod) {
    if (pod.getStatus() == null
        || pod.getStatus().getConditions() == null
        || !"Pending".equals(pod.getStatus().getPhase())) {
      return Optional.empty();
    }
    return pod.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
        .findFirst();
  }

  private static boolean looksLikeCni(Pod pod) {
    String name = pod.getMetadata().getName().toLowerCase(Locale.ROOT);
    String labels = String.valueOf(pod.getMetadata().getLabels()).toLowerCase(Locale.ROOT);
    return CNI_NAMES.stream().anyMatch(n -> name.contains(n) || labels.contains(n));
  }
}
