package io.ccm4j.runtime.cloud;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.ThrottledException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A cloud provider whose calls are counted, in the style of the upstream providers' {@code
 * cloudprovider_<cloud>_api_request_*} metrics but for every cloud: {@code
 * cloud_provider_api_requests_total{request,outcome}} (outcome {@code success}, {@code not_found},
 * {@code throttled} or {@code error}; a bulk call is one request, named by its bulk method, {@code
 * InstancesMetadata}), {@code cloud_provider_api_request_duration_seconds{request}} and {@code
 * cloud_provider_api_throttled_requests_total{request}}; and, with a cloud-wide limiter, its rate
 * now as {@code cloud_provider_api_rate_limit_qps}.
 */
public final class MeasuredCloudProvider extends InterceptedCloudProvider {

  static final String REQUESTS = "cloud_provider_api_requests";
  static final String DURATION = "cloud_provider_api_request_duration";
  static final String THROTTLED = "cloud_provider_api_throttled_requests";
  static final String RATE_LIMIT = "cloud_provider_api_rate_limit_qps";

  /**
   * From 5 ms to 30 s: the span of a cloud call's latency. A {@link Timer}'s: a {@code
   * DistributionSummary}'s histogram rounds each value up to a whole number before finding its
   * bucket, which put every call under a second in the 1 s bucket.
   */
  private static final Duration[] BUCKETS = {
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30)
  };

  private final MeterRegistry registry;

  private MeasuredCloudProvider(CloudProvider delegate, MeterRegistry registry) {
    super(delegate);
    this.registry = registry;
  }

  /**
   * The provider with its calls measured behind its throttle, if it has one (so a call's wait for a
   * token is not its latency), and the throttle's rate as a gauge.
   */
  public static CloudProvider measure(CloudProvider provider, MeterRegistry registry) {
    if (provider instanceof ThrottledCloudProvider throttled) {
      Gauge.builder(RATE_LIMIT, throttled.limiter(), CloudRateLimiter::currentQps)
          .description(
              "Calls a second the cloud-wide limiter allows now (--cloud-api-qps, lower while"
                  + " the cloud throttles)")
          .register(registry);
      return throttled.inFrontOf(inner -> new MeasuredCloudProvider(inner, registry));
    }
    return new MeasuredCloudProvider(provider, registry);
  }

  @Override
  <T> T around(String request, String subject, boolean write, Call<T> call) throws CloudException {
    long started = System.nanoTime();
    String outcome = "error";
    try {
      T result = call.call();
      outcome = "success";
      return result;
    } catch (ThrottledException e) {
      outcome = "throttled";
      Counter.builder(THROTTLED)
          .description("Cloud API calls the cloud refused as throttled")
          .tag("request", request)
          .register(registry)
          .increment();
      throw e;
    } catch (InstanceNotFoundException e) {
      outcome = "not_found";
      throw e;
    } finally {
      Counter.builder(REQUESTS)
          .description("Cloud API calls by SPI method and outcome")
          .tag("request", request)
          .tag("outcome", outcome)
          .register(registry)
          .increment();
      Timer.builder(DURATION)
          .description("Latency of cloud API calls by SPI method")
          .tag("request", request)
          .serviceLevelObjectives(BUCKETS)
          .register(registry)
          .record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    }
  }
}
