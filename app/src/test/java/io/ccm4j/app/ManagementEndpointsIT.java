package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.client.RestClientMetrics;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.runtime.serving.DelegatedAccess;
import io.ccm4j.runtime.serving.LocalManagerHttp;
import io.ccm4j.runtime.serving.ManagementServer;
import io.ccm4j.runtime.serving.ServingAccess;
import io.ccm4j.runtime.serving.ServingKeys;
import io.ccm4j.tls.SelfSignedCertificate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.security.KeyStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The manager's HTTPS endpoint against a real API server (A4). */
@WithControlPlane
class ManagementEndpointsIT {

  @Test
  void healthAndMetricsAnswerWhileLeading(KubernetesClient client) throws Exception {
    String lease = "ccm-health-" + UUID.randomUUID().toString().substring(0, 8);
    FakeCloudProvider cloud = new FakeCloudProvider();
    var settings =
        CloudControllerManager.settings()
            .cloud(cloud)
            .selection(ControllerSelection.parse(List.of("*"), Set.of()))
            .controllers(ControllerSettings.defaults())
            .leaderElection(
                LeaderElection.Settings.defaults("test_" + UUID.randomUUID()).withName(lease))
            .serving(
                new InetSocketAddress("127.0.0.1", 0),
                ServingKeys
                    .selfSigned()) // Served without a token here (a prefix for the health checks);
            // see below for tokens.
            .servingAccess(
                ServingAccess.allowing(List.of("/healthz*", "/readyz", "/livez", "/metrics")))
            .buildSettings();
    try (CloudControllerManager manager =
        CloudControllerManager.builder(client).settings(settings).exit(code -> {}).build()) {
      manager.start();
      await().atMost(30, TimeUnit.SECONDS).until(manager::isLeader);
      var endpoint = management(manager.servingAddress().orElseThrow());

      for (String path : List.of("/healthz", "/readyz", "/livez", "/healthz/leaderElection")) {
        HttpResponse<String> response = endpoint.get(path);
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        assertThat(response.body()).as(path).isEqualTo("ok");
      }
      assertThat(endpoint.get("/healthz?verbose").body())
          .contains("[+]ping ok", "[+]leaderElection ok", "healthz check passed");
      assertThat(endpoint.get("/healthz/no-such-check").statusCode()).isEqualTo(404);

      HttpResponse<String> metrics = endpoint.get("/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(metrics.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
      assertThat(metrics.body())
          .contains("leader_election_master_status{name=\"" + lease + "\"} 1")
          .contains("jvm_memory_used_bytes");
      assertThat(cloud.initializedWith.get().clusterName()).isEqualTo("kubernetes");

      // The manager's events name their component alone, as upstream's EventSource: no host.
      await("the manager's LeaderElection event")
          .atMost(10, TimeUnit.SECONDS)
          .untilAsserted(
              () ->
                  assertThat(
                          client.v1().events().inNamespace("kube-system").list().getItems().stream()
                              .filter(event -> lease.equals(event.getInvolvedObject().getName()))
                              .toList())
                      .singleElement()
                      .satisfies(
                          event -> {
                            assertThat(event.getSource().getComponent())
                                .isEqualTo("cloud-controller-manager");
                            assertThat(event.getSource().getHost()).isNullOrEmpty();
                            assertThat(event.getReportingComponent())
                                .isEqualTo("cloud-controller-manager");
                            assertThat(event.getReportingInstance()).isNullOrEmpty();
                          }));
    }
  }

  /**
   * client-go's {@code rest_client_*} metrics of the manager's own clients (one per concern, as
   * {@code ccm4j run} makes them), the events written in protobuf among them.
   */
  @Test
  void restClientMetricsCountTheManagersRequests(KubernetesClient client) throws Exception {
    String lease = "ccm-rest-" + UUID.randomUUID().toString().substring(0, 8);
    var settings =
        CloudControllerManager.settings()
            .cloud(new FakeCloudProvider())
            .selection(ControllerSelection.parse(List.of("*"), Set.of()))
            .controllers(ControllerSettings.defaults())
            .leaderElection(
                LeaderElection.Settings.defaults("test_" + UUID.randomUUID()).withName(lease))
            .serving(new InetSocketAddress("127.0.0.1", 0), ServingKeys.selfSigned())
            .servingAccess(ServingAccess.allowing(List.of("/metrics")))
            .buildSettings();
    String host = RestClientMetrics.host(client.getConfiguration().getMasterUrl());
    try (ManagerClients clients =
            ManagerClients.create(
                client.getConfiguration(), 20, 30, false, KubeApiContentType.PROTOBUF);
        CloudControllerManager manager =
            CloudControllerManager.builder(clients).settings(settings).exit(code -> {}).build()) {
      manager.start();
      await().atMost(30, TimeUnit.SECONDS).until(manager::isLeader);
      var endpoint = management(manager.servingAddress().orElseThrow());
      String gets = "rest_client_requests_total{code=\"200\",host=\"%s\",method=\"GET\"}";
      // The Lease's create and the LeaderElection event's (a protobuf body).
      String creates = "rest_client_requests_total{code=\"201\",host=\"%s\",method=\"POST\"}";

      await("the Lease and the LeaderElection event counted")
          .atMost(20, TimeUnit.SECONDS)
          .untilAsserted(
              () -> {
                String body = endpoint.get("/metrics").body();
                assertThat(sample(body, gets.formatted(host))).isPositive();
                assertThat(sample(body, creates.formatted(host))).isGreaterThanOrEqualTo(2);
                assertThat(
                        sample(
                            body,
                            "rest_client_request_duration_seconds_count{host=\"%s\",verb=\"GET\"}"
                                .formatted(host)))
                    .isPositive();
                assertThat(
                        sample(
                            body,
                            "rest_client_rate_limiter_duration_seconds_count{host=\"%s\",verb=\"POST\"}"
                                .formatted(host)))
                    .isGreaterThanOrEqualTo(2);
              });
      // Upstream's buckets, up to 60 s.
      String body = endpoint.get("/metrics").body();
      assertThat(body)
          .contains(
              "rest_client_request_duration_seconds_bucket{host=\"%s\",verb=\"GET\",le=\"60.0\"}"
                  .formatted(host));
    }
  }

  /** The value of the sample {@code series} (name and labels) in a Prometheus scrape, else 0. */
  private static double sample(String scrape, String series) {
    return scrape
        .lines()
        .filter(line -> line.startsWith(series + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
        .findFirst()
        .orElse(0);
  }

  /**
   * Upstream's delegated authn/authz: the health endpoints answer anyone (the kubelet's probes);
   * metrics need a bearer token (TokenReview) whose user may get the path (SubjectAccessReview).
   */
  @Test
  void metricsNeedATokenAllowedToReadThemWhileHealthAnswersAnyone(
      io.ccm4j.controlplane.LocalControlPlane controlPlane, KubernetesClient client)
      throws Exception {
    String lease = "ccm-auth-" + UUID.randomUUID().toString().substring(0, 8);
    String scraper = "scraper-" + UUID.randomUUID().toString().substring(0, 8);
    var settings =
        CloudControllerManager.settings()
            .cloud(new FakeCloudProvider())
            .selection(ControllerSelection.parse(List.of("*"), Set.of()))
            .controllers(ControllerSettings.defaults())
            .serving(new InetSocketAddress("127.0.0.1", 0), ServingKeys.selfSigned())
            .buildSettings();
    assertThat(settings.servingAccess().alwaysAllowPaths())
        .containsExactly("/healthz", "/readyz", "/livez");
    ServiceAccounts.create(client, "default", scraper);
    String token = ServiceAccounts.token(client, "default", scraper);
    String user = "system:serviceaccount:default:" + scraper;
    try (CloudControllerManager manager =
        CloudControllerManager.builder(client).settings(settings).exit(code -> {}).build()) {
      manager.start();
      var endpoint = management(manager.servingAddress().orElseThrow());

      for (String path : List.of("/healthz", "/readyz", "/livez")) {
        assertThat(endpoint.get(path).statusCode()).as(path).isEqualTo(200);
      }
      HttpResponse<String> anonymous = endpoint.get("/metrics");
      assertThat(anonymous.statusCode()).isEqualTo(403);
      assertThat(anonymous.body())
          .contains("\"kind\":\"Status\"", "\"reason\":\"Forbidden\"")
          .contains("forbidden: User \\\"system:anonymous\\\" cannot get path \\\"/metrics\\\"");
      assertThat(endpoint.get("/healthz/ping").statusCode())
          .as("only the listed paths, not what lies below them")
          .isEqualTo(403);
      assertThat(endpoint.get("/metrics", "not-a-token").statusCode()).isEqualTo(401);
      HttpResponse<String> unauthorized = endpoint.get("/metrics", token);
      assertThat(unauthorized.statusCode()).isEqualTo(403);
      assertThat(unauthorized.body()).contains("User \\\"" + user + "\\\" cannot get");

      allowMetrics(
          client,
          scraper,
          new io.fabric8.kubernetes.api.model.rbac.SubjectBuilder()
              .withKind("ServiceAccount")
              .withName(scraper)
              .withNamespace("default")
              .build());

      // A denial is cached for 10 s, as upstream's.
      await("the scraper reads the metrics once its ClusterRole allows it")
          .atMost(30, TimeUnit.SECONDS)
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> endpoint.get("/metrics", token).statusCode() == 200);
      assertThat(endpoint.get("/metrics", token).body()).contains("jvm_memory_used_bytes");

      // --authentication-kubeconfig / --authorization-kubeconfig: the reviews go where they say;
      // here to a user (the scraper) who may not review, so each refuses in its own way.
      try (KubernetesClient asScraper =
          new io.fabric8.kubernetes.client.KubernetesClientBuilder()
              .withConfig(
                  io.fabric8.kubernetes.client.Config.fromKubeconfig(
                      controlPlane.kubeconfig(user, token)))
              .build()) {
        assertThat(
                new DelegatedAccess(asScraper, client, List.of())
                    .check("GET", "/metrics", Optional.of("Bearer " + token)))
            .as("the token review is refused to the scraper: unauthenticated")
            .hasValueSatisfying(denial -> assertThat(denial.status()).isEqualTo(401));
        assertThat(
                new DelegatedAccess(client, asScraper, List.of())
                    .check("GET", "/metrics", Optional.of("Bearer " + token)))
            .as("the access review is refused to the scraper: an error")
            .hasValueSatisfying(denial -> assertThat(denial.status()).isEqualTo(500));
        assertThat(
                new DelegatedAccess(client, client, List.of())
                    .check("GET", "/metrics", Optional.of("Bearer " + token)))
            .isEmpty();
      }
    } finally {
      client.rbac().clusterRoleBindings().withName(scraper).delete();
      client.rbac().clusterRoles().withName(scraper).delete();
      client.serviceAccounts().inNamespace("default").withName(scraper).delete();
    }
  }

  /**
   * {@code --client-ca-file}: a client certificate the client CA issued names the user as
   * upstream's x509 authenticator does (the common name; the organizations and {@code
   * system:authenticated} its groups), and the access review decides for that user as for a
   * token's.
   */
  @Test
  void aClientCertificateNamesTheUserTheAccessReviewDecidesFor(KubernetesClient client)
      throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String group = "scrapers-" + suffix;
    String alice = "alice-" + suffix;
    String bob = "bob-" + suffix;
    SelfSignedCertificate ca =
        SelfSignedCertificate.certificateAuthority("client-ca", Duration.ofHours(1));
    char[] password = "test".toCharArray();
    KeyStore alicesKeys =
        SelfSignedCertificate.client(alice, List.of(group), Duration.ofHours(1), ca)
            .toKeyStore(password);
    KeyStore bobsKeys =
        SelfSignedCertificate.client(bob, List.of(), Duration.ofHours(1), ca).toKeyStore(password);
    allowMetrics(
        client,
        group,
        new io.fabric8.kubernetes.api.model.rbac.SubjectBuilder()
            .withKind("Group")
            .withName(group)
            .build());
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned(),
            new HealthChecks(),
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            new DelegatedAccess(client, ServingAccess.DEFAULT_ALWAYS_ALLOW_PATHS),
            List.of(ca.certificate()))) {
      HttpRequest metrics =
          HttpRequest.newBuilder(
                  URI.create("https://127.0.0.1:" + server.address().getPort() + "/metrics"))
              .build();
      HttpClient asAlice = LocalManagerHttp.client(alicesKeys, password);

      await("alice's group may read the metrics once its binding is in the authorizer's cache")
          .atMost(30, TimeUnit.SECONDS)
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> asAlice.send(metrics, BodyHandlers.ofString()).statusCode() == 200);
      HttpResponse<String> asBob =
          LocalManagerHttp.client(bobsKeys, password).send(metrics, BodyHandlers.ofString());
      assertThat(asBob.statusCode()).isEqualTo(403);
      assertThat(asBob.body())
          .contains("forbidden: User \\\"" + bob + "\\\" cannot get path \\\"/metrics\\\"");
      HttpResponse<String> anonymous =
          LocalManagerHttp.client().send(metrics, BodyHandlers.ofString());
      assertThat(anonymous.statusCode()).isEqualTo(403);
      assertThat(anonymous.body()).contains("system:anonymous");
    } finally {
      client.rbac().clusterRoleBindings().withName(group).delete();
      client.rbac().clusterRoles().withName(group).delete();
    }
  }

  /** A ClusterRole {@code name} that may get /metrics, bound to {@code subject}. */
  private static void allowMetrics(
      KubernetesClient client, String name, io.fabric8.kubernetes.api.model.rbac.Subject subject) {
    client
        .rbac()
        .clusterRoles()
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .addNewRule()
                .withNonResourceURLs("/metrics")
                .withVerbs("get")
                .endRule()
                .build())
        .create();
    client
        .rbac()
        .clusterRoleBindings()
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", name)
                .withSubjects(subject)
                .build())
        .create();
  }

  private static ManagementClient management(InetSocketAddress address) {
    return new ManagementClient(address.getHostString(), address.getPort());
  }
}
