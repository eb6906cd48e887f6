package io.ccm4j.doctor;

import static io.ccm4j.doctor.PodSpecs.CONTROL_PLANE;
import static io.ccm4j.doctor.PodSpecs.MASTER;
import static io.ccm4j.doctor.PodSpecs.NETWORK_UNAVAILABLE;
import static io.ccm4j.doctor.PodSpecs.NOT_READY_NO_EXECUTE;
import static io.ccm4j.doctor.PodSpecs.NOT_READY_NO_SCHEDULE;
import static io.ccm4j.doctor.PodSpecs.UNINITIALIZED;
import static io.ccm4j.doctor.PodSpecs.hasHostnameAntiAffinity;
import static io.ccm4j.doctor.PodSpecs.hasRequiredHostnameAntiAffinity;
import static io.ccm4j.doctor.PodSpecs.mayRunTwo;
import static io.ccm4j.doctor.PodSpecs.missingNotReadyTolerations;
import static io.ccm4j.doctor.PodSpecs.nearMisses;
import static io.ccm4j.doctor.PodSpecs.placement;
import static io.ccm4j.doctor.PodSpecs.surges;
import static io.ccm4j.doctor.PodSpecs.tolerates;
import static io.ccm4j.doctor.PodSpecs.toleratesNetworkUnavailable;
import static io.ccm4j.doctor.PodSpecs.toleratesNotReady;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.doctor.PodSpecs.Placement;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The {@link Rule}s a CCM workload violates, and each finding's severity and wording. */
final class Checks {

  private Checks() {}

  /** Every rule the workload violates. */
  static List<Rule> check(CcmWorkload workload) {
    if (workload.managedClusterKubeconfig().isPresent()) {
      return checkRemote(workload);
    }
    PodSpec pod = workload.pod();
    List<Rule> violated = new ArrayList<>(startRules(workload));
    // The scheduler never sees a static pod or a pod with spec.nodeName: NoSchedule taints and
    // node selection do not apply, and the kubelet admits a static pod whatever its taints.
    boolean scheduled = !workload.bypassesScheduler();
    // Another component (a cloud-node-manager) may initialise nodes: then nothing waits on this
    // CCM.
    if (scheduled && workload.initialisesNodes() && !tolerates(pod, UNINITIALIZED)) {
      violated.add(Rule.TOLERATE_UNINITIALIZED);
    }
    if (scheduled && workload.createsRoutes() && !toleratesNetworkUnavailable(workload)) {
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
      if (PodSpecs.controlPlaneLabelValue(pod).isPresent()) {
        violated.add(Rule.CONTROL_PLANE_LABEL_VALUE);
      }
      if (workload.maxPods() > 1
          && !(workload.object() instanceof DaemonSet)
          && !hasHostnameAntiAffinity(pod)) {
        violated.add(Rule.ANTI_AFFINITY);
      }
      if (!ccmLabelTerms(workload).isEmpty()) {
        violated.add(Rule.TOPOLOGY_KEY_SET_BY_CCM);
      }
      if (rolloutHangs(workload)) {
        violated.add(Rule.ROLLING_UPDATE);
      }
    }
    if ("Pod".equals(workload.kind()) && !workload.isStaticPod()) {
      violated.add(Rule.SCALABLE_WORKLOAD);
    }
    return violated;
  }

  /**
   * The pod's terms keyed on a label only the CCM sets that matter: those that keep it off nodes
   * without the label, and a required anti-affinity term when two of its pods may run at once (for
   * one pod that never surges the term compares it with nothing).
   */
  static List<CcmLabelTerms.Term> ccmLabelTerms(CcmWorkload workload) {
    boolean two = mayRunTwo(workload);
    return CcmLabelTerms.of(workload.pod(), workload.podLabels()).stream()
        .filter(term -> term.filtersUnlabelledNodes() || two)
        .toList();
  }

