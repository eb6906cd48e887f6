package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.controllers.ControllerSettings;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/** service-lb-controller's flags. */
public final class ServiceControllerOptions {

  @Option(
      names = "--concurrent-service-syncs",
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

  public Optional<String> validate() {
    if (concurrentServiceSyncs < 1) {
      return Optional.of(
          "--concurrent-service-syncs must be greater than 0, got " + concurrentServiceSyncs);
    }
    if (loadBalancerResyncPeriod.isNegative()
        || (!loadBalancerResyncPeriod.isZero()
            && loadBalancerResyncPeriod.compareTo(
                    ControllerSettings.MIN_LOAD_BALANCER_RESYNC_PERIOD)
                < 0)) {
      return Optional.of(
          "--load-balancer-resync-period must be 0 (off) or at least 1m, got "
              + GoDurations.format(loadBalancerResyncPeriod));
    }
    return Optional.empty();
  }

  /** {@code settings} with this group's flags applied. */
  public ControllerSettings applyTo(ControllerSettings settings) {
    return settings
        .withConcurrentServiceSyncs(concurrentServiceSyncs)
        .withLoadBalancerResyncPeriod(loadBalancerResyncPeriod);
  }
}
