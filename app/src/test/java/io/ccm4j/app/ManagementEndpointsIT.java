package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The manager's HTTPS endpoint against a real API server (A4). */
@WithControlPlane
class ManagementEndpointsIT {

  /**
   * The help of the series upstream's manager serves from its start, as it writes them: its text,
   * after the stability level component-base puts first (the Go sources' {@code Help} and {@code
   * StabilityLevel}; the process series, from the Prometheus client itself, have none).
   */
  private static final Map<String, String> UPSTREAM_HELP =
      Map.ofEntries(
          Map.entry(
              "kubernetes_build_info",
              "[BETA] A metric with a constant '1' value labeled by major, minor, git version, git"
                  + " commit, git tree state, build date, Go version, and compiler from which"
                  + " Kubernetes was built, and platform on which it is running."),
          Map.entry(
              "leader_election_master_status",
              "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0"
                  + " indicates backup, 1 indicates master. 'name' is the string used to identify"
                  + " the lease. Please make sure to group by name."),
          Map.entry(
              "running_managed_controllers",
              "[BETA] Indicates where instances of a controller are currently running"),
          Map.entry(
              "rest_client_requests_total",
              "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host."),
          Map.entry(
              "rest_client_request_duration_seconds",
              "[ALPHA] Request latency in seconds. Broken down by verb, and host."),
          Map.entry(
              "rest_client_rate_limiter_duration_seconds",
              "[ALPHA] Client side rate limiter latency in seconds. Broken down by verb, and host."),
          Map.entry("workqueue_adds_total", "[BETA] Total number of adds handled by workqueue"),
          Map.entry("workqueue_depth", "[BETA] Current depth of workqueue"),
          Map.entry(
              "workqueue_queue_duration_seconds",
              "[BETA] How long in seconds an item stays in workqueue before being requested."),
          Map.entry(
              "workqueue_work_duration_seconds",
              "[BETA] How long in seconds processing an item from workqueue takes."),
          Map.entry(
              "workqueue_retries_total", "[BETA] Total number of retries handled by workqueue"),
          Map.entry(
              "workqueue_unfinished_work_seconds",
              "[BETA] How many seconds of work has done that is in progress and hasn't been"
                  + " observed by work_duration. Large values indicate stuck threads. One can"
                  + " deduce the number of stuck threads by observing the rate at which this"
                  + " increases."),
          Map.entry(
              "workqueue_longest_running_processor_seconds",
              "[BETA] How many seconds has the longest running processor for workqueue been"
                  + " running."),
          Map.entry(
              "node_controller_cloud_provider_taint_removal_delay_seconds",
              "[ALPHA] Number of seconds after node creation when NodeController removed the"
                  + " cloud-provider taint of a single node."),
          Map.entry(
              "node_controller_initial_node_sync_delay_seconds",
              "[ALPHA] Number of seconds after node creation when NodeController finished the"
                  + " initial synchronization of a single node."),
          Map.entry(
              "service_controller_loadbalancer_sync_total",
              "[ALPHA] A metric counting the amount of times any load balancer has been"
                  + " configured, as an effect of service/node changes on the cluster"),
          Map.entry(
              "service_controller_nodesync_error_total",
              "[ALPHA] A metric counting the amount of times any load balancer has been"
                  + " configured and errored, as an effect of node changes on the cluster"),
          Map.entry(
              "service_controller_nodesync_latency_seconds",
              "[ALPHA] A metric measuring the latency for nodesync which updates loadbalancer"
                  + " hosts on cluster node updates."),
          Map.entry(
              "service_controller_update_loadbalancer_host_latency_seconds",
              "[ALPHA] A metric measuring the latency for updating each load balancer hosts."),
          Map.entry(
              "cloud_node_lifecycle_controller_monitor_nodes_duration_seconds",
              "[ALPHA] A metric measuring the duration in seconds of a single MonitorNodes loop"
                  + " execution."),
          Map.entry(
              "node_collector_update_node_health_duration_seconds",
              "[ALPHA] Duration in seconds for NodeController to update the health of a single"
                  + " node."),
          Map.entry(
              "node_collector_update_all_nodes_health_duration_seconds",
              "[ALPHA] Duration in seconds for NodeController to update the health of all nodes."),
          Map.entry(
              "taint_eviction_controller_pod_deletions_total",
              "[ALPHA] Total number of Pods deleted by TaintEvictionController since its start."),
          Map.entry(
              "taint_eviction_controller_pod_deletion_duration_seconds",
              "[ALPHA] Latency, in seconds, between the time when a taint effect has been"
                  + " activated for the Pod and its deletion via TaintEvictionController."),
          Map.entry(
              "apiserver_delegated_authn_request_total",
              "[ALPHA] Number of HTTP requests partitioned by status code."),
          Map.entry(
              "apiserver_delegated_authz_request_total",
              "[ALPHA] Number of HTTP requests partitioned by status code."),
          Map.entry(
              "process_cpu_seconds_total", "Total user and system CPU time spent in seconds."));

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
                ServingAccess.allowing(
                    List.of("/healthz*", "/readyz", "/livez", "/metrics", "/metrics/slis")))
            .buildSettings();
    try (CloudControllerManager manager =
        CloudControllerManager.builder(client).settings(settings).exit(code -> {}).build()) {
      manager.start();
      await().atMost(30, TimeUnit.SECONDS).until(manager::isLeader);
      var endpoint = management(manager.servingAddress().orElseThrow());
      // The controllers start once the Lease is held, and each reports running_managed_controllers
      // as it starts: on a busy machine the first scrape could come between the two.
      await("the controllers report running")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> endpoint.get("/metrics").body().contains("\nrunning_managed_controllers{"));

      for (String path : List.of("/healthz", "/readyz", "/livez", "/healthz/leaderElection")) {
        HttpResponse<String> response = endpoint.get(path);
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        assertThat(response.body()).as(path).isEqualTo("ok");
      }
      assertThat(endpoint.get("/healthz?verbose").body())
          .contains("[+]ping ok", "[+]leaderElection ok", "healthz check passed");
      assertThat(endpoint.get("/healthz/no-such-check").statusCode()).isEqualTo(404);

      // Each check the aggregate paths ran above, by the path's name (the Lease's check passed).
      HttpResponse<String> slis = endpoint.get("/metrics/slis");
      assertThat(slis.statusCode()).isEqualTo(200);
      assertThat(slis.body())
          .contains(
              "kubernetes_healthcheck{name=\"leaderElection\",type=\"healthz\"} 1\n",
              "kubernetes_healthcheck{name=\"leaderElection\",type=\"readyz\"} 1\n",
              "kubernetes_healthcheck{name=\"ping\",type=\"livez\"} 1\n",
              "kubernetes_healthchecks_total{name=\"leaderElection\",status=\"success\","
                  + "type=\"livez\"} 1\n")
          .doesNotContain("status=\"error\"");

      HttpResponse<String> metrics = endpoint.get("/metrics");
      assertThat(metrics.statusCode()).isEqualTo(200);
      assertThat(registeredMetrics(metrics.body()))
          .as("registered_metrics_total: the families with a level on /metrics and /metrics/slis")
          .isEqualTo(familiesByLevel(metrics.body(), slis.body()))
          .containsKeys("ALPHA", "BETA", "STABLE");
      assertThat(metrics.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
      assertThat(metrics.headers().firstValue("Content-Type"))
          .hasValue("text/plain; version=0.0.4; charset=utf-8; escaping=underscores");
      assertThat(metrics.body())
          .contains("leader_election_master_status{name=\"" + lease + "\"} 1")
          .contains("jvm_memory_used_bytes")
          .containsPattern(
              "\nkubernetes_build_info\\{build_date=\"[^\"]+\",compiler=\"javac\",git_commit=\"\","
                  + "git_tree_state=\"\",git_version=\"v[^\"]+\",go_version=\"java[^\"]+\","
                  + "major=\"1\",minor=\"\\d+\",platform=\"[^\"]+\"} 1\n");
      assertUpstreamHelp(
          metrics.body(),
          "kubernetes_build_info",
          "leader_election_master_status",
          "running_managed_controllers",
          "workqueue_adds_total",
          "workqueue_depth",
          "workqueue_queue_duration_seconds",
          "workqueue_work_duration_seconds",
          "workqueue_retries_total",
          "workqueue_unfinished_work_seconds",
          "workqueue_longest_running_processor_seconds",
          "node_collector_update_node_health_duration_seconds",
          "node_collector_update_all_nodes_health_duration_seconds",
          "taint_eviction_controller_pod_deletions_total",
          "taint_eviction_controller_pod_deletion_duration_seconds",
          "process_cpu_seconds_total");
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
              "rest_client_request_duration_seconds_bucket{host=\"%s\",verb=\"GET\",le=\"60\"}"
                  .formatted(host));
      assertUpstreamHelp(
          body,
          "rest_client_requests_total",
          "rest_client_request_duration_seconds",
          "rest_client_rate_limiter_duration_seconds");
    }
  }

  /**
   * The cloud controllers' series carry upstream's help texts on the served /metrics, from the
   * manager's start.
   */
  @Test
  void theCloudControllersSeriesHaveUpstreamsHelp(KubernetesClient client) throws Exception {
    String prefix = "help-" + UUID.randomUUID().toString().substring(0, 6) + "-";
    var settings =
        CloudControllerManager.settings()
            .cloud(
                SimCloudProviderFactory.fromYaml(
                    "generate: {count: 1, prefix: %s}".formatted(prefix)))
            .selection(
                ControllerSelection.parse(
                    List.of("cloud-node", "cloud-node-lifecycle", "service"), Set.of()))
            .controllers(ControllerSettings.defaults())
            .serving(new InetSocketAddress("127.0.0.1", 0), ServingKeys.selfSigned())
            .servingAccess(ServingAccess.allowing(List.of("/metrics")))
            .buildSettings();
    try (CloudControllerManager manager =
        CloudControllerManager.builder(client).settings(settings).exit(code -> {}).build()) {
      manager.start();
      var endpoint = management(manager.servingAddress().orElseThrow());

      await("the controllers' series")
          .atMost(30, TimeUnit.SECONDS)
          .untilAsserted(
              () ->
                  assertUpstreamHelp(
                      endpoint.get("/metrics").body(),
                      "node_controller_cloud_provider_taint_removal_delay_seconds",
                      "node_controller_initial_node_sync_delay_seconds",
                      "service_controller_loadbalancer_sync_total",
                      "service_controller_nodesync_error_total",
                      "service_controller_nodesync_latency_seconds",
                      "service_controller_update_loadbalancer_host_latency_seconds",
                      "cloud_node_lifecycle_controller_monitor_nodes_duration_seconds"));
    }
  }

  /** Each named series' help is upstream's, as its {@code # HELP} line writes it. */
  /** registered_metrics_total's values by stability level. */
  private static Map<String, Long> registeredMetrics(String scrape) {
    Map<String, Long> counts = new TreeMap<>();
    Matcher sample =
        Pattern.compile(
                "(?m)^registered_metrics_total\\{deprecated_version=\"\","
                    + "stability_level=\"(\\w+)\"} (\\d+)$")
            .matcher(scrape);
    while (sample.find()) {
      counts.put(sample.group(1), Long.parseLong(sample.group(2)));
    }
    return counts;
  }

  /** How many families the scrapes hold by the stability level their help begins with. */
  private static Map<String, Long> familiesByLevel(String... scrapes) {
    Map<String, String> levels = new HashMap<>();
    Pattern help = Pattern.compile("(?m)^# HELP (\\S+) \\[(ALPHA|BETA|STABLE|INTERNAL)] ");
    for (String scrape : scrapes) {
      Matcher family = help.matcher(scrape);
      while (family.find()) {
        levels.put(family.group(1), family.group(2));
      }
    }
    return levels.values().stream()
        .collect(Collectors.groupingBy(level -> level, TreeMap::new, Collectors.counting()));
  }

  private static void assertUpstreamHelp(String scrape, String... names) {
    for (String name : names) {
      assertThat(UPSTREAM_HELP).containsKey(name);
      assertThat("\n" + scrape) // the first line has no line before it
          .contains("\n# HELP " + name + " " + UPSTREAM_HELP.get(name) + "\n");
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
      String scraped = endpoint.get("/metrics", token).body();
      assertThat(scraped).contains("jvm_memory_used_bytes");
      assertUpstreamHelp(
          scraped,
          "apiserver_delegated_authn_request_total",
          "apiserver_delegated_authz_request_total");

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