  /**
   * A CCM that manages another cluster: nothing of that cluster's bootstrap waits on where it runs
   * here, so only the rules about running it reliably apply.
   */
  private static List<Rule> checkRemote(CcmWorkload workload) {
    PodSpec pod = workload.pod();
    List<Rule> violated = new ArrayList<>(startRules(workload));
    violated.add(Rule.MANAGES_REMOTE_CLUSTER);
    if (workload.leaderElectionOff() && mayRunTwo(workload)) {
      violated.add(Rule.LEADER_ELECTION);
    }
    if (!workload.bypassesScheduler()
        && workload.maxPods() > 1
        && !(workload.object() instanceof DaemonSet)
        && !hasHostnameAntiAffinity(pod)) {
      violated.add(Rule.ANTI_AFFINITY);
    }
    if (rolloutHangs(workload)) {
      violated.add(Rule.ROLLING_UPDATE);
    }
    if ("Pod".equals(workload.kind()) && !workload.isStaticPod()) {
      violated.add(Rule.SCALABLE_WORKLOAD);
    }
    return violated;
  }

  /**
   * What keeps the CCM from being created or running as meant: an API version no longer served, a
   * placeholder left to fill in, an argument it refuses.
   */
  private static List<Rule> startRules(CcmWorkload workload) {
    List<Rule> violated = new ArrayList<>();
    if (workload.removedApiVersion().isPresent()) {
      violated.add(Rule.REMOVED_API_VERSION);
    }
    if (!workload.placeholders().isEmpty()) {
      violated.add(Rule.PLACEHOLDER);
    }
    if (!workload.strayArguments().isEmpty()) {
      violated.add(Rule.STRAY_ARGUMENT);
    }
    return violated;
  }

  /**
   * A surging rollout of host-network pods, or of a Deployment's one pod per node, zone or region:
   * the new pod finds no node where it fits (a DaemonSet's surge pod goes to the old one's node,
   * whose port it needs). One replica moves to another node, but a cluster often has one zone and
   * mostly one region: there even one replica's new pod has nowhere to go.
   */
  static boolean rolloutHangs(CcmWorkload workload) {
    PodSpec pod = workload.pod();
    return surges(workload)
        && (Boolean.TRUE.equals(pod.getHostNetwork())
            || (workload.object() instanceof Deployment
                && ((workload.maxPods() > 1 && hasRequiredHostnameAntiAffinity(pod))
                    || !onePerCcmLabelValue(workload).isEmpty())));
  }

  /**
   * The keys of the pod's required anti-affinity terms against its own pods on a label only the CCM
   * sets: once the nodes are labelled, one pod per value.
   */
  private static List<String> onePerCcmLabelValue(CcmWorkload workload) {
    return CcmLabelTerms.of(workload.pod(), workload.podLabels()).stream()
        .filter(term -> term.kind() == CcmLabelTerms.Kind.REQUIRED_ANTI_AFFINITY)
        .map(CcmLabelTerms.Term::key)
        .distinct()
        .toList();
  }

  /**
   * A finding, with its severity and wording for this workload where they depend on it: a missing
   * not-ready toleration deadlocks only when the CCM is on the CNI's critical path (it needs the
   * pod network, or hands out the pod CIDRs or routes the CNI waits for); otherwise it delays the
   * CCM until the CNI is up. Host networking and the not-ready toleration break the bootstrap only
   * when this CCM initialises nodes or hands out what the CNI waits for. A toleration naming the
   * taint that still does not match it is said so, with why.
   */
  static Finding finding(CcmWorkload workload, Rule rule) {
    Finding finding = worded(workload, rule);
    if (rule != Rule.STRAY_ARGUMENT && rule != Rule.LEADER_ELECTION) {
      return finding;
    }
    return workload
        .commandLine()
        .notRewritable()
        .map(
            why ->
                finding.withFix(
                    finding.fix()
                        + " The flag is inside the shell command: change it there by hand (--fix"
                        + " does not rewrite this script: "
                        + why
                        + ")."))
        .orElse(finding);
  }

