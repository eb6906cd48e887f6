package io.ccm4j.doctor;

import static io.ccm4j.doctor.PodSpecs.CONTROL_PLANE;
import static io.ccm4j.doctor.PodSpecs.NETWORK_UNAVAILABLE;
import static io.ccm4j.doctor.PodSpecs.UNINITIALIZED;
import static io.ccm4j.doctor.PodSpecs.hasHostnameAntiAffinity;
import static io.ccm4j.doctor.PodSpecs.hasRequiredHostnameAntiAffinity;
import static io.ccm4j.doctor.PodSpecs.mayRunTwo;
import static io.ccm4j.doctor.PodSpecs.missingNotReadyTolerations;
import static io.ccm4j.doctor.PodSpecs.placement;
import static io.ccm4j.doctor.PodSpecs.surges;
import static io.ccm4j.doctor.PodSpecs.tolerates;
import static io.ccm4j.doctor.PodSpecs.toleratesNotReady;

import io.ccm4j.doctor.PodSpecs.Placement;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.ArrayList;
import java.util.List;

/** The {@link Rule}s a CCM workload violates, and each finding's severity and wording. */
final class Checks {

  private Checks() {}

  /** Every rule the workload violates. */
  static List<Rule> check(CcmWorkload workload) {
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
   * A finding, with its severity and wording for this workload where they depend on it: a missing
   * not-ready toleration deadlocks only when the CCM is on the CNI's critical path (it needs the
   * pod network, or hands out the pod CIDRs or routes the CNI waits for); otherwise it delays the
   * CCM until the CNI is up. The message names the effects that are missing.
   */
  static Finding finding(CcmWorkload workload, Rule rule) {
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
}
