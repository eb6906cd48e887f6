package io.ccm4j.cloudprovider.api;

/** Node labels ccm4j reads or writes (spec §1). */
public final class WellKnownLabels {

  public static final String INSTANCE_TYPE = "node.kubernetes.io/instance-type";
  public static final String INSTANCE_TYPE_BETA = "beta.kubernetes.io/instance-type";
  public static final String ZONE = "topology.kubernetes.io/zone";
  public static final String ZONE_BETA = "failure-domain.beta.kubernetes.io/zone";
  public static final String REGION = "topology.kubernetes.io/region";
  public static final String REGION_BETA = "failure-domain.beta.kubernetes.io/region";

  /** A node whose value parses as true (or does not parse) is left out of load balancers (S16). */
  public static final String EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS =
      "node.kubernetes.io/exclude-from-external-load-balancers";

  /** Nodes carrying it are left out of zone disruption checks. */
  public static final String EXCLUDE_DISRUPTION = "node.kubernetes.io/exclude-disruption";

  public static final String HOSTNAME = "kubernetes.io/hostname";
  public static final String ROLE_CONTROL_PLANE = "node-role.kubernetes.io/control-plane";

  /** The control-plane role label before Kubernetes 1.24 (kubeadm); k3s and RKE2 still set it. */
  public static final String ROLE_MASTER = "node-role.kubernetes.io/master";

  private WellKnownLabels() {}
}
