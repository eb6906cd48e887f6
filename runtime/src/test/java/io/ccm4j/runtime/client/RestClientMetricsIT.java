package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.client.protobuf.ApiWrites;
import io.ccm4j.runtime.client.protobuf.ProtobufBodies;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.UUID;
import org.junit.jupiter.api.Test;

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
}
