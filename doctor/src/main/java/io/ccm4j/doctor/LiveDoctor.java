package io.ccm4j.doctor;

import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.nodelifecycle.Tolerations;
import io.ccm4j.controllers.nodeutil.Taints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Diagnoses a running cluster's bootstrap: nodes stuck with the uninitialized taint, pending CCM
 * pods with the scheduler's reason, CNI pods kept out by not-ready nodes, the leader Lease, and the
 * dependency cycle that explains them.
 */
public final class LiveDoctor {

  /** One observation; errors make the doctor exit non-zero. */
  public record Observation(Rule.Severity severity, String what, String detail) {

    /** Whether it names a dependency cycle of the bootstrap: {@code deadlock: ...}. */
    public boolean isDeadlock() {
      return severity == Rule.Severity.ERROR && what.startsWith("deadlock: ");
    }
  }

  private static final List<String> CNI_NAMES =
      List.of("cni", "calico", "flannel", "cilium", "weave", "canal", "kube-router", "antrea");

  private final KubernetesClient client;
  private final Duration stuckAfter;
  private final String defaultLeaseNamespace;
  private final String defaultLeaseName;

  /**
   * @param stuckAfter how long a node may carry the uninitialized taint, or a CCM pod wait for the
   *     pod network, before it counts as stuck
   * @param defaultLeaseNamespace the leader Lease's namespace when a CCM pod's flags do not name
   *     one
   * @param defaultLeaseName the leader Lease's name when a CCM pod's flags do not name one
   */
  public LiveDoctor(
      KubernetesClient client,
      Duration stuckAfter,
      String defaultLeaseNamespace,
      String defaultLeaseName) {
    this.client = client;
    this.stuckAfter = stuckAfter;
    this.defaultLeaseNamespace = defaultLeaseNamespace;
    this.defaultLeaseName = defaultLeaseName;
  }

