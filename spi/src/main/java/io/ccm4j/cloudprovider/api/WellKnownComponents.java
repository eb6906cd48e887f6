package io.ccm4j.cloudprovider.api;

/** Component names ccm4j presents itself by. */
public final class WellKnownComponents {

  /**
   * Upstream's component name (§1): the user agent, the leader-election Lease's default name, the
   * {@code manager} label of {@code running_managed_controllers}, the ServiceAccount in {@code
   * deploy/}.
   */
  public static final String CLOUD_CONTROLLER_MANAGER = "cloud-controller-manager";

  private WellKnownComponents() {}
}
