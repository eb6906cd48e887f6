package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.controllers.service.ServiceControllerSettings;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/** service-lb-controller's flags. */
public final class ServiceControllerOptions {

  @Option(
      names = "--concurrent-service-syncs",
      converter = GoInt.class,
      paramLabel = "<n>",
      description =
          "Workers syncing load balancers (service-lb-controller). Default: ${DEFAULT-VALUE}.")
  int concurrentServiceSyncs;

  @Option(
      names = "--load-balancer-resync-period",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "service-lb-controller: every load balancer is ensured again once per this period,"
              + " spread evenly over it, so drift in the cloud is corrected at a bounded rate"
              + " (ccm4j's; upstream ensures all of them at each start instead). 0 turns it off;"
              + " otherwise at least 1m. Default: ${DEFAULT-VALUE}.")
  Duration loadBalancerResyncPeriod;

  /** The records' own checks (one place per setting), on this group's flags. */
  public Optional<String> validate() {
    // ccm4j's policy for the flag, not a property of the setting: tests resync faster.
    if (loadBalancerResyncPeriod.isNegative()
        || (!loadBalancerResyncPeriod.isZero()
            && loadBalancerResyncPeriod.compareTo(
                    ServiceControllerSettings.MIN_LOAD_BALANCER_RESYNC_PERIOD)
                < 0)) {
      return Optional.of(
          "--load-balancer-resync-period must be 0 (off) or at least 1m, got "
              + GoDurations.format(loadBalancerResyncPeriod));
    }
    try {
      settings();
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** service-lb-controller's settings, as the flags say. */
  public ServiceControllerSettings settings() {
    return new ServiceControllerSettings(concurrentServiceSyncs, loadBalancerResyncPeriod);
  }
}