  private static Finding worded(CcmWorkload workload, Rule rule) {
    PodSpec pod = workload.pod();
    return switch (rule) {
      case TOLERATE_UNINITIALIZED ->
          withNearMisses(workload, rule, rule.severity(), rule.consequence(), UNINITIALIZED);
      case TOLERATE_NETWORK_UNAVAILABLE ->
          withNearMisses(workload, rule, rule.severity(), rule.consequence(), NETWORK_UNAVAILABLE);
      case TOLERATE_CONTROL_PLANE ->
          withNearMisses(workload, rule, rule.severity(), rule.consequence(), CONTROL_PLANE);
      case TOLERATE_NOT_READY -> notReady(workload);
      case TOPOLOGY_KEY_SET_BY_CCM -> ccmLabelTopology(workload);
      case STRAY_ARGUMENT -> strayArguments(workload);
      case REMOVED_API_VERSION ->
          Finding.of(
              workload,
              rule,
              rule.severity(),
              "It is written as %s %s. %s"
                  .formatted(
                      workload.kind(),
                      workload.removedApiVersion().orElseThrow(),
                      rule.consequence()),
              workload.selector().isPresent()
                  ? "Write apiVersion: apps/v1."
                  : workload.podLabels().isEmpty()
                      ? rule.fix() + " The pod template has no labels: give it some to select."
                      : rule.fix() + " --fix does both.");
      case PLACEHOLDER ->
          Finding.of(
              workload,
              rule,
              rule.severity(),
              "The CCM container holds a placeholder left to fill in: "
                  + String.join(", ", workload.placeholders())
                  + ". "
                  + rule.consequence()
                  + (workload.placeholders().stream().anyMatch(p -> p.startsWith("image "))
                      ? " An image reference with one is invalid: the kubelet reports"
                          + " InvalidImageName and the CCM never starts."
                      : " The CCM is started with the placeholder's text as the value."));
      case HOST_NETWORK -> {
        if (onBootstrapPath(workload)) {
          yield Finding.of(workload, rule);
        }
        yield Finding.of(
            workload,
            rule,
            Rule.Severity.WARNING,
            notInitialising(workload)
                + " without host networking it only starts once the CNI is up, and needs the pod"
                + " network to reach the cloud and the API server: slower, not a deadlock.");
      }
      case MASTER_SELECTOR ->
          Finding.of(
              workload,
              rule,
              rule.severity(),
              rule.consequence(),
              (tolerates(pod, CONTROL_PLANE) ? rule.fix() : rule.fix() + THEN_TOLERATE)
                  + (tolerates(pod, MASTER) ? "" : ALSO_TOLERATE_MASTER));
      case CONTROL_PLANE_LABEL_VALUE ->
          Finding.of(
              workload,
              rule,
              rule.severity(),
              "It asks for "
                  + PodSpecs.controlPlaneLabelValue(pod).orElseThrow()
                  + ". "
                  + rule.consequence());
      case CONTROL_PLANE_PLACEMENT ->
          Finding.of(
              workload,
              rule,
              rule.severity(),
              (workload.initialisesNodes()
                      ? rule.consequence()
                      : "The CCM may land on worker nodes and compete with workloads (it"
                          + " initialises no node: "
                          + workload.leftOut(
                              Controllers.CLOUD_NODE, "--controllers leaves out cloud-node")
                          + ").")
                  + preferredPlacement(pod),
              (tolerates(pod, CONTROL_PLANE) ? rule.fix() : rule.fix() + THEN_TOLERATE)
                  + (tolerates(pod, MASTER) ? "" : ALSO_TOLERATE_MASTER));
      case MANAGES_REMOTE_CLUSTER ->
          Finding.of(
              workload,
              rule,
              rule.severity(),
              "Taken for managing another cluster: "
                  + workload.managedClusterKubeconfig().orElseThrow()
                  + ". "
                  + rule.consequence());
      case SCALABLE_WORKLOAD ->
          Finding.of(
              workload,
              rule,
              rule.severity(),
              workload
                  .apiObjectReference()
                  .map(
                      reference ->
                          rule.consequence()
                              + " It references "
                              + reference
                              + ", which a static pod cannot, so it is taken for a Pod applied"
                              + " with kubectl (--static-pod says otherwise).")
                  .orElse(rule.consequence()));
      case ROLLING_UPDATE ->
          Finding.of(
              workload,
              rule,
              rule.severity(),
              (workload.object() instanceof DaemonSet
                      ? rule.consequence()
                      : placement(pod) == Placement.ANYWHERE
                          ? rule.consequence() + anyNode(pod)
                          : rule.consequence()
                              + " The pod runs on control-plane nodes only: with one control-plane"
                              + " node, one replica is already that many.")
                  + onePerValue(workload));
      default -> Finding.of(workload, rule);
    };
  }