  public List<Observation> diagnose() {
    Instant now = Instant.now();
    List<Observation> observations = new ArrayList<>();
    List<Node> stuck = new ArrayList<>();
    List<Node> nodes = client.nodes().list().getItems();
    for (Node node : nodes) {
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
    List<Pod> waitingForNetwork = new ArrayList<>();
    for (Pod pod : ccmPods) {
      Optional<PodCondition> unscheduled = unscheduled(pod);
      if (unscheduled.isPresent()) {
        // Today's scheduler no longer names the taints ("node(s) had untolerated taint(s)"), 1.20's
        // did:
        // which ones keep the pod out is read from the nodes.
        String message = sentence(unscheduled.get().getMessage()) + untoleratedTaints(pod, nodes);
        pendingReasons.add(message);
        observations.add(
            new Observation(
                Rule.Severity.ERROR,
                "cloud-controller-manager pod %s/%s is pending"
                    .formatted(pod.getMetadata().getNamespace(), pod.getMetadata().getName()),
                "the scheduler says: " + message));
      } else if (boundWithoutHostNetwork(pod)) {
        boolean waitedTooLong = boundFor(pod, now).compareTo(stuckAfter) >= 0;
        if (waitedTooLong) {
          waitingForNetwork.add(pod);
        }
        observations.add(
            new Observation(
                waitedTooLong ? Rule.Severity.ERROR : Rule.Severity.WARNING,
                "cloud-controller-manager pod %s/%s is bound to %s but has not started"
                    .formatted(
                        pod.getMetadata().getNamespace(),
                        pod.getMetadata().getName(),
                        pod.getSpec().getNodeName()),
                "it has no hostNetwork, so it needs the pod network, which the CNI sets up only"
                    + " once the CCM has given the node its addresses"
                    + waitingReasons(pod)
                    + ". Fix: hostNetwork: true."));
      }
    }
    for (Pod pod : pods) {
      if (ccmPods.contains(pod) || !looksLikeCni(pod)) {
        continue;
      }
      String untolerated = untoleratedTaints(pod, nodes);
      unscheduled(pod)
          .filter(c -> untolerated.contains(WellKnownTaints.NODE_NOT_READY))
          .ifPresent(
              c ->
                  observations.add(
                      new Observation(
                          Rule.Severity.ERROR,
                          "CNI pod %s/%s is kept out by not-ready nodes"
                              .formatted(
                                  pod.getMetadata().getNamespace(), pod.getMetadata().getName()),
                          "the scheduler says: " + sentence(c.getMessage()) + untolerated)));
    }
    if (ccmPods.isEmpty()) {
      observations.addAll(
          leaseObservations(List.of(), defaultLeaseNamespace, defaultLeaseName, now));
    }
    // Each manager's Lease is the one its flags name (upstream's default otherwise).
    Map<List<String>, List<Pod>> byLease = new LinkedHashMap<>();
    for (Pod pod : ccmPods) {
      List<String> words = words(pod);
      List<String> lease =
          List.of(
              CcmFlags.value(words, CcmFlags.LEADER_ELECT_RESOURCE_NAMESPACE)
                  .orElse(defaultLeaseNamespace),
              CcmFlags.value(words, CcmFlags.LEADER_ELECT_RESOURCE_NAME).orElse(defaultLeaseName));
      byLease.computeIfAbsent(lease, k -> new ArrayList<>()).add(pod);
    }
    byLease.forEach(
        (lease, group) ->
            observations.addAll(leaseObservations(group, lease.get(0), lease.get(1), now)));
    explainCycle(stuck, pendingReasons, anyInitialisesNodes(ccmPods)).ifPresent(observations::add);
    waitingForNetwork.stream()
        .findFirst()
        .ifPresent(
            pod ->
                observations.add(
                    new Observation(
                        Rule.Severity.ERROR,
                        "deadlock: the cloud-controller-manager waits for the pod network, which waits"
                            + " for it",
                        "pod %s is bound to %s but has no hostNetwork, so it cannot start before the"
                                .formatted(pod.getMetadata().getName(), pod.getSpec().getNodeName())
                            + " CNI, and the CNI waits for the node addresses only the CCM sets."
                            + " Fix: hostNetwork: true (`ccm4j doctor <manifest> --fix`).")));
    return observations;
  }

  /** Every container's command and arguments, in order. */
  private static List<String> words(Pod pod) {
    return pod.getSpec().getContainers().stream()
        .flatMap(c -> CcmWorkload.words(c).stream())
        .toList();
  }

  /** Scheduled (a node is set) but not started, and it needs the pod network to start. */
  private static boolean boundWithoutHostNetwork(Pod pod) {
    return pod.getSpec().getNodeName() != null
        && !Boolean.TRUE.equals(pod.getSpec().getHostNetwork())
        && pod.getMetadata().getDeletionTimestamp() == null
        && pod.getStatus() != null
        && "Pending".equals(pod.getStatus().getPhase());
  }

  /** Since when the pod has been bound: its PodScheduled condition, else its creation. */
  private static Duration boundFor(Pod pod, Instant now) {
    String since =
        pod.getStatus().getConditions() == null
            ? null
            : pod.getStatus().getConditions().stream()
                .filter(c -> "PodScheduled".equals(c.getType()) && "True".equals(c.getStatus()))
                .map(PodCondition::getLastTransitionTime)
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    if (since == null) {
      since = pod.getMetadata().getCreationTimestamp();
    }
    return since == null
        ? Duration.ZERO
        : Duration.between(ZonedDateTime.parse(since).toInstant(), now);
  }

  /** "; waiting: ContainerCreating" from the container statuses, if the kubelet reported any. */
  private static String waitingReasons(Pod pod) {
    if (pod.getStatus().getContainerStatuses() == null) {
      return "";
    }
    String reasons =
        pod.getStatus().getContainerStatuses().stream()
            .filter(c -> c.getState() != null && c.getState().getWaiting() != null)
            .map(c -> c.getName() + " " + c.getState().getWaiting().getReason())
            .collect(Collectors.joining(", "));
    return reasons.isEmpty() ? "" : " (waiting: " + reasons + ")";
  }

  /** Running and not being deleted: a manager that acts. */
  private static boolean active(Pod pod) {
    return pod.getStatus() != null
        && "Running".equals(pod.getStatus().getPhase())
        && pod.getMetadata().getDeletionTimestamp() == null;
  }

  private List<Observation> leaseObservations(
      List<Pod> ccmPods, String leaseNamespace, String leaseName, Instant now) {
    List<Observation> result = new ArrayList<>();
    Lease lease = client.leases().inNamespace(leaseNamespace).withName(leaseName).get();
    List<Pod> electing =
        ccmPods.stream().filter(p -> !CcmFlags.leaderElectionOff(words(p))).toList();
    long activeWithoutElection =
        ccmPods.stream()
            .filter(LiveDoctor::active)
            .filter(p -> CcmFlags.leaderElectionOff(words(p)))
            .count();
    if (activeWithoutElection > 1) {
      result.add(
          new Observation(
              Rule.Severity.ERROR,
              "%d cloud-controller-manager pods run without leader election"
                  .formatted(activeWithoutElection),
              "they act at once and contend for the same nodes, load balancers and routes"));
    }
    if (lease == null || lease.getSpec() == null) {
      if (!electing.isEmpty()) {
        boolean running = electing.stream().anyMatch(LiveDoctor::active);
        result.add(
            new Observation(
                running ? Rule.Severity.ERROR : Rule.Severity.WARNING,
                "no leader Lease %s/%s".formatted(leaseNamespace, leaseName),
                running
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

  /**
   * Whether some CCM pod runs the cloud-node controller, which removes the uninitialized taint
   * ({@code --controllers} may leave it to another component, a cloud-node-manager).
   */
  private static boolean anyInitialisesNodes(List<Pod> ccmPods) {
    Set<String> cloudNode = Set.of(Controllers.CLOUD_NODE.name(), Controllers.CLOUD_NODE.alias());
    return ccmPods.stream()
        .flatMap(pod -> CcmWorkload.ccmContainer(pod.getSpec()).stream())
        .anyMatch(container -> CcmFlags.runsController(CcmWorkload.words(container), cloudNode));
  }

  /** The dependency cycle, in words, when the observations form one. */
  private static Optional<Observation> explainCycle(
      List<Node> stuck, List<String> pendingReasons, boolean ccmInitialisesNodes) {
    if (stuck.isEmpty() || pendingReasons.isEmpty()) {
      return Optional.empty();
    }
    String reasons = String.join(" ", pendingReasons).toLowerCase(Locale.ROOT);
    if (reasons.contains(WellKnownTaints.UNINITIALIZED) && !ccmInitialisesNodes) {
      return Optional.of(
          new Observation(
              Rule.Severity.ERROR,
              "deadlock: the nodes wait for a node controller that is not there, and the"
                  + " cloud-controller-manager waits for the nodes",
              "no cloud-controller-manager pod runs cloud-node (its --controllers leaves it out), so"
                  + " the nodes keep node.cloudprovider.kubernetes.io/uninitialized until another"
                  + " component initialises them, and the CCM pod does not tolerate that taint. Fix:"
                  + " run the component that initialises the nodes (a cloud-node-manager, or a CCM"
                  + " with cloud-node in --controllers) and tolerate the taint."));
    }
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
    if (reasons.contains(WellKnownTaints.NODE_NETWORK_UNAVAILABLE)) {
      return Optional.of(
          new Observation(
              Rule.Severity.ERROR,
              "deadlock: the routes wait for the cloud-controller-manager, which waits for a route",
              "the nodes keep node.kubernetes.io/network-unavailable until the CCM has created their routes;"
                  + " the CCM pod does not tolerate that taint, so it cannot start on any of them. Fix:"
                  + " tolerate node.kubernetes.io/network-unavailable (`ccm4j doctor <manifest> --fix`)."));
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

  /**
   * The NoSchedule and NoExecute taints the pod does not tolerate on the nodes its node selector
   * and required node affinity allow, with the number of nodes that carry each: {@code "; it does
   * not tolerate the taint(s) key (n nodes), ..."}, or {@code "; on the m nodes its placement
   * allows, it does not tolerate ..."} when the placement rules out some; empty when it tolerates
   * every one.
   */
  static String untoleratedTaints(Pod pod, List<Node> nodes) {
    List<Toleration> tolerations =
        pod.getSpec() == null || pod.getSpec().getTolerations() == null
            ? List.of()
            : pod.getSpec().getTolerations();
    List<Node> allowed =
        nodes.stream().filter(n -> NodePlacement.allows(pod.getSpec(), n)).toList();
    Map<String, Integer> nodesPerTaint = new TreeMap<>();
    for (Node node : allowed) {
      Taints.of(node).stream()
          .filter(t -> "NoSchedule".equals(t.getEffect()) || "NoExecute".equals(t.getEffect()))
          .filter(t -> tolerations.stream().noneMatch(tol -> Tolerations.tolerates(tol, t)))
          .map(Taint::getKey)
          .distinct()
          .forEach(key -> nodesPerTaint.merge(key, 1, Integer::sum));
    }
    if (nodesPerTaint.isEmpty()) {
      return "";
    }
    String where =
        allowed.size() == nodes.size()
            ? "; it"
            : "; on the %d node%s its placement allows, it"
                .formatted(allowed.size(), allowed.size() == 1 ? "" : "s");
    return nodesPerTaint.entrySet().stream()
        .map(
            e -> "%s (%d node%s)".formatted(e.getKey(), e.getValue(), e.getValue() == 1 ? "" : "s"))
        .collect(Collectors.joining(", ", where + " does not tolerate the taint(s) ", ""));
  }

  /** The scheduler's message without its closing full stop, so that more can follow. */
  private static String sentence(String message) {
    String text = String.valueOf(message).strip();
    return text.endsWith(".") ? text.substring(0, text.length() - 1) : text;
  }

  private static boolean looksLikeCni(Pod pod) {
    String name = pod.getMetadata().getName().toLowerCase(Locale.ROOT);
    String labels = String.valueOf(pod.getMetadata().getLabels()).toLowerCase(Locale.ROOT);
    return CNI_NAMES.stream().anyMatch(n -> name.contains(n) || labels.contains(n));
  }
}
