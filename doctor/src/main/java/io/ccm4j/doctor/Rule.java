package io.ccm4j.doctor;

/**
 * The recommendations of seed {@code 004} (the Kubernetes blog post "Cloud controller managers and
 * the chicken-and-egg problem") and of the CCM administration page ({@code 002}), as checks.
 */
public enum Rule {
  TOLERATE_UNINITIALIZED(
      "tolerate-uninitialized",
      Severity.ERROR,
      "004",
      "The pod never schedules: every new node carries node.cloudprovider.kubernetes.io/uninitialized"
          + " until the cloud-controller-manager removes it, so nothing removes it (deadlock).",
      "Tolerate node.cloudprovider.kubernetes.io/uninitialized (NoSchedule)."),
  TOLERATE_NOT_READY(
      "tolerate-not-ready",
      Severity.ERROR,
      "004",
      "The CNI waits for node addresses only the CCM sets; the node stays not-ready with the not-ready"
          + " NoSchedule and NoExecute taints, which keep out or evict the CCM pod (deadlock).",
      "Tolerate node.kubernetes.io/not-ready (all effects)."),
  HOST_NETWORK(
      "host-network",
      Severity.ERROR,
      "004",
      "Without host networking the pod needs the pod network, which the CNI sets up only once the CCM"
          + " has given the node its addresses (deadlock).",
      "Set hostNetwork: true."),
  LEADER_ELECTION(
      "leader-election",
      Severity.ERROR,
      "004",
      "More than one instance without leader election: several managers act at once and fight over"
          + " nodes, load balancers and routes.",
      "Remove --leader-elect=false (leader election is on by default)."),
  TOLERATE_CONTROL_PLANE(
      "tolerate-control-plane",
      Severity.ERROR,
      "004",
      "The pod may only run on control-plane nodes, which carry node-role.kubernetes.io/control-plane"
          + ":NoSchedule, and does not tolerate it: it never schedules.",
      "Tolerate node-role.kubernetes.io/control-plane (NoSchedule)."),
  CONTROL_PLANE_PLACEMENT(
      "control-plane-placement",
      Severity.WARNING,
      "004",
      "The CCM may land on worker nodes, which it must initialise first, and compete with workloads.",
      "Select control-plane nodes: a required node affinity on node-role.kubernetes.io/control-plane"
          + " Exists (set on every cluster since 1.24; the API server warns about the master label)."),
  MASTER_SELECTOR(
      "master-selector",
      Severity.WARNING,
      "004",
      "The pod selects only node-role.kubernetes.io/master, a label kubeadm no longer sets since"
          + " Kubernetes 1.24: on such clusters no node matches and the pod never schedules.",
      "Select control-plane nodes: a required node affinity with two terms,"
          + " node-role.kubernetes.io/control-plane Exists or node-role.kubernetes.io/master Exists."),
  ANTI_AFFINITY(
      "anti-affinity",
      Severity.WARNING,
      "004",
      "Several replicas may land on one node and fail together.",
      "Add a required pod anti-affinity on kubernetes.io/hostname."),
  ROLLING_UPDATE(
      "rolling-update",
      Severity.WARNING,
      "004",
      "One replica per node (required anti-affinity) and a rolling update that surges: with as many"
          + " eligible nodes as replicas the new pod has no node to go to and the rollout hangs.",
      "Set strategy.rollingUpdate to maxSurge: 0, maxUnavailable: 1."),
  SCALABLE_WORKLOAD(
      "scalable-workload",
      Severity.WARNING,
      "004",
      "A bare Pod is not recreated if it or its node fails; node initialisation then stops.",
      "Run it as a Deployment (with leader election) or a DaemonSet.");

  /** How bad a finding is; errors make the doctor exit non-zero. */
  public enum Severity {
    ERROR,
    WARNING
  }

  private final String id;
  private final Severity severity;
  private final String seed;
  private final String consequence;
  private final String fix;

  Rule(String id, Severity severity, String seed, String consequence, String fix) {
    this.id = id;
    this.severity = severity;
    this.seed = seed;
    this.consequence = consequence;
    this.fix = fix;
  }

  public String id() {
    return id;
  }

  public Severity severity() {
    return severity;
  }

  public String seed() {
    return seed;
  }

  public String consequence() {
    return consequence;
  }

  public String fix() {
    return fix;
  }
}