  /**
   * Each stray argument, with the flag it follows, and the value meant: the bool written into its
   * flag. A leader election meant off where two managers may run is turned on instead, as {@link
   * Rule#LEADER_ELECTION} asks.
   */
  private static Finding strayArguments(CcmWorkload workload) {
    List<String> read = new ArrayList<>();
    List<String> fixes = new ArrayList<>();
    for (CcmFlags.StrayArgument stray : workload.strayArguments()) {
      read.add(
          "%s %s is read as %s on and an argument \"%s\""
              .formatted(stray.flag(), stray.word(), stray.flag(), stray.word()));
      fixes.add(
          stray
              .meant()
              .map(
                  meant ->
                      CcmFlags.leaderElectionOff(List.of(meant)) && mayRunTwo(workload)
                          ? "write "
                              + meant
                              + " if that was meant; but two managers may run at once, so leader"
                              + " election must stay on (leader-election): --fix writes "
                              + CcmFlags.LEADER_ELECT
                              + "=true"
                          : "write " + meant)
              .orElse(
                  "remove \"" + stray.word() + "\" or give " + stray.flag() + " a value with '='"));
    }
    Rule rule = Rule.STRAY_ARGUMENT;
    return Finding.of(
        workload,
        rule,
        rule.severity(),
        String.join("; ", read) + ". " + rule.consequence(),
        capitalised(String.join("; ", fixes)) + ".");
  }

  private static String capitalised(String text) {
    return text.isEmpty() ? text : Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }

  /**
   * Why a surging rollout of a pod that may run on any node can still hang: on the host network the
   * new pod's port is taken on the old one's node, which the scheduler avoids only when the port is
   * declared (a containerPort of a host-network pod is a host port).
   */
  private static String anyNode(PodSpec pod) {
    if (!Boolean.TRUE.equals(pod.getHostNetwork())) {
      return "";
    }
    boolean declaresPorts =
        pod.getContainers().stream()
            .anyMatch(c -> c != null && c.getPorts() != null && !c.getPorts().isEmpty());
    return declaresPorts
        ? " The pod may run on any node and declares its ports, so the scheduler keeps the new pod"
            + " off the old one's node: it hangs only when no other node fits."
        : " The pod may run on any node: the rollout hangs when the new pod is put on the old"
            + " one's node, where the port the CCM listens on (10258, --secure-port) is taken and"
            + " it cannot start; the scheduler avoids that node only when the container declares"
            + " the port (on the host network a containerPort is a host port).";
  }

  /** When a required anti-affinity on a zone or region label hangs the rollout, said. */
  private static String onePerValue(CcmWorkload workload) {
    List<String> keys =
        workload.object() instanceof Deployment ? onePerCcmLabelValue(workload) : List.of();
    return keys.isEmpty()
        ? ""
        : " Its required anti-affinity against its own pods on "
            + String.join(" and ", keys)
            + " allows one pod per value of the label once the nodes are labelled (until then it"
            + " keeps nothing apart): with as many values as replicas, on a cluster in one region"
            + " or one zone even with one replica, the new pod has nowhere to go.";
  }

  /** What a preferred node affinity on the control-plane or master label does, said. */
  private static String preferredPlacement(PodSpec pod) {
    String said = "";
    if (PodSpecs.prefersLabel(pod, WellKnownLabels.ROLE_CONTROL_PLANE)) {
      said +=
          " Its preferred node affinity for node-role.kubernetes.io/control-plane is only a"
              + " preference: the scheduler still places it on a worker when no control-plane node"
              + " fits.";
    }
    if (PodSpecs.prefersLabel(pod, WellKnownLabels.ROLE_MASTER)) {
      said +=
          " Its preferred node affinity for node-role.kubernetes.io/master matches no node of a"
              + " current cluster (kubeadm no longer sets that label since Kubernetes 1.24), so it"
              + " prefers nothing; the fix asks for node-role.kubernetes.io/control-plane there too.";
    }
    return said;
  }

  /**
   * That this CCM cannot hold up a new node, saying why it initialises none and why its route
   * controller creates no routes.
   */
  private static String notInitialising(CcmWorkload workload) {
    return ("This CCM does not initialise nodes (%s) and hands out no pod CIDRs or routes (%s), so"
            + " nothing a new node needs waits for it:")
        .formatted(
            workload.leftOut(Controllers.CLOUD_NODE, "--controllers leaves out cloud-node"),
            workload.whyNoRoutes().orElse(""));
  }

  private static final String THEN_TOLERATE =
      " Control-plane nodes carry node-role.kubernetes.io/control-plane:NoSchedule: then tolerate"
          + " it too (tolerating only node-role.kubernetes.io/master, the taint before Kubernetes"
          + " 1.25, is not enough).";

