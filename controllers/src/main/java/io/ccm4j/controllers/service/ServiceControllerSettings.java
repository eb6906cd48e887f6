package io.ccm4j.controllers.service;

import java.time.Duration;

/**
 * The service-lb controller's tunables; their defaults are in {@link #defaults()}.
 *
 * @param concurrentServiceSyncs workers syncing load balancers ({@code --concurrent-service-syncs})
 * @param loadBalancerResyncPeriod every load balancer is ensured again once per this period, spread
 *     over it; zero turns that off ({@code --load-balancer-resync-period})
 */
public record ServiceControllerSettings(
    int concurrentServiceSyncs, Duration loadBalancerResyncPeriod) {

  /**
   * The shortest resync period the flag accepts: below it the re-ensures would come close to a
   * storm (tests use shorter ones).
   */
  public static final Duration MIN_LOAD_BALANCER_RESYNC_PERIOD = Duration.ofMinutes(1);

  /** The one check of each setting; its messages name the flag ({@code ccm4j run} prints them). */
  public ServiceControllerSettings {
    if (concurrentServiceSyncs < 1) {
      throw new IllegalArgumentException(
          "--concurrent-service-syncs must be greater than 0, got " + concurrentServiceSyncs);
    }
    if (loadBalancerResyncPeriod.isNegative()) {
      // The flag also refuses less than MIN_LOAD_BALANCER_RESYNC_PERIOD (tests use less).
      throw new IllegalArgumentException("--load-balancer-resync-period must not be negative");
    }
  }

  /**
   * ccm4j's defaults, each written only here (the flags read them): upstream's one worker, and a
   * load balancer resync of 1h (ccm4j's own).
   */
  public static ServiceControllerSettings defaults() {
    return new ServiceControllerSettings(1, Duration.ofHours(1));
  }

  public ServiceControllerSettings withConcurrentServiceSyncs(int value) {
    return new ServiceControllerSettings(value, loadBalancerResyncPeriod);
  }

  public ServiceControllerSettings withLoadBalancerResyncPeriod(Duration value) {
    return new ServiceControllerSettings(concurrentServiceSyncs, value);
  }
}
