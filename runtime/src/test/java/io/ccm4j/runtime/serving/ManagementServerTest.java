package io.ccm4j.runtime.serving;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.tls.SelfSignedCertificate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_31_1.Metrics.MetricFamily;
import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_31_1.Metrics.MetricType;
import java.io.ByteArrayInputStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ManagementServerTest {

  /**
   * /metrics has upstream's histograms and nothing beside them: not the {@code <name>_max} gauge
   * Micrometer adds to each timer and distribution summary. A gauge of another name ending in
   * {@code _max} stays.
   */
  @Test
  void metricsHaveNoMaximumGaugeBesideTheHistograms() throws Exception {
    PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Timer.builder("workqueue.work.duration")
        .tag("name", "Nodes")
        .serviceLevelObjectives(Duration.ofMillis(1), Duration.ofSeconds(1))
        .register(metrics)
        .record(Duration.ofMillis(5));
    DistributionSummary.builder("service_controller_nodesync_latency")
        .baseUnit("seconds")
        .serviceLevelObjectives(1, 2)
        .register(metrics)
        .record(0.5);
    Gauge.builder("pool.max", () -> 7).register(metrics);

    HttpResponse<String> scrape = scrape(metrics);

    assertThat(scrape.statusCode()).isEqualTo(200);
    assertThat(scrape.body())
        .contains(
            "workqueue_work_duration_seconds_bucket{name=\"Nodes\",le=\"0.001\"} 0",
            "workqueue_work_duration_seconds_count{name=\"Nodes\"} 1",
            "service_controller_nodesync_latency_seconds_bucket{le=\"1\"} 1",
            "# TYPE pool_max gauge",
            "pool_max 7")
        .doesNotContain(
            "workqueue_work_duration_seconds_max",
            "service_controller_nodesync_latency_seconds_max");
  }

  /**
   * Bucket bounds and values are written as Go's client writes them for upstream's manager: {@code
   * le="1"}, not {@code le="1.0"}, which Prometheus 2 takes for another label value, so a selector
   * written against upstream's series ({@code ...bucket{le="1"}}) would find nothing. Other labels
   * stay as they are, even one that reads like a bound. The text is the only format upstream's
   * handler serves, whatever the scraper accepts (it offers no OpenMetrics), and its content type
   * is upstream's.
   */
  @Test
  void metricsWriteBoundsAndValuesAsGoWritesThem() throws Exception {
    PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    DistributionSummary.builder("rest_client_request_duration")
        .baseUnit("seconds")
        .tag("verb", "GET")
        .serviceLevelObjectives(0.005, 1, 10, 1e-8, 2e6)
        .register(metrics)
        .record(0.5);
    Gauge.builder("big", () -> 1234567)
        .tag("le", "1.0")
        .tag("q", "a\"b}c,le=\"2.0\"")
        .register(metrics);
    Gauge.builder("small", () -> 0.00001).register(metrics);

    for (String accept :
        List.of(
            "",
            "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
                + "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")) {
      HttpResponse<String> scrape = scrape(metrics, accept);

      assertThat(scrape.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8; escaping=underscores");
      assertThat(scrape.body())
          .contains(
              "rest_client_request_duration_seconds_bucket{verb=\"GET\",le=\"1e-08\"} 0\n",
              "rest_client_request_duration_seconds_bucket{verb=\"GET\",le=\"0.005\"} 0\n",
              "rest_client_request_duration_seconds_bucket{verb=\"GET\",le=\"1\"} 1\n",
              "rest_client_request_duration_seconds_bucket{verb=\"GET\",le=\"10\"} 1\n",
              "rest_client_request_duration_seconds_bucket{verb=\"GET\",le=\"2e+06\"} 1\n",
              "rest_client_request_duration_seconds_bucket{verb=\"GET\",le=\"+Inf\"} 1\n",
              "rest_client_request_duration_seconds_sum{verb=\"GET\"} 0.5\n",
              "big{le=\"1.0\",q=\"a\\\"b}c,le=\\\"2.0\\\"\"} 1.234567e+06\n",
              "small 1e-05\n")
          .doesNotContain("# EOF", "le=\"1.0\"}");
    }
  }

  /**
   * {@code kubernetes_build_info}, which upstream's manager serves from its start, with upstream's
   * name, help, labels and value; ccm4j's version, the Kubernetes release it follows and the build
   * date come from its build.
   */
  @Test
  void metricsHaveKubernetesBuildInfo() throws Exception {
    PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Properties build = new Properties();
    build.setProperty("version", "0.4.0");
    build.setProperty("kubernetes.release", "1.37");
    build.setProperty("build.date", "2026-11-28T06:00:00Z");
    new BuildInfo(build).register(metrics);

    assertThat(scrape(metrics).body())
        .contains(
            "# HELP kubernetes_build_info [BETA] A metric with a constant '1' value labeled by"
                + " major, minor, git version, git commit, git tree state, build date, Go version,"
                + " and compiler from which Kubernetes was built, and platform on which it is"
                + " running.\n"
                + "# TYPE kubernetes_build_info gauge\n"
                + "kubernetes_build_info{build_date=\"2026-11-28T06:00:00Z\",compiler=\"javac\","
                + "git_commit=\"\",git_tree_state=\"\",git_version=\"v0.4.0\",go_version=\""
                + BuildInfo.javaVersion()
                + "\",major=\"1\",minor=\"37\",platform=\""
                + BuildInfo.platform()
                + "\"} 1\n");
  }

  /** The build fills in what {@code kubernetes_build_info} reports of it. */
  @Test
  void buildInfoReadsTheBuildsVersionReleaseAndDate() throws Exception {
    PrometheusMeterRegistry metrics = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new BuildInfo().register(metrics);

    assertThat(scrape(metrics).body())
        .containsPattern(
            "kubernetes_build_info\\{build_date=\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\","
                + "compiler=\"javac\",git_commit=\"\",git_tree_state=\"\",git_version=\"v\\d+\\.\\d+\\.\\d+[^\"$]*\","
                + "go_version=\"java\\d+(\\.\\d+)*\",major=\"1\",minor=\"\\d+\",platform=\"[a-z0-9]+/[a-z0-9]+\"} 1\n");
  }

  /**
   * /metrics/slis has upstream's health-check SLIs (component-base's metrics/prometheus/slis): each
   * check an aggregate path ran, by its name and the path, with upstream's names, help and levels,
   * and the process's start time; the path of one check records nothing, as upstream's does not.
   */
  @Test
  void metricsSlisRecordEachCheckTheAggregatePathsRan() throws Exception {
    HealthChecks health = new HealthChecks();
    AtomicBoolean failing = new AtomicBoolean(true);
    health.add(
        "cloud-node-controller",
        () -> failing.get() ? Optional.of("not watching") : Optional.empty());
    try (ManagementServer server = allowingAll(health, newRegistry())) {
      assertThat(get(server, "/healthz").statusCode()).isEqualTo(500);
      failing.set(false);
      assertThat(get(server, "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(server, "/readyz?verbose").statusCode()).isEqualTo(200);
      assertThat(get(server, "/healthz/cloud-node-controller").statusCode()).isEqualTo(200);

      HttpResponse<String> slis = get(server, "/metrics/slis");

      assertThat(slis.statusCode()).isEqualTo(200);
      assertThat(slis.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8; escaping=underscores");
      String start =
          GoFloats.format(
              String.valueOf(ManagementFactory.getRuntimeMXBean().getStartTime() / 1000.0));
      assertThat(slis.body())
          .isEqualTo(
              """
              # HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.
              # TYPE kubernetes_healthcheck gauge
              kubernetes_healthcheck{name="cloud-node-controller",type="healthz"} 1
              kubernetes_healthcheck{name="cloud-node-controller",type="readyz"} 1
              kubernetes_healthcheck{name="ping",type="healthz"} 1
              kubernetes_healthcheck{name="ping",type="readyz"} 1
              # HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all healthcheck.
              # TYPE kubernetes_healthchecks_total counter
              kubernetes_healthchecks_total{name="cloud-node-controller",status="error",type="healthz"} 1
              kubernetes_healthchecks_total{name="cloud-node-controller",status="success",type="healthz"} 1
              kubernetes_healthchecks_total{name="cloud-node-controller",status="success",type="readyz"} 1
              kubernetes_healthchecks_total{name="ping",status="success",type="healthz"} 2
              kubernetes_healthchecks_total{name="ping",status="success",type="readyz"} 1
              # HELP process_start_time_seconds [ALPHA] Start time of the process since unix epoch in seconds.
              # TYPE process_start_time_seconds gauge
              process_start_time_seconds %s
              """
                  .formatted(start));
      assertThat(get(server, "/metrics").body())
          .as("the SLIs are not on /metrics")
          .doesNotContain("kubernetes_healthcheck");
    }
  }

  /**
   * DELETE /metrics/slis empties the SLIs, as upstream's (SLIMetricsWithReset): the checks' series
   * come back as they run again, the start time, which upstream sets once, does not. It is a
   * request like the others, asked about with its method.
   */
  @Test
  void deletingMetricsSlisResetsThem() throws Exception {
    List<String> asked = new CopyOnWriteArrayList<>();
    AccessControl recording =
        (method, path, authorization) -> {
          asked.add(method + " " + path);
          return Optional.empty();
        };
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned(),
            new HealthChecks(),
            newRegistry(),
            recording)) {
      get(server, "/livez");
      assertThat(get(server, "/metrics/slis").body())
          .contains("kubernetes_healthcheck{name=\"ping\",type=\"livez\"} 1");

      HttpResponse<String> reset =
          LocalManagerHttp.client()
              .send(
                  HttpRequest.newBuilder(uri(server, "/metrics/slis")).DELETE().build(),
                  HttpResponse.BodyHandlers.ofString());

      assertThat(reset.statusCode()).isEqualTo(200);
      assertThat(reset.body()).isEqualTo("metrics reset\n");
      assertThat(get(server, "/metrics/slis").body()).isEmpty();
      get(server, "/livez");
      assertThat(get(server, "/metrics/slis").body())
          .contains(
              "kubernetes_healthcheck{name=\"ping\",type=\"livez\"} 1\n",
              "kubernetes_healthchecks_total{name=\"ping\",status=\"success\",type=\"livez\"} 1\n")
          .doesNotContain("process_start_time_seconds");
      assertThat(asked).contains("DELETE /metrics/slis");
      HttpResponse<String> deleteMetrics =
          LocalManagerHttp.client()
              .send(
                  HttpRequest.newBuilder(uri(server, "/metrics")).DELETE().build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(deleteMetrics.statusCode()).as("/metrics is not reset").isEqualTo(405);
    }
  }

  /**
   * component-base's counters of its registry, on /metrics as upstream's manager serves them:
   * registered_metrics_total counts each family with a stability level once (not each series, not
   * the maximum beside a histogram, not the series without a level), /metrics/slis's and its own
   * included; nothing is disabled, hidden or recategorised.
   */
  @Test
  void metricsCountTheRegisteredMetricsByStabilityLevel() throws Exception {
    PrometheusMeterRegistry metrics = newRegistry();
    Counter.builder("rest_client_requests")
        .description(
            "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.")
        .tag("code", "200")
        .register(metrics)
        .increment();
    Counter.builder("rest_client_requests")
        .description(
            "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.")
        .tag("code", "404")
        .register(metrics);
    Timer.builder("workqueue.work.duration")
        .description("[BETA] How long in seconds processing an item from workqueue takes.")
        .tag("name", "Nodes")
        .register(metrics);
    Gauge.builder("cloud_provider_api_rate_limit_qps", () -> 5)
        .description("the cloud limiter's rate")
        .register(metrics);
    new BuildInfo(new Properties()).register(metrics);
    try (ManagementServer server = allowingAll(new HealthChecks(), metrics)) {
      assertThat(get(server, "/metrics").body())
          .contains(
              """
              # HELP registered_metrics_total [BETA] The count of registered metrics broken by stability level and deprecation version.
              # TYPE registered_metrics_total counter
              registered_metrics_total{deprecated_version="",stability_level="ALPHA"} 3
              registered_metrics_total{deprecated_version="",stability_level="BETA"} 5
              registered_metrics_total{deprecated_version="",stability_level="STABLE"} 2
              """,
              """
              # HELP disabled_metrics_total [BETA] The count of disabled metrics.
              # TYPE disabled_metrics_total counter
              disabled_metrics_total 0
              """,
              """
              # HELP hidden_metrics_total [BETA] The count of hidden metrics.
              # TYPE hidden_metrics_total counter
              hidden_metrics_total 0
              """,
              """
              # HELP cardinality_enforcement_unexpected_categorizations_total [ALPHA] The count of unexpected categorizations during cardinality enforcement.
              # TYPE cardinality_enforcement_unexpected_categorizations_total counter
              cardinality_enforcement_unexpected_categorizations_total 0
              """);

      Gauge.builder("leader_election_master_status", () -> 1)
          .description("[ALPHA] Gauge of if the reporting system is master of the relevant lease")
          .tag("name", "ccm")
          .register(metrics);
      Counter.builder("rest_client_requests")
          .description(
              "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.")
          .tag("code", "500")
          .register(metrics);
      get(server, "/healthz");

      assertThat(get(server, "/metrics").body())
          .contains(
              "registered_metrics_total{deprecated_version=\"\",stability_level=\"ALPHA\"} 4\n",
              "registered_metrics_total{deprecated_version=\"\",stability_level=\"BETA\"} 5\n",
              "registered_metrics_total{deprecated_version=\"\",stability_level=\"STABLE\"} 2\n")
          .doesNotContain("stability_level=\"INTERNAL\"");
    }
  }

  /**
   * A scraper that prefers Prometheus's protobuf (as Prometheus does to scrape native histograms)
   * gets it, as from upstream's handler: length-delimited MetricFamily messages of the same
   * families, the histograms' maxima and the families without series left out; one that prefers the
   * text gets the text.
   */
  @Test
  void metricsAnswerInProtobufWhenTheScraperPrefersIt() throws Exception {
    PrometheusMeterRegistry metrics = newRegistry();
    Timer.builder("workqueue.work.duration")
        .description("[BETA] How long in seconds processing an item from workqueue takes.")
        .tag("name", "Nodes")
        .serviceLevelObjectives(Duration.ofMillis(1), Duration.ofSeconds(1))
        .register(metrics)
        .record(Duration.ofMillis(5));
    Counter.builder("rest_client_requests")
        .description(
            "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.")
        .tag("code", "200")
        .register(metrics)
        .increment(3);
    String prometheus =
        "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
            + "encoding=delimited;q=0.6,application/openmetrics-text;version=1.0.0;q=0.5,"
            + "text/plain;version=0.0.4;q=0.4,*/*;q=0.1";
    try (ManagementServer server = allowingAll(new HealthChecks(), metrics)) {
      get(server, "/healthz");
      HttpResponse<byte[]> scrape = getBytes(server, "/metrics", prometheus);

      assertThat(scrape.headers().firstValue("Content-Type"))
          .hasValue(
              "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;"
                  + " encoding=delimited; escaping=underscores");
      Map<String, MetricFamily> families = families(scrape.body());
      assertThat(families)
          .containsKeys("rest_client_requests_total", "registered_metrics_total")
          .doesNotContainKeys("workqueue_work_duration_seconds_max", "kubernetes_healthcheck");
      MetricFamily requests = families.get("rest_client_requests_total");
      assertThat(requests.getType()).isEqualTo(MetricType.COUNTER);
      assertThat(requests.getHelp())
          .isEqualTo(
              "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.");
      assertThat(requests.getMetric(0).getLabel(0).getName()).isEqualTo("code");
      assertThat(requests.getMetric(0).getLabel(0).getValue()).isEqualTo("200");
      assertThat(requests.getMetric(0).getCounter().getValue()).isEqualTo(3);
      MetricFamily work = families.get("workqueue_work_duration_seconds");
      assertThat(work.getType()).isEqualTo(MetricType.HISTOGRAM);
      assertThat(work.getMetric(0).getHistogram().getSampleCount()).isEqualTo(1);
      assertThat(work.getMetric(0).getHistogram().getBucketList())
          .extracting(b -> b.getUpperBound() + " " + b.getCumulativeCount())
          .contains("0.001 0", "1.0 1");

      Map<String, MetricFamily> slis =
          families(getBytes(server, "/metrics/slis", prometheus).body());
      assertThat(slis.get("kubernetes_healthcheck").getMetric(0).getGauge().getValue())
          .isEqualTo(1);
      assertThat(slis).containsKeys("kubernetes_healthchecks_total", "process_start_time_seconds");

      HttpResponse<byte[]> text =
          getBytes(
              server,
              "/metrics",
              "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
                  + "encoding=delimited;q=0.4,text/plain;version=0.0.4;q=0.5");
      assertThat(text.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8; escaping=underscores");
    }
  }

  /**
   * The content type repeats the escaping scheme the scraper asked for, as upstream's handler does
   * (Go's expfmt.Negotiate): Prometheus 3 asks for allow-utf-8 on the text it gets from both.
   */
  @Test
  void metricsAnswerWithTheEscapingTheScraperAskedFor() throws Exception {
    String prometheus3 =
        "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8;q=0.5,"
            + "application/openmetrics-text;version=0.0.1;q=0.4,"
            + "text/plain;version=1.0.0;escaping=allow-utf-8;q=0.3,"
            + "text/plain;version=0.0.4;q=0.2,*/*;q=0.1";
    try (ManagementServer server = allowingAll(new HealthChecks(), newRegistry())) {
      for (String path : List.of("/metrics", "/metrics/slis")) {
        HttpResponse<byte[]> scrape = getBytes(server, path, prometheus3);

        assertThat(scrape.headers().firstValue("Content-Type"))
            .as(path)
            .hasValue("text/plain; version=0.0.4; charset=utf-8; escaping=allow-utf-8");
        assertThat(new String(scrape.body(), StandardCharsets.UTF_8))
            .as(path)
            .startsWith("# HELP ");
      }
      HttpResponse<byte[]> protobuf =
          getBytes(
              server,
              "/metrics",
              "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
                  + "encoding=delimited;escaping=dots");
      assertThat(protobuf.headers().firstValue("Content-Type"))
          .hasValue(
              "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;"
                  + " encoding=delimited; escaping=dots");
    }
  }

  private static Map<String, MetricFamily> families(byte[] delimited) throws Exception {
    Map<String, MetricFamily> families = new LinkedHashMap<>();
    ByteArrayInputStream in = new ByteArrayInputStream(delimited);
    MetricFamily family;
    while ((family = MetricFamily.parseDelimitedFrom(in)) != null) {
      families.put(family.getName(), family);
    }
    return families;
  }

  private static HttpResponse<byte[]> getBytes(ManagementServer server, String path, String accept)
      throws Exception {
    return LocalManagerHttp.client()
        .send(
            HttpRequest.newBuilder(uri(server, path)).header("Accept", accept).build(),
            HttpResponse.BodyHandlers.ofByteArray());
  }

  private static PrometheusMeterRegistry newRegistry() {
    return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  private static ManagementServer allowingAll(HealthChecks health, PrometheusMeterRegistry metrics)
      throws Exception {
    return new ManagementServer(
        new InetSocketAddress("127.0.0.1", 0),
        ServingKeys.selfSigned(),
        health,
        metrics,
        (method, path, authorization) -> Optional.empty());
  }

  private static URI uri(ManagementServer server, String path) {
    return URI.create("https://127.0.0.1:" + server.address().getPort() + path);
  }

  private static HttpResponse<String> get(ManagementServer server, String path) throws Exception {
    return LocalManagerHttp.client()
        .send(
            HttpRequest.newBuilder(uri(server, path)).build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> scrape(PrometheusMeterRegistry metrics) throws Exception {
    return scrape(metrics, "");
  }

  /** A scrape of /metrics as Prometheus makes it, with its Accept header when not empty. */
  private static HttpResponse<String> scrape(PrometheusMeterRegistry metrics, String accept)
      throws Exception {
    AccessControl allowAll = (method, path, authorization) -> Optional.empty();
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned(),
            new HealthChecks(),
            metrics,
            allowAll)) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(
              URI.create("https://127.0.0.1:" + server.address().getPort() + "/metrics"));
      if (!accept.isEmpty()) {
        request.header("Accept", accept);
      }
      return LocalManagerHttp.client().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
  }

  /**
   * Requests waiting on the API server (a token or access review that hangs) must not hold up the
   * kubelet's health probe: with a fixed pool of two threads, two such requests did.
   */
  @Test
  void healthAnswersWhileMetricsRequestsWaitForTheirReview() throws Exception {
    CountDownLatch reviewAnswers = new CountDownLatch(1);
    CountDownLatch reviewing = new CountDownLatch(4);
    AccessControl hangingReviews =
        (method, path, authorization) -> {
          if (path.equals("/healthz")) {
            return Optional.empty();
          }
          reviewing.countDown();
          try {
            reviewAnswers.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Optional.empty();
        };
    HealthChecks health = new HealthChecks();
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned(),
            health,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            hangingReviews)) {
      HttpClient http = LocalManagerHttp.client();
      String base = "https://127.0.0.1:" + server.address().getPort();
      List<CompletableFuture<HttpResponse<String>>> scrapes = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        scrapes.add(
            http.sendAsync(
                HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()));
      }
      assertThat(reviewing.await(10, TimeUnit.SECONDS)).as("four scrapes under review").isTrue();

      HttpResponse<String> probe =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/healthz"))
                  .timeout(Duration.ofSeconds(3))
                  .build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(probe.statusCode()).isEqualTo(200);
      reviewAnswers.countDown();
      for (var scrape : scrapes) {
        assertThat(scrape.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      }
    } finally {
      reviewAnswers.countDown();
    }
  }

  /**
   * The aggregate health paths are served to anyone: a failure's reason (which may name nodes,
   * Leases or the cloud's errors) is withheld there, as upstream does, and given on the check's own
   * path, which needs an allowed token unless the operator lists it.
   */
  @Test
  void aFailedChecksReasonIsWithheldOnTheAggregatePathsAndGivenOnItsOwn() throws Exception {
    AccessControl allowAll = (method, path, authorization) -> Optional.empty();
    HealthChecks health = new HealthChecks();
    health.add(
        "cloud-node-controller", () -> Optional.of("Node informer not watching since 12:00"));
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned(),
            health,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            allowAll)) {
      HttpClient http = LocalManagerHttp.client();
      String base = "https://127.0.0.1:" + server.address().getPort();
      for (String path : List.of("/healthz", "/readyz", "/livez?verbose")) {
        HttpResponse<String> aggregate =
            http.send(
                HttpRequest.newBuilder(URI.create(base + path)).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(aggregate.statusCode()).as(path).isEqualTo(500);
        assertThat(aggregate.body())
            .as(path)
            .contains("[+]ping ok", "[-]cloud-node-controller failed: reason withheld")
            .doesNotContain("informer");
      }
      HttpResponse<String> own =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/healthz/cloud-node-controller")).build(),
              HttpResponse.BodyHandlers.ofString());

      assertThat(own.statusCode()).isEqualTo(500);
      assertThat(own.body()).contains("Node informer not watching since 12:00");
    }
  }

  /**
   * Only paths that exist, read with GET or HEAD, are worth a review: anything else is answered at
   * once, so requests for random paths cannot spend the API server's quota on reviews.
   */
  @Test
  void pathsThatDoNotExistAndOtherMethodsAreAnsweredWithoutAReview() throws Exception {
    List<String> reviewed = new CopyOnWriteArrayList<>();
    AccessControl counting =
        (method, path, authorization) -> {
          reviewed.add(method + " " + path);
          return Optional.empty();
        };
    HealthChecks health = new HealthChecks();
    health.add("cloud-node-controller", Optional::empty);
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned(),
            health,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            counting)) {
      HttpClient http = LocalManagerHttp.client();
      String base = "https://127.0.0.1:" + server.address().getPort();
      for (String path :
          List.of("/x3f9a", "/metricsx", "/metrics/x", "/healthz/no-such-check", "/livezz", "/")) {
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(URI.create(base + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(path).isEqualTo(404);
      }
      HttpResponse<String> post =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/metrics"))
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(post.statusCode()).isEqualTo(405);
      assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
      assertThat(reviewed).isEmpty();

      for (String path : List.of("/metrics", "/healthz/cloud-node-controller", "/readyz")) {
        assertThat(
                http.send(
                        HttpRequest.newBuilder(URI.create(base + path)).build(),
                        HttpResponse.BodyHandlers.ofString())
                    .statusCode())
            .as(path)
            .isEqualTo(200);
      }
      assertThat(reviewed)
          .containsExactly("GET /metrics", "GET /healthz/cloud-node-controller", "GET /readyz");
    }
  }

  /**
   * The serving TLS narrows what the port offers: a minimum version, the TLS 1.2 suites and the key
   * exchange groups a handshake may use.
   */
  @Test
  void servingTlsNarrowsTheVersionsSuitesAndGroupsOffered() throws Exception {
    ServingTls tls =
        new ServingTls(
            List.of("TLSv1.3", "TLSv1.2"),
            List.of("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "TLS_AES_128_GCM_SHA256"),
            List.of("secp256r1"));
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned().withTls(tls),
            new HealthChecks(),
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
      int port = server.address().getPort();

      assertThat(handshake(port, "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "secp256r1"))
          .isEqualTo("TLSv1.2 TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384");
      assertThat(handshake(port, "TLSv1.3", "TLS_AES_128_GCM_SHA256", "secp256r1"))
          .isEqualTo("TLSv1.3 TLS_AES_128_GCM_SHA256");
      assertThat(handshake(port, "TLSv1.2", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "secp256r1"))
          .as("a suite left out")
          .startsWith("refused");
      assertThat(handshake(port, "TLSv1.3", "TLS_AES_128_GCM_SHA256", "x25519"))
          .as("a group left out")
          .startsWith("refused");
    }
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned()
                .withTls(new ServingTls(List.of("TLSv1.3"), List.of(), List.of())),
            new HealthChecks(),
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
      assertThat(
              handshake(
                  server.address().getPort(),
                  "TLSv1.2",
                  "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
                  "secp256r1"))
          .as("below the minimum version")
          .startsWith("refused");
    }
  }

  /** The protocol and suite a client offering only these settles on, or "refused". */
  private static String handshake(int port, String protocol, String suite, String group)
      throws Exception {
    javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
    context.init(
        null,
        new javax.net.ssl.TrustManager[] {
          new javax.net.ssl.X509TrustManager() {
            @Override
            public void checkClientTrusted(
                java.security.cert.X509Certificate[] chain, String authType) {}

            @Override
            public void checkServerTrusted(
                java.security.cert.X509Certificate[] chain, String authType) {}

            @Override
            public java.security.cert.X509Certificate[] getAcceptedIssuers() {
              return new java.security.cert.X509Certificate[0];
            }
          }
        },
        null);
    try (javax.net.ssl.SSLSocket socket =
        (javax.net.ssl.SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      javax.net.ssl.SSLParameters parameters = socket.getSSLParameters();
      parameters.setProtocols(new String[] {protocol});
      parameters.setCipherSuites(new String[] {suite});
      parameters.setNamedGroups(new String[] {group});
      socket.setSSLParameters(parameters);
      socket.startHandshake();
      return socket.getSession().getProtocol() + " " + socket.getSession().getCipherSuite();
    } catch (java.io.IOException e) {
      return "refused: " + e.getMessage();
    }
  }

  /**
   * {@code --client-ca-file}: the server asks for a client certificate, and the one its client CA
   * issued reaches the access check; without one, nothing does; one another CA issued is refused in
   * the handshake, before anyone is asked.
   */
  @Test
  void aClientCertificateTheClientCaIssuedReachesTheAccessCheck() throws Exception {
    SelfSignedCertificate clientCa =
        SelfSignedCertificate.certificateAuthority("client-ca", Duration.ofHours(1));
    SelfSignedCertificate other =
        SelfSignedCertificate.certificateAuthority("other-ca", Duration.ofHours(1));
    char[] password = "test".toCharArray();
    KeyStore alice =
        SelfSignedCertificate.client("alice", List.of("readers"), Duration.ofHours(1), clientCa)
            .toKeyStore(password);
    KeyStore mallory =
        SelfSignedCertificate.client("mallory", List.of("readers"), Duration.ofHours(1), other)
            .toKeyStore(password);
    List<Optional<X509Certificate>> asked = new CopyOnWriteArrayList<>();
    AccessControl recording =
        new AccessControl() {
          @Override
          public Optional<Denial> check(
              String method, String path, Optional<String> authorization) {
            throw new AssertionError("asked without the certificate");
          }

          @Override
          public Optional<Denial> check(
              String method,
              String path,
              Optional<String> authorization,
              Optional<X509Certificate> clientCertificate) {
            asked.add(clientCertificate);
            return Optional.empty();
          }
        };
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned(),
            new HealthChecks(),
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            recording,
            List.of(clientCa.certificate()))) {
      URI metrics = URI.create("https://127.0.0.1:" + server.address().getPort() + "/metrics");
      HttpRequest get = HttpRequest.newBuilder(metrics).build();

      assertThat(
              LocalManagerHttp.client(alice, password)
                  .send(get, HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(200);
      assertThat(
              LocalManagerHttp.client()
                  .send(get, HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(200);
      assertThat(
              LocalManagerHttp.client(mallory, password)
                  .send(get, HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .as("served, as to anyone without a certificate")
          .isEqualTo(200);

      assertThat(asked).hasSize(3);
      assertThat(asked.get(0))
          .hasValueSatisfying(
              certificate ->
                  assertThat(certificate.getSubjectX500Principal().getName()).contains("CN=alice"));
      assertThat(asked.get(1)).as("no certificate").isEmpty();
      assertThat(asked.get(2))
          .as(
              "mallory's certificate is not taken: the server names its client CA, and the client"
                  + " has no certificate it issued")
          .isEmpty();
    }
  }
}