  /** What the fix adds beside the placement when the pod does not tolerate the master taint. */
  private static final String ALSO_TOLERATE_MASTER =
      " The fix also tolerates node-role.kubernetes.io/master:NoSchedule, which the control-plane"
          + " nodes of a cluster set up before Kubernetes 1.25 may still carry.";

  /**
   * Whether this CCM can hold up a new node: it initialises nodes, or hands out the pod CIDRs or
   * routes the CNI waits for.
   */
  private static boolean onBootstrapPath(CcmWorkload workload) {
    return workload.initialisesNodes() || workload.allocatesNodeCidrs() || workload.createsRoutes();
  }

  private static Finding withNearMisses(
      CcmWorkload workload,
      Rule rule,
      Rule.Severity severity,
      String consequence,
      Taint... taints) {
    StringBuilder text = new StringBuilder(consequence);
    for (Taint taint : taints) {
      for (String miss : nearMisses(workload.pod(), taint)) {
        text.append(' ').append(miss);
      }
    }
    return Finding.of(workload, rule, severity, text.toString());
  }

  /**
   * Terms keyed on a label only the CCM sets: a deadlock when one keeps the pod off nodes without
   * the label and this CCM is what labels them; a required anti-affinity term lets the pod
   * schedule, but holds only on labelled nodes, and there allows one pod per label value.
   */
  private static Finding ccmLabelTopology(CcmWorkload workload) {
    Rule rule = Rule.TOPOLOGY_KEY_SET_BY_CCM;
    String podPath = "Pod".equals(workload.kind()) ? "spec." : "spec.template.spec.";
    List<CcmLabelTerms.Term> terms = ccmLabelTerms(workload);
    List<String> filtering = new ArrayList<>();
    List<String> apart = new ArrayList<>();
    List<String> filters = new ArrayList<>();
    for (CcmLabelTerms.Term term : terms) {
      (term.filtersUnlabelledNodes() ? filtering : apart).add(term.said(podPath));
      String filter = FILTERS.get(term.kind());
      if (filter != null && !filters.contains(filter)) {
        filters.add(filter);
      }
    }
    String setBy =
        ", a label only the cloud-controller-manager sets, when it initialises a node (the kubelet"
            + " sets kubernetes.io/hostname when it registers it).";
    if (!filtering.isEmpty()) {
      String consequence =
          String.join("; ", filtering)
              + setBy
              + " The scheduler rejects every node without the label for "
              + String.join(" or ", filters)
              + (workload.object() instanceof DaemonSet
                      && terms.stream().anyMatch(t -> FILTERS_BY_NODE_AFFINITY.contains(t.kind()))
                  ? "; the DaemonSet controller creates no pod for such a node"
                  : "")
              + ". ";
      boolean deadlock = workload.initialisesNodes();
      consequence +=
          deadlock
              ? "Before this CCM has run no node has it, so it never schedules (deadlock), unless"
                  + " the kubelets set the label themselves (--node-labels)."
              : "This CCM initialises no node ("
                  + workload.leftOut(Controllers.CLOUD_NODE, "--controllers leaves out cloud-node")
                  + "): it schedules only once the component that does has labelled a node.";
      if (!apart.isEmpty()) {
        consequence += " Also " + String.join("; ", apart) + "." + ANTI_AFFINITY_ON_CCM_LABEL;
      }
      return Finding.of(
          workload,
          rule,
          deadlock ? Rule.Severity.ERROR : Rule.Severity.WARNING,
          consequence,
          rule.fix() + " --fix does so" + nodeSelectionFix(terms) + ".");
    }
    return Finding.of(
        workload,
        rule,
        Rule.Severity.WARNING,
        String.join("; ", apart)
            + setBy
            + " A node without the label is not rejected for a required anti-affinity term (the"
            + " scheduler counts only the pods on nodes that have it), so the CCM schedules at"
            + " bootstrap: no deadlock."
            + ANTI_AFFINITY_ON_CCM_LABEL,
        "Make the term preferred (weight 100): it still spreads the pods over the label's values"
            + " where it can, and keeps none Pending."
            + (workload.maxPods() > 1 && !(workload.object() instanceof DaemonSet)
                ? " Keep replicas apart with a required anti-affinity on kubernetes.io/hostname,"
                    + " which the kubelet sets when it registers the node."
                : "")
            + " --fix does so.");
  }

