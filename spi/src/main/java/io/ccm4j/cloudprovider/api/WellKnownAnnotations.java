package io.ccm4j.cloudprovider.api;

/** Annotations and finalizers ccm4j reads or writes (spec §1). */
public final class WellKnownAnnotations {

  /** The kubelet's {@code --node-ip}: one IP, or a comma-separated dual-stack pair (N12). */
  public static final String PROVIDED_NODE_IP = "alpha.kubernetes.io/provided-node-ip";

  /** Restricts the client addresses a load balancer accepts; default {@code 0.0.0.0/0}. */
  public static final String LOAD_BALANCER_SOURCE_RANGES =
      "service.beta.kubernetes.io/load-balancer-source-ranges";

  /** Held by a LoadBalancer Service until its cloud load balancer is deleted (S11, S12). */
  public static final String LOAD_BALANCER_CLEANUP_FINALIZER =
      "service.kubernetes.io/load-balancer-cleanup";

  /**
   * ccm4j's own: a digest of the Service fields and backend nodes its load balancer was last
   * ensured with, so a new leader can tell an unchanged load balancer from a stale one (§8.8).
   */
  public static final String LOAD_BALANCER_APPLIED = "ccm4j.io/load-balancer-applied";

  private WellKnownAnnotations() {}
}
