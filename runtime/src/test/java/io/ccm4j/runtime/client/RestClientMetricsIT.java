package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.client.protobuf.ApiWrites;
import io.ccm4j.runtime.client.protobuf.ProtobufBodies;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** client-go's {@code rest_client_*} metrics of a client against a real API server. */
@WithControlPlane
class RestClientMetricsIT {

  @Test
  void everyRequestIsCountedByCodeAndMethodTheProtobufWritesToo(KubernetesClient admin) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RestClientMetrics metrics = new RestClientMetrics();
    metrics.bindTo(registry);
    String host = RestClientMetrics.host(admin.getConfiguration().getMasterUrl());
    assertThat(host).matches("127\\.0\\.0\\.1:\\d+");
    Event event =
        new EventBuilder()
            .withNewMetadata()
            .withName("rest-metrics-" + UUID.randomUUID().toString().substring(0, 8))
            .withNamespace("default")
            .endMetadata()
            .withNewInvolvedObject()
            .withKind("Namespace")
            .withName("default")
            .endInvolvedObject()
            .withReason("Measured")
            .withMessage("counted")
            .withType("Normal")
            .build();
    byte[] protobuf = ProtobufBodies.eventCreate(event);
    assertThat(protobuf).isNotNull();

    try (KubernetesClient client =
        KubeClients.create(
            new ConfigBuilder(admin.getConfiguration()).build(),
            KubeClients.USER_AGENT,
            100,
            100,
            null,
            null,
            metrics)) {
      assertThat(client.namespaces().withName("default").get()).isNotNull();
      ApiWrites writes = new ApiWrites(client);
      String events = writes.core("namespaces/default/events");
      writes.send("POST", events, protobuf, event);
      assertThatThrownBy(() -> writes.send("POST", events, protobuf, event))
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(409));
    }

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains(
            "rest_client_requests_total{code=\"200\",host=\"%s\",method=\"GET\"} 1".formatted(host),
            "rest_client_requests_total{code=\"201\",host=\"%s\",method=\"POST\"} 1"
                .formatted(host),
            "rest_client_requests_total{code=\"409\",host=\"%s\",method=\"POST\"} 1"
                .formatted(host),
            "rest_client_request_duration_seconds_count{host=\"%s\",verb=\"GET\"} 1"
                .formatted(host),
            "rest_client_request_duration_seconds_count{host=\"%s\",verb=\"POST\"} 2"
                .formatted(host),
            "rest_client_request_duration_seconds_bucket{host=\"%s\",verb=\"POST\",le=\"+Inf\"} 2"
                .formatted(host),
            "rest_client_rate_limiter_duration_seconds_count{host=\"%s\",verb=\"POST\"} 2"
                .formatted(host));
  }

  @Test
  void aRequestsDurationIncludesItsWaitInTheThrottleAsClientGosDoes(KubernetesClient admin) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RestClientMetrics metrics = new RestClientMetrics();
    metrics.bindTo(registry);
    // Two a second, no burst: the second and third requests wait about half a second each.
    try (KubernetesClient client = client(admin, metrics, 2, 1, false)) {
      for (int i = 0; i < 3; i++) {
        assertThat(client.namespaces().withName("default").get()).isNotNull();
      }
    }

    double waited =
        registry.get("rest.client.rate.limiter.duration").timer().totalTime(TimeUnit.SECONDS);
    double took = registry.get("rest.client.request.duration").timer().totalTime(TimeUnit.SECONDS);
    assertThat(waited).isGreaterThan(0.5);
    assertThat(took).isGreaterThanOrEqualTo(waited);
  }

  @ParameterizedTest(name = "over HTTP only: {0}")
  @ValueSource(booleans = {false, true})
  void aWatchIsCountedByTheCodeThatEstablishedItAsClientGosAndItsTimeIsNotRecorded(
      boolean httpWatches, KubernetesClient admin) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RestClientMetrics metrics = new RestClientMetrics();
    metrics.bindTo(registry);
    String host = RestClientMetrics.host(admin.getConfiguration().getMasterUrl());
    String established =
        "rest_client_requests_total{code=\"200\",host=\"%s\",method=\"GET\"} 1".formatted(host);
    try (KubernetesClient client = client(admin, metrics, 100, 100, httpWatches);
        Watch watch =
            client
                .namespaces()
                .watch(
                    new Watcher<>() {
                      @Override
                      public void eventReceived(Action action, Namespace namespace) {}

                      @Override
                      public void onClose(WatcherException cause) {}
                    })) {
      await().atMost(10, TimeUnit.SECONDS).until(() -> registry.scrape().contains(established));
    }

    String scrape = registry.scrape();
    // fabric8 opens a watch over a WebSocket unless told otherwise: 101, not client-go's code.
    assertThat(scrape).doesNotContain("code=\"101\"");
    assertThat(registry.get("rest.client.request.duration").timer().count()).isZero();
  }

  private static KubernetesClient client(
      KubernetesClient admin,
      RestClientMetrics metrics,
      double qps,
      int burst,
      boolean httpWatches) {
    return KubeClients.create(
        new ConfigBuilder(admin.getConfiguration()).withOnlyHttpWatches(httpWatches).build(),
        KubeClients.USER_AGENT,
        qps,
        burst,
        null,
        null,
        metrics);
  }
}