  /**
   * What the fix does to the node selection, said: a nodeSelector has no preferred form, so the
   * entry leaves it; a required node selector term keeps its other requirements.
   */
  private static String nodeSelectionFix(List<CcmLabelTerms.Term> terms) {
    List<String> selected =
        terms.stream()
            .filter(t -> t.kind() == CcmLabelTerms.Kind.NODE_SELECTOR)
            .map(CcmLabelTerms.Term::key)
            .toList();
    String said =
        selected.isEmpty()
            ? ""
            : ": it removes "
                + String.join(", ", selected)
                + " from the nodeSelector (which has no preferred form) and asks for the same"
                + " value in the preferred node affinity";
    if (terms.stream().anyMatch(t -> t.kind() == CcmLabelTerms.Kind.REQUIRED_NODE_AFFINITY)) {
      said +=
          (said.isEmpty() ? ": it" : "; it")
              + " copies each required node selector term that asks for such a label to the"
              + " preferred ones and keeps it required without those requirements (one left with"
              + " none is dropped)";
    }
    return said;
  }

  private static final String NODE_AFFINITY_FILTER =
      "a nodeSelector or required node affinity that asks for it (\"didn't match Pod's node"
          + " affinity/selector\")";

  /**
   * What each filtering kind of term is, and the scheduler's message for a node without the key.
   */
  private static final Map<CcmLabelTerms.Kind, String> FILTERS =
      Map.of(
          CcmLabelTerms.Kind.SPREAD_DO_NOT_SCHEDULE,
          "a spread constraint that must be satisfied (\"missing required label\")",
          CcmLabelTerms.Kind.REQUIRED_AFFINITY,
          "a required pod affinity term (\"didn't match pod affinity rules\")",
          CcmLabelTerms.Kind.NODE_SELECTOR,
          NODE_AFFINITY_FILTER,
          CcmLabelTerms.Kind.REQUIRED_NODE_AFFINITY,
          NODE_AFFINITY_FILTER);

  private static final Set<CcmLabelTerms.Kind> FILTERS_BY_NODE_AFFINITY =
      Set.of(CcmLabelTerms.Kind.NODE_SELECTOR, CcmLabelTerms.Kind.REQUIRED_NODE_AFFINITY);

  private static final String ANTI_AFFINITY_ON_CCM_LABEL =
      " Until the nodes are labelled the term keeps the pods apart nowhere (two may share a node);"
          + " once they are, at most one of them runs per value of the label:"
          + " with fewer values than pods that may run at once (the replicas, and a rollout's new"
          + " pod beside the old one), the rest stay Pending, and a rollout that waits for its new"
          + " pod before stopping the old one (maxUnavailable: 0) hangs.";

  private static Finding notReady(CcmWorkload workload) {
    PodSpec pod = workload.pod();
    boolean hostNetwork = Boolean.TRUE.equals(pod.getHostNetwork());
    boolean handsOut = workload.allocatesNodeCidrs() || workload.createsRoutes();
    String start =
        "It does not tolerate "
            + String.join(" nor ", missingNotReadyTolerations(workload))
            + "; new nodes are not ready until the CNI runs. ";
    if (!onBootstrapPath(workload)) {
      return withNearMisses(
          workload,
          Rule.TOLERATE_NOT_READY,
          Rule.Severity.WARNING,
          start
              + notInitialising(workload)
              + " it only starts once the CNI has: slower, not a deadlock.",
          NOT_READY_NO_SCHEDULE,
          NOT_READY_NO_EXECUTE);
    }
    boolean onCniPath = !hostNetwork || handsOut;
    String consequence =
        start
            + (onCniPath
                ? "The CNI waits for this CCM (it needs the pod network, or gives the pod CIDRs or"
                    + " routes the CNI waits for): deadlock."
                : "The CCM runs on the host network, hands out no pod CIDRs (no"
                    + " --allocate-node-cidrs) and creates no routes ("
                    + workload.whyNoRoutes().orElse("")
                    + "), so it only starts once the CNI has: slower, not a deadlock, unless the CNI"
                    + " waits for the node addresses this CCM sets (some do, to pick the node's"
                    + " IP): then it is one.");
    return withNearMisses(
        workload,
        Rule.TOLERATE_NOT_READY,
        onCniPath ? Rule.Severity.ERROR : Rule.Severity.WARNING,
        consequence,
        NOT_READY_NO_SCHEDULE,
        NOT_READY_NO_EXECUTE);
  }
}
