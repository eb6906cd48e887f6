package io.ccm4j.doctor;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodehealth.Tolerations;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.PodAffinityTermBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
  private static final Taint CONTROL_PLANE =
      new TaintBuilder()
          .withKey(WellKnownTaints.CONTROL_PLANE)
          .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
          .build();

  private Doctor() {}

  /** The CCM workloads among the documents. */
  public static List<CcmWorkload> workloads(List<ManifestDocument> documents) {
    return documents.stream().flatMap(d -> CcmWorkload.detect(d).stream()).toList();
  }

  /** Every rule the workload violates. */
  public static List<Rule> check(CcmWorkload workload) {
    PodSpec pod = workload.pod();
    List<Rule> violated = new ArrayList<>();
    if (!tolerates(pod, UNINITIALIZED)) {
      violated.add(Rule.TOLERATE_UNINITIALIZED);
    }
    if (!tolerates(pod, NOT_READY_NO_SCHEDULE) || !tolerates(pod, NOT_READY_NO_EXECUTE)) {
      violated.add(Rule.TOLERATE_NOT_READY);
    }
    if (!Boolean.TRUE.equals(pod.getHostNetwork())) {
      violated.add(Rule.HOST_NETWORK);
    }
    if (workload.maxPods() > 1 && workload.leaderElectionOff()) {
      violated.add(Rule.LEADER_ELECTION);
    }
    boolean onControlPlane = selectsControlPlane(pod);
    if (onControlPlane && !tolerates(pod, CONTROL_PLANE)) {
      violated.add(Rule.TOLERATE_CONTROL_PLANE);
    }
    if (!onControlPlane) {
      violated.add(Rule.CONTROL_PLANE_PLACEMENT);
    }
    if (workload.maxPods() > 1
        && !(workload.object() instanceof DaemonSet)
        && !hasHostnameAntiAffinity(pod)) {
      violated.add(Rule.ANTI_AFFINITY);
    }
    if ("Pod".equals(workload.kind())) {
      violated.add(Rule.SCALABLE_WORKLOAD);
    }
    return violated;
  }

  /** All findings for all workloads. */
  public static List<Finding> examine(List<ManifestDocument> documents) {
    List<Finding> findings = new ArrayList<>();
    for (CcmWorkload workload : workloads(documents)) {
      check(workload).forEach(rule -> findings.add(Finding.of(workload, rule)));
    }
    return findings;
  }

  /** Changes the workload in place so that every fixable rule passes. */
  public static void fix(CcmWorkload workload) {
    PodSpec pod = workload.pod();
    List<Toleration> tolerations =
        new ArrayList<>(pod.getTolerations() == null ? List.of() : pod.getTolerations());
    if (!tolerates(pod, UNINITIALIZED)) {
      tolerations.add(
          new TolerationBuilder()
              .withKey(WellKnownTaints.UNINITIALIZED)
              .withOperator("Exists")
              .withEffect("NoSchedule")
              .build());
    }
    pod.setTolerations(tolerations);
    if (!tolerates(pod, NOT_READY_NO_SCHEDULE) || !tolerates(pod, NOT_READY_NO_EXECUTE)) {
      tolerations.add(
          new TolerationBuilder()
              .withKey(WellKnownTaints.NODE_NOT_READY)
              .withOperator("Exists")
              .build());
    }
    pod.setHostNetwork(true);
    if (workload.maxPods() > 1) {
      for (Container container : pod.getContainers()) {
        if (container.getArgs() != null) {
          container.setArgs(
              container.getArgs().stream()
                  .map(a -> a.equals("--leader-elect=false") ? "--leader-elect=true" : a)
                  .toList());
        }
        if (container.getCommand() != null) {
          container.setCommand(
              container.getCommand().stream()
                  .map(a -> a.equals("--leader-elect=false") ? "--leader-elect=true" : a)
                  .toList());
        }
      }
    }
    if (!selectsControlPlane(pod)) {
      Map<String, String> selector =
          new LinkedHashMap<>(pod.getNodeSelector() == null ? Map.of() : pod.getNodeSelector());
      selector.put(WellKnownLabels.ROLE_CONTROL_PLANE, "");
      pod.setNodeSelector(selector);
    }
    if (!tolerates(pod, CONTROL_PLANE)) {
      tolerations.add(
          new TolerationBuilder()
              .withKey(WellKnownTaints.CONTROL_PLANE)
              .withOperator("Exists")
              .withEffect("NoSchedule")
              .build());
    }
    pod.setTolerations(tolerations);
    if (workload.maxPods() > 1
        && !(workload.object() instanceof DaemonSet)
        && !hasHostnameAntiAffinity(pod)
        && !workload.podLabels().isEmpty()) {
      pod.setAffinity(
          new AffinityBuilder(
                  pod.getAffinity() == null
                      ? new io.fabric8.kubernetes.api.model.Affinity()
                      : pod.getAffinity())
              .withNewPodAntiAffinity()
              .withRequiredDuringSchedulingIgnoredDuringExecution(
                  new PodAffinityTermBuilder()
                      .withTopologyKey(WellKnownLabels.HOSTNAME)
                      .withLabelSelector(
                          new LabelSelectorBuilder().withMatchLabels(workload.podLabels()).build())
                      .build())
              .endPodAntiAffinity()
              .build());
    }
  }

  static boolean tolerates(PodSpec pod, Taint taint) {
    List<Toleration> tolerations = pod.getTolerations() == null ? List.of() : pod.getTolerations();
    return tolerations.stream().anyMatch(t -> Tolerations.tolerates(t, taint));
  }

  /** A nodeSelector or required node affinity on the control-plane role label. */
  static boolean selectsControlPlane(PodSpec pod) {
    if (pod.getNodeSelector() != null
        && pod.getNodeSelector().containsKey(WellKnownLabels.ROLE_CONTROL_PLANE)) {
      return true;
    }
    var affinity = pod.getAffinity();
    if (affinity == null
        || affinity.getNodeAffinity() == null
        || affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution() == null) {
      return false;
    }
    return affinity
        .getNodeAffinity()
        .getRequiredDuringSchedulingIgnoredDuringExecution()
        .getNodeSelectorTerms()
        .stream()
        .filter(term -> term.getMatchExpressions() != null)
        .flatMap(term -> term.getMatchExpressions().stream())
        .anyMatch(
            e ->
                WellKnownLabels.ROLE_CONTROL_PLANE.equals(e.getKey())
                    && "Exists".equals(e.getOperator()));
  }

  static boolean hasHostnameAntiAffinity(PodSpec pod) {
    var affinity = pod.getAffinity();
    if (affinity == null || affinity.getPodAntiAffinity() == null) {
      return false;
    }
    var required =
        affinity.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
    var preferred =
        affinity.getPodAntiAffinity().getPreferredDuringSchedulingIgnoredDuringExecution();
    return (required != null
            && required.stream().anyMatch(t -> WellKnownLabels.HOSTNAME.equals(t.getTopologyKey())))
        || (preferred != null
            && preferred.stream()
                .anyMatch(
                    t ->
                        t.getPodAffinityTerm() != null
                            && WellKnownLabels.HOSTNAME.equals(
                                t.getPodAffinityTerm().getTopologyKey())));
  }
}
