package io.ccm4j.cloudprovider.api;

/** Namespaces ccm4j reads or writes in. */
public final class WellKnownNamespaces {

  /**
   * The manager's Lease (§1), its controllers' ServiceAccounts with {@code
   * --use-service-account-credentials}, and its own in {@code deploy/}.
   */
  public static final String KUBE_SYSTEM = "kube-system";

  /** The kubelets' heartbeat Leases, one per node, named after it (node-lifecycle spec §6). */
  public static final String KUBE_NODE_LEASE = "kube-node-lease";

  private WellKnownNamespaces() {}
}
