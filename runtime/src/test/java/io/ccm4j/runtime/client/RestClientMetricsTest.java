package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RestClientMetricsTest {

  @ParameterizedTest
  @CsvSource({
    "https://127.0.0.1:6443, 127.0.0.1:6443",
    "https://127.0.0.1:6443/, 127.0.0.1:6443",
    "https://[::1]:6443, [::1]:6443",
    "https://kubernetes.default.svc, kubernetes.default.svc",
    "https://10.96.0.1:443/, 10.96.0.1:443",
    "https://user:secret@api.example.com:8443/prefix, api.example.com:8443",
    "not a url, none"
  })
  void theHostLabelIsTheUrlsHostAndPortAsClientGosIs(String url, String label) {
    assertThat(RestClientMetrics.host(url)).isEqualTo(label);
  }

  @Test
  void labelsAndBucketsAreClientGos() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RestClientMetrics metrics = new RestClientMetrics();
    metrics.bindTo(registry);

    metrics.answered("127.0.0.1:6443", "GET", 200, 3_000_000);
    metrics.answered("127.0.0.1:6443", "GET", 200, 30_000_000);
    metrics.answered("127.0.0.1:6443", "PATCH", 409, 1_000_000);
    metrics.unanswered("127.0.0.1:6443", "GET");
    metrics.throttled("127.0.0.1:6443", "GET", 0);

    String scrape = registry.scrape();
    assertThat(scrape)
        .contains(
            "rest_client_requests_total{code=\"200\",host=\"127.0.0.1:6443\",method=\"GET\"} 2",
            "rest_client_requests_total{code=\"409\",host=\"127.0.0.1:6443\",method=\"PATCH\"} 1",
            "rest_client_requests_total{code=\"<error>\",host=\"127.0.0.1:6443\",method=\"GET\"} 1",
            "rest_client_request_duration_seconds_count{host=\"127.0.0.1:6443\",verb=\"GET\"} 2",
            "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.005\"} 1",
            "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.025\"} 1",
            "rest_client_request_duration_seconds_bucket{host=\"127.0.0.1:6443\",verb=\"GET\",le=\"0.1\"} 2",
            "rest_client_rate_limiter_duration_seconds_count{host=\"127.0.0.1:6443\",verb=\"GET\"} 1");
    List<String> bounds =
        scrape
            .lines()
            .filter(line -> line.startsWith("rest_client_request_duration_seconds_bucket{"))
            .filter(line -> line.contains("verb=\"GET\""))
            .map(line -> line.replaceAll(".*le=\"([^\"]+)\".*", "$1"))
            .toList();
    assertThat(bounds)
        .containsExactly(
            "0.005", "0.025", "0.1", "0.25", "0.5", "1.0", "2.0", "4.0", "8.0", "15.0", "30.0",
            "60.0", "+Inf");
  }

  @Test
  void aCodeHasASeriesOnlyOnceARequestEndedWithItAsInClientGo() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RestClientMetrics metrics = new RestClientMetrics();
    metrics.bindTo(registry);

    metrics.answered("127.0.0.1:6443", "GET", 200, 1_000_000);

    assertThat(
            registry
                .scrape()
                .lines()
                .filter(line -> line.startsWith("rest_client_requests_total{")))
        .containsExactly(
            "rest_client_requests_total{code=\"200\",host=\"127.0.0.1:6443\",method=\"GET\"} 1.0");
  }

  @Test
  void nothingIsCountedBeforeItIsBound() {
    RestClientMetrics metrics = new RestClientMetrics();
    metrics.answered("127.0.0.1:6443", "GET", 200, 1);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    metrics.bindTo(registry);

    assertThat(registry.scrape()).doesNotContain("rest_client_requests_total");
  }

  @Test
  void aRequestThatGetsNoAnswerIsAnErrorWhenFabric8RetriesIt() throws Exception {
    int closedPort;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = probe.getLocalPort();
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RestClientMetrics metrics = new RestClientMetrics();
    metrics.bindTo(registry);
    try (KubernetesClient client =
        KubeClients.create(
            new ConfigBuilder()
                .withMasterUrl("https://127.0.0.1:" + closedPort)
                .withRequestRetryBackoffLimit(1)
                .withRequestRetryBackoffInterval(10)
                .build(),
            KubeClients.USER_AGENT,
            100,
            100,
            null,
            null,
            metrics)) {
      assertThatThrownBy(() -> client.namespaces().list())
          .isInstanceOf(KubernetesClientException.class);
    }

    // Two attempts: the first, retried, is seen; the last, which ends the retries, is not.
    assertThat(registry.scrape())
        .contains(
            "rest_client_requests_total{code=\"<error>\",host=\"127.0.0.1:%d\",method=\"GET\"} 1"
                .formatted(closedPort),
            "rest_client_rate_limiter_duration_seconds_count{host=\"127.0.0.1:%d\",verb=\"GET\"} 2"
                .formatted(closedPort));
  }

  /**
   * fabric8 sends a request again, with a new token, when the API server answers 401. Both answers
   * are counted, once each, as the two exchanges they are: client-go, which does not resend but
   * fails the request and lets its caller retry, counts the same 401 and the same 200.
   */
  @Test
  void aRequestSentAgainAfterA401CountsEachAnswerOnce() throws Exception {
    AtomicInteger received = new AtomicInteger();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          boolean first = received.incrementAndGet() == 1;
          byte[] body =
              (first
                      ? "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"code\":401}"
                      : "{\"kind\":\"NamespaceList\",\"apiVersion\":\"v1\",\"items\":[]}")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(first ? 401 : 200, body.length);
          try (var out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    String host = "127.0.0.1:" + server.getAddress().getPort();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RestClientMetrics metrics = new RestClientMetrics();
    metrics.bindTo(registry);
    try (KubernetesClient client =
        KubeClients.create(
            new ConfigBuilder()
                .withMasterUrl("http://" + host)
                .withOauthTokenProvider(() -> "token-" + received.get())
                .build(),
            KubeClients.USER_AGENT,
            100,
            100,
            null,
            null,
            metrics)) {
      assertThat(client.namespaces().list().getItems()).isEmpty();
    } finally {
      server.stop(0);
    }

    assertThat(received).as("sent again after the 401").hasValue(2);
    assertThat(registry.scrape())
        .contains(
            "rest_client_requests_total{code=\"401\",host=\"%s\",method=\"GET\"} 1.0"
                .formatted(host),
            "rest_client_requests_total{code=\"200\",host=\"%s\",method=\"GET\"} 1.0"
                .formatted(host));
  }
}
