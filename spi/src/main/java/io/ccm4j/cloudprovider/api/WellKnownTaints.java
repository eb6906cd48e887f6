package io.ccm4j.cloudprovider.api;

/** Taint keys and effects ccm4j reads or writes (spec §1; node-lifecycle spec §2). */
public final class WellKnownTaints {

  /**
   * Set by a kubelet started with {@code --cloud-provider=external}; removed once the cloud
   * initialised the node.
   */
  public static final String UNINITIALIZED = "node.cloudprovider.kubernetes.io/uninitialized";

  /** Set on a NotReady node whose instance is shut down. */
  public static final String SHUTDOWN = "node.cloudprovider.kubernetes.io/shutdown";

  /** Set by cluster-autoscaler on a node it is about to delete; such nodes leave load balancers. */
  public static final String TO_BE_DELETED_BY_CLUSTER_AUTOSCALER = "ToBeDeletedByClusterAutoscaler";

  public static final String NODE_NOT_READY = "node.kubernetes.io/not-ready";
  public static final String NODE_UNREACHABLE = "node.kubernetes.io/unreachable";
  public static final String NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
  public static final String NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure";
  public static final String NODE_DISK_PRESSURE = "node.kubernetes.io/disk-pressure";
  public static final String NODE_PID_PRESSURE = "node.kubernetes.io/pid-pressure";
  public static final String NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable";

  /** Placed by kubeadm-style installers on control-plane nodes. */
  public static final String CONTROL_PLANE = "node-role.kubernetes.io/control-plane";

  /** The control-plane taint before Kubernetes 1.25. */
  public static final String MASTER = "node-role.kubernetes.io/master";

  public static final String EFFECT_NO_SCHEDULE = "NoSchedule";
  public static final String EFFECT_PREFER_NO_SCHEDULE = "PreferNoSchedule";
  public static final String EFFECT_NO_EXECUTE = "NoExecute";

  private WellKnownTaints() {}
}
