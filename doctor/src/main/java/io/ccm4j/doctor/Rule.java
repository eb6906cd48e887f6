package io.ccm4j.doctor;

/**
 * The recommendations of the Kubernetes blog post "The Cloud Controller Manager Chicken and Egg
 * Problem" ({@link Source#CHICKEN_AND_EGG}), as checks, and what keeps the CCM from starting at
 * all.
 */
public enum Rule {
  REMOVED_API_VERSION(
      "removed-api-version",
      Severity.ERROR,
      Source.API_MIGRATION,
      "Kubernetes has served Deployments, DaemonSets, StatefulSets and ReplicaSets only as apps/v1"
          + " since 1.16: kubectl apply fails (no matches for the kind in this version) and"
          + " nothing is created.",
      "Write apiVersion: apps/v1. It requires spec.selector, which the old versions defaulted to"
          + " the pod template's labels: select those labels (matchLabels)."),
  PLACEHOLDER(
      "placeholder",
      Severity.ERROR,
      Source.ENV_EXPANSION,
      "Kubernetes fills in no placeholder: it expands only $(VAR), from the container's own"
          + " environment, in command, args and env values; anything else reaches the container as"
          + " written.",
      "Replace each placeholder with its value before applying (envsubst fills ${NAME} from the"
          + " environment; a Helm template is rendered with helm template)."),
  STRAY_ARGUMENT(
      "stray-argument",
      Severity.ERROR,
      Source.PFLAG,
      "pflag, the upstream manager's flag parser, takes a bool flag's value only after '=': the flag"
          + " is on and the word after it an argument, which cloud-controller-manager refuses"
          + " (\"cloud-controller-manager\" does not take any arguments): it exits at start, and"
          + " nothing it should do happens.",
      "Write the value with '=' (--leader-elect=false), or remove the word."),
  TOLERATE_UNINITIALIZED(
      "tolerate-uninitialized",
      Severity.ERROR,
      Source.CHICKEN_AND_EGG,
      "The pod never schedules: every new node carries node.cloudprovider.kubernetes.io/uninitialized"
          + " until the cloud-controller-manager removes it, so nothing removes it (deadlock).",
      "Tolerate node.cloudprovider.kubernetes.io/uninitialized (NoSchedule)."),
  TOLERATE_NETWORK_UNAVAILABLE(
      "tolerate-network-unavailable",
      Severity.ERROR,
      Source.CHICKEN_AND_EGG,
      "This CCM creates the routes for pod CIDRs (--allocate-node-cidrs with the route controller):"
          + " until it has, new nodes carry node.kubernetes.io/network-unavailable:NoSchedule, which"
          + " pods do not tolerate by default (the DaemonSet controller adds the toleration only to"
          + " pods on the host network), so the CCM never schedules (deadlock).",
      "Tolerate node.kubernetes.io/network-unavailable (NoSchedule)."),
  TOLERATE_NOT_READY(
      "tolerate-not-ready",
      Severity.ERROR,
      Source.CHICKEN_AND_EGG,
      "The CNI waits for node addresses only the CCM sets; the node stays not-ready with the not-ready"
          + " NoSchedule and NoExecute taints, which keep out or evict the CCM pod (deadlock).",
      "Tolerate node.kubernetes.io/not-ready (all effects)."),
  HOST_NETWORK(
      "host-network",
      Severity.ERROR,
      Source.CHICKEN_AND_EGG,
      "Without host networking the pod needs the pod network, which the CNI sets up only once the CCM"
          + " has given the node its addresses (deadlock).",
      "Set hostNetwork: true."),
  LEADER_ELECTION(
      "leader-election",
      Severity.ERROR,
      Source.CHICKEN_AND_EGG,
      "Two instances without leader election (several replicas, or a rollout that starts the new pod"
          + " before the old one stops): two managers act at once and fight over nodes, load"
          + " balancers and routes.",
      "Remove --leader-elect=false (leader election is on by default)."),
  TOLERATE_CONTROL_PLANE(
      "tolerate-control-plane",
      Severity.ERROR,
      Source.CHICKEN_AND_EGG,
      "The pod may only run on control-plane nodes, which carry node-role.kubernetes.io/control-plane"
          + ":NoSchedule, and does not tolerate it (tolerating only node-role.kubernetes.io/master,"
          + " the taint before Kubernetes 1.25, is not enough): it never schedules.",
      "Tolerate node-role.kubernetes.io/control-plane (NoSchedule)."),
  CONTROL_PLANE_PLACEMENT(
      "control-plane-placement",
      Severity.WARNING,
      Source.CHICKEN_AND_EGG,
      "The CCM may land on worker nodes, which it must initialise first, and compete with workloads.",
      "Select control-plane nodes: a required node affinity on node-role.kubernetes.io/control-plane"
          + " Exists (set on every cluster since 1.24; the API server warns about the master label)."),
  MASTER_SELECTOR(
      "master-selector",
      Severity.ERROR,
      Source.CHICKEN_AND_EGG,
      "The pod selects only node-role.kubernetes.io/master (or the legacy kubernetes.io/role=master),"
          + " a label kubeadm no longer sets since Kubernetes 1.24 (and its taint since 1.25): on the"
          + " clusters users run no node matches and the pod never schedules.",
      "Select control-plane nodes: node-role.kubernetes.io/control-plane Exists in place of"
          + " the master label, in the required node affinity (a nodeSelector on the master label"
          + " becomes that affinity)."),
  CONTROL_PLANE_LABEL_VALUE(
      "control-plane-label-value",
      Severity.WARNING,
      Source.CHICKEN_AND_EGG,
      "The pod selects node-role.kubernetes.io/control-plane with a value, but kubeadm sets that"
          + " label with an empty value: on kubeadm's clusters no node matches and the pod never"
          + " schedules (k3s and RKE2 set \"true\", so there it does).",
      "Select the label whatever its value: node-role.kubernetes.io/control-plane Exists in the"
          + " required node affinity (a nodeSelector with a value becomes that affinity)."),
  ANTI_AFFINITY(
      "anti-affinity",
      Severity.WARNING,
      Source.CHICKEN_AND_EGG,
      "Several replicas may land on one node and fail together.",
      "Add a required pod anti-affinity on kubernetes.io/hostname."),
  TOPOLOGY_KEY_SET_BY_CCM(
      "topology-key-set-by-ccm",
      Severity.ERROR,
      Source.SCHEDULER,
      "The scheduler rejects every node without the topology key of a spread constraint with"
          + " whenUnsatisfiable: DoNotSchedule or of a required pod affinity term, and every node"
          + " without a label a nodeSelector or the required node affinity asks for, and only the"
          + " cloud-controller-manager sets the zone, region and instance-type labels, when it"
          + " initialises a node: before it has run no node has them, so it never schedules"
          + " (deadlock).",
      "Spread with whenUnsatisfiable: ScheduleAnyway and make such pod (anti-)affinity terms"
          + " preferred; to keep replicas apart, use a required anti-affinity on"
          + " kubernetes.io/hostname, which the kubelet sets when it registers the node. Ask for"
          + " such a label in the preferred node affinity (weight 100) instead of the nodeSelector"
          + " or the required node affinity: the scheduler then prefers the nodes that have it"
          + " once they are labelled and takes any other until then."),
  ROLLING_UPDATE(
      "rolling-update",
      Severity.WARNING,
      Source.CHICKEN_AND_EGG,
      "Host networking, or one replica per node, zone or region (required anti-affinity), and a"
          + " rolling update that surges: the new pod needs a node where the old one's port or place"
          + " is free, and with as many eligible nodes (zones, regions) as replicas it has none (a"
          + " DaemonSet's new pod is bound to the old one's node); the rollout hangs.",
      "Set the rolling update (a Deployment's strategy, a DaemonSet's updateStrategy) to"
          + " maxSurge: 0, maxUnavailable: 1."),
  SCALABLE_WORKLOAD(
      "scalable-workload",
      Severity.WARNING,
      Source.CHICKEN_AND_EGG,
      "A bare Pod is not recreated if it or its node fails; node initialisation then stops.",
      "Run it as a Deployment (with leader election) or a DaemonSet."),
  MANAGES_REMOTE_CLUSTER(
      "manages-remote-cluster",
      Severity.INFO,
      Source.CHICKEN_AND_EGG,
      "It manages another cluster than the one it runs in (a hosted control plane, or KubeVirt's"
          + " layout), so its placement here cannot hold up that cluster's bootstrap: the taint,"
          + " host-network and control-plane findings are not raised. The risks live elsewhere:"
          + " the managed cluster's new nodes keep node.cloudprovider.kubernetes.io/uninitialized"
          + " (nothing schedules on them) until this CCM initialises them, so it must be running"
          + " here and reach that cluster's API server (the kubeconfig's server) and the cloud;"
          + " while it is down or cut off, that cluster gets no usable new node and no load"
          + " balancer changes.",
      "Nothing to place on control-plane nodes here. Keep it available (several replicas with"
          + " leader election), and alert on the managed cluster's nodes that stay uninitialized.");

