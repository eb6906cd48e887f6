package io.ccm4j.cloudprovider.api;

/** Service field values ccm4j reads or writes (spec §3.3). */
public final class WellKnownServices {

  /** {@code spec.type} of a Service that wants a cloud load balancer (S4). */
  public static final String TYPE_LOAD_BALANCER = "LoadBalancer";

  /**
   * The Service subresource through which load balancer status and finalizers are written (S13).
   */
  public static final String STATUS_SUBRESOURCE = "status";

  /**
   * Allowed clients of a load balancer when neither the field nor the annotation restricts them.
   */
  public static final String DEFAULT_SOURCE_RANGE = "0.0.0.0/0";

  /** The field that takes precedence over the source-ranges annotation. */
  public static final String SOURCE_RANGES_FIELD = "spec.loadBalancerSourceRanges";

  /**
   * {@code status.loadBalancer.ingress[].ipMode} of a load balancer that delivers traffic with the
   * destination set to its own IP; the API server's default for IP ingress since Kubernetes 1.30.
   */
  public static final String IP_MODE_VIP = "VIP";

  /**
   * {@code status.loadBalancer.ingress[].ipMode} of a load balancer that proxies: it accepts the
   * connection itself and opens its own to a node. kube-proxy then leaves traffic to that IP alone
   * (with {@code VIP} it would short-circuit it on every node, and drop it on a node without a
   * local endpoint when {@code externalTrafficPolicy} is {@code Local}).
   */
  public static final String IP_MODE_PROXY = "Proxy";

  private WellKnownServices() {}
}
