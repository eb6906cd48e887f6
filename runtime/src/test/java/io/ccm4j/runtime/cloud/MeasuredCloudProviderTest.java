package io.ccm4j.runtime.cloud;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.ThrottledException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class MeasuredCloudProviderTest {

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  private static final CloudProvider CLOUD =
      new CloudProvider() {
        @Override
        public String providerName() {
          return "measured";
        }

        @Override
        public Optional<InstancesV2> instancesV2() {
          return Optional.of(
              new InstancesV2() {
                @Override
                public boolean instanceExists(Node node) throws CloudException {
                  return switch (node.getMetadata().getName()) {
                    case "throttled" -> throw new ThrottledException("slow down", Duration.ZERO);
                    case "broken" -> throw new CloudException("boom");
                    default -> true;
                  };
                }

                @Override
                public boolean instanceShutdown(Node node) {
                  return false;
                }

                @Override
                public Optional<InstanceMetadata> instanceMetadata(Node node)
                    throws CloudException {
                  throw new InstanceNotFoundException();
                }
              });
        }
      };

  @Test
  void callsAreCountedByRequestAndOutcomeAndTheLimitersRateIsAGauge() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    InstancesV2 instances =
        MeasuredCloudProvider.measure(new ThrottledCloudProvider(CLOUD, 40, 10), registry)
            .instancesV2()
            .orElseThrow();

    instances.instanceExists(node("a"));
    instances.instanceExists(node("b"));
    assertThatThrownBy(() -> instances.instanceExists(node("throttled")))
        .isInstanceOf(ThrottledException.class);
    assertThatThrownBy(() -> instances.instanceExists(node("broken")))
        .isInstanceOf(CloudException.class);
    assertThatThrownBy(() -> instances.instanceMetadata(node("a")))
        .isInstanceOf(InstanceNotFoundException.class);

    assertThat(count(registry, "InstanceExists", "success")).isEqualTo(2);
    assertThat(count(registry, "InstanceExists", "throttled")).isEqualTo(1);
    assertThat(count(registry, "InstanceExists", "error")).isEqualTo(1);
    assertThat(count(registry, "InstanceMetadata", "not_found")).isEqualTo(1);
    assertThat(
            registry
                .get(MeasuredCloudProvider.THROTTLED)
                .tag("request", "InstanceExists")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(
            registry
                .get(MeasuredCloudProvider.DURATION)
                .tag("request", "InstanceExists")
                .timer()
                .count())
        .isEqualTo(4);
    // The throttle sits in front of the measured calls, so it saw the throttled one too: halved
    // from 40, growing back by 2 a second since.
    assertThat(registry.get(MeasuredCloudProvider.RATE_LIMIT).gauge().value())
        .isBetween(20.0, 30.0);
  }

  @Test
  void prometheusSeesTheUpstreamStyleNames() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    InstancesV2 instances =
        MeasuredCloudProvider.measure(new ThrottledCloudProvider(CLOUD, 40, 10), registry)
            .instancesV2()
            .orElseThrow();
    instances.instanceExists(node("a"));
    assertThatThrownBy(() -> instances.instanceExists(node("throttled")))
        .isInstanceOf(ThrottledException.class);

    assertThat(registry.scrape())
        .contains(
            "cloud_provider_api_requests_total{outcome=\"success\",request=\"InstanceExists\"} 1.0",
            "cloud_provider_api_throttled_requests_total{request=\"InstanceExists\"} 1.0",
            "cloud_provider_api_request_duration_seconds_count{request=\"InstanceExists\"} 2",
            "cloud_provider_api_rate_limit_qps ");
  }

  /**
   * A call's latency lands in the bucket it belongs to: both calls here return at once, well within
   * the 5 ms bucket and any larger one (a histogram that rounded them up to a whole second showed
   * every fast call as taking up to 1 s).
   */
  @Test
  void aFastCallIsInTheSubSecondBuckets() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    InstancesV2 instances =
        MeasuredCloudProvider.measure(CLOUD, registry).instancesV2().orElseThrow();
    instances.instanceExists(node("a"));
    instances.instanceExists(node("b"));

    assertThat(registry.scrape())
        .contains(
            "cloud_provider_api_request_duration_seconds_bucket{request=\"InstanceExists\",le=\"0.5\"} 2",
            "cloud_provider_api_request_duration_seconds_bucket{request=\"InstanceExists\",le=\"2.5\"} 2");
  }

  private static double count(SimpleMeterRegistry registry, String request, String outcome) {
    return registry
        .get(MeasuredCloudProvider.REQUESTS)
        .tag("request", request)
        .tag("outcome", outcome)
        .counter()
        .count();
  }
}