  /** Where a recommendation comes from: a page a user can open. */
  public enum Source {
    CHICKEN_AND_EGG(
        "The Cloud Controller Manager Chicken and Egg Problem (Kubernetes blog, 2025-02-14)",
        "https://kubernetes.io/blog/2025/02/14/cloud-controller-manager-chicken-egg-problem/"),
    API_MIGRATION(
        "Deprecated API Migration Guide, v1.16 (Kubernetes documentation)",
        "https://kubernetes.io/docs/reference/using-api/deprecation-guide/#v1-16"),
    ENV_EXPANSION(
        "Define a Command and Arguments for a Container: use environment variables (Kubernetes"
            + " documentation)",
        "https://kubernetes.io/docs/tasks/inject-data-application/define-command-argument-container/#use-environment-variables-to-define-arguments"),
    SCHEDULER(
        "kube-scheduler's PodTopologySpread, InterPodAffinity and NodeAffinity filters (Kubernetes"
            + " source, v1.37.2)",
        "https://github.com/kubernetes/kubernetes/tree/v1.37.2/pkg/scheduler/framework/plugins"),
    PFLAG(
        "Command line flag syntax (spf13/pflag, the flag parser of Kubernetes' components)",
        "https://github.com/spf13/pflag#command-line-flag-syntax");

    private final String title;
    private final String url;

    Source(String title, String url) {
      this.title = title;
      this.url = url;
    }

    public String title() {
      return title;
    }

    public String url() {
      return url;
    }
  }

  /** How bad a finding is; errors make the doctor exit non-zero; INFO only informs. */
  public enum Severity {
    ERROR,
    WARNING,
    INFO
  }

  private final String id;
  private final Severity severity;
  private final Source source;
  private final String consequence;
  private final String fix;

  Rule(String id, Severity severity, Source source, String consequence, String fix) {
    this.id = id;
    this.severity = severity;
    this.source = source;
    this.consequence = consequence;
    this.fix = fix;
  }

  public String id() {
    return id;
  }

  public Severity severity() {
    return severity;
  }

  public Source source() {
    return source;
  }

  public String consequence() {
    return consequence;
  }

  public String fix() {
    return fix;
  }
}
