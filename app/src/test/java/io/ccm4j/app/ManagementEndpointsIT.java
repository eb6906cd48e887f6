package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.runtime.serving.DelegatedAccess;
import io.ccm4j.runtime.serving.ManagementServer;
import io.ccm4j.runtime.serving.ServingAccess;
import io.ccm4j.runtime.serving.ServingKeys;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The manager's HTTPS endpoint against a real API server (A4). */
@WithControlPlane
class ManagementEndpointsIT {

  @Test
  void healthAndMetricsAnswerWhileLeading(KubernetesClient client) throws Exception {
    String lease = "ccm-health-" + UUID.randomUUID().toString().substring(0, 8);
    FakeCloudProvider cloud = new FakeCloudProvider();
    var settings =
        new CloudControllerManager.Settings(
            cloud,
            "kubernetes",
            ControllerSelection.parse(List.of("*"), Set.of()),
            ControllerSettings.defaults(),
            Optional.of(
                new LeaderElection.Settings(
                    "kube-system",
                    lease,
                    "test_" + UUID.randomUUID(),
                    Duration.ofSeconds(15),
                    Duration.ofSeconds(10),
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(20))),
            Optional.of(new InetSocketAddress("127.0.0.1", 0)),
            ServingKeys.selfSigned(),
            // Served without a token here (a prefix for the health checks); see below for tokens.
            ServingAccess.allowing(List.of("/healthz*", "/readyz", "/livez", "/metrics")));
    try (CloudControllerManager manager =
        new CloudControllerManager(client, settings, Controllers.ALL, code -> {})) {
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
    }
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
        new CloudControllerManager.Settings(
            new FakeCloudProvider(),
            "kubernetes",
            ControllerSelection.parse(List.of("*"), Set.of()),
            ControllerSettings.defaults(),
            Optional.empty(),
            Optional.of(new InetSocketAddress("127.0.0.1", 0)),
            ServingKeys.selfSigned());
    assertThat(settings.servingAccess().alwaysAllowPaths())
        .containsExactly("/healthz", "/readyz", "/livez");
    ServiceAccounts.create(client, "default", scraper);
    String token = ServiceAccounts.token(client, "default", scraper);
    String user = "system:serviceaccount:default:" + scraper;
    try (CloudControllerManager manager =
        new CloudControllerManager(client, settings, Controllers.ALL, code -> {})) {
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

      client
          .rbac()
          .clusterRoles()
          .resource(
              new io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder()
                  .withNewMetadata()
                  .withName(scraper)
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
                  .withName(scraper)
                  .endMetadata()
                  .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", scraper)
                  .addNewSubject()
                  .withKind("ServiceAccount")
                  .withName(scraper)
                  .withNamespace("default")
                  .endSubject()
                  .build())
          .create();

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

  @Test
  void aStalledRenewLoopGivesUpLeadershipAtTheRenewDeadline(KubernetesClient client)
      throws Exception {
    String lease = "ccm-stall-" + UUID.randomUUID().toString().substring(0, 8);
    AtomicBoolean stall = new AtomicBoolean();
    CountDownLatch release = new CountDownLatch(1);
    AtomicLong lostAt = new AtomicLong();
    LeaderElection election =
        new LeaderElection(
            client,
            new LeaderElection.Settings(
                "kube-system",
                lease,
                "stalling_" + UUID.randomUUID(),
                Duration.ofSeconds(3),
                Duration.ofSeconds(2),
                Duration.ofMillis(500),
                Duration.ofSeconds(1)),
            new LeaderElection.Listener() {
              @Override
              public void startedLeading() {}

              @Override
              public void lostLeadership() {
                lostAt.compareAndSet(0, System.nanoTime());
              }
            },
            System::nanoTime,
            lock -> HookedLock.stalling(lock, stall, release));
    HealthChecks health = new HealthChecks();
    health.add("leaderElection", election::health);
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned(),
            health,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
      var endpoint = management(server.address());
      election.start();
      await().atMost(30, TimeUnit.SECONDS).until(election::isLeader);
      assertThat(endpoint.get("/healthz").statusCode()).isEqualTo(200);

      // Every Lease write now hangs, as against an unreachable API server.
      long stalled = System.nanoTime();
      stall.set(true);

      await("leadership given up once no renewal succeeded within the renew deadline (2 s)")
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> lostAt.get() != 0);
      assertThat(election.isLeader()).isFalse();
      assertThat(Duration.ofNanos(lostAt.get() - stalled))
          .as(
              "from the last renewal (at most a retry period, 0.5 s, before the stall), and"
                  + " before the Lease (3 s) could pass to another instance")
          .isBetween(Duration.ofMillis(1500), Duration.ofMillis(3500));
    } finally {
      release.countDown();
      election.close();
    }
  }

  /**
   * A candidate's elector wins the Lease in the moment it is replaced (the Lease was deleted, so
   * the candidate tries again at once): the win of the replaced elector used to start the
   * controllers and then, as it was cancelled, report leadership lost (the manager exits).
   */
  @Test
  void aLeaseWonWhileTheElectorIsReplacedIsNotReportedLost(KubernetesClient client)
      throws Exception {
    String lease = "ccm-replaced-" + UUID.randomUUID().toString().substring(0, 8);
    String identity = "replaced_" + UUID.randomUUID();
    CountDownLatch created = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    AtomicInteger lost = new AtomicInteger();
    LeaderElection election =
        new LeaderElection(
            client,
            new LeaderElection.Settings(
                "kube-system",
                lease,
                identity,
                Duration.ofSeconds(15),
                Duration.ofSeconds(10),
                Duration.ofSeconds(2),
                Duration.ofSeconds(20)),
            new LeaderElection.Listener() {
              @Override
              public void startedLeading() {
                started.incrementAndGet();
              }

              @Override
              public void lostLeadership() {
                lost.incrementAndGet();
              }
            },
            System::nanoTime,
            lock -> HookedLock.holdingFirstCreate(lock, created, release));
    try {
      election.start();
      assertThat(created.await(30, TimeUnit.SECONDS)).as("the elector created the Lease").isTrue();
      // The elector's attempt has written the Lease but not yet returned. Deleting the Lease makes
      // the candidate replace its elector; the replacement waits for the attempt in progress.
      client.leases().inNamespace("kube-system").withName(lease).delete();
      await("the elector is being replaced")
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> threadIsIn("leader-election-timer", "stopLeading"));
      release.countDown();

      await().atMost(30, TimeUnit.SECONDS).until(election::isLeader);
      await("no leadership reported lost")
          .during(Duration.ofSeconds(3))
          .atMost(5, TimeUnit.SECONDS)
          .until(() -> lost.get() == 0 && election.isLeader());
      assertThat(started.get()).isEqualTo(1);
      assertThat(
              client
                  .leases()
                  .inNamespace("kube-system")
                  .withName(lease)
                  .get()
                  .getSpec()
                  .getHolderIdentity())
          .isEqualTo(identity);
    } finally {
      release.countDown();
      election.close();
    }
  }

  private static boolean threadIsIn(String threadName, String method) {
    return Thread.getAllStackTraces().entrySet().stream()
        .filter(e -> e.getKey().getName().equals(threadName))
        .flatMap(e -> java.util.Arrays.stream(e.getValue()))
        .anyMatch(frame -> frame.getMethodName().equals(method));
  }

  private static ManagementClient management(InetSocketAddress address) {
    return new ManagementClient(address.getHostString(), address.getPort());
  }

  /**
   * A Lease lock whose writes can be held back, as a hung API call would: {@code beforeUpdate} runs
   * before each update, {@code afterCreate} after each creation.
   */
  private record HookedLock(Lock delegate, Runnable afterCreate, Runnable beforeUpdate)
      implements Lock {

    /** Blocks every Lease update while {@code stall} is set, until {@code release}. */
    static HookedLock stalling(Lock delegate, AtomicBoolean stall, CountDownLatch release) {
      return new HookedLock(delegate, () -> {}, () -> awaitIf(stall.get(), release));
    }

    /** Holds the first Lease creation back, once written, until {@code release}. */
    static HookedLock holdingFirstCreate(
        Lock delegate, CountDownLatch created, CountDownLatch release) {
      return new HookedLock(
          delegate,
          () -> {
            boolean first = created.getCount() > 0;
            created.countDown();
            awaitIf(first, release);
          },
          () -> {});
    }

    private static void awaitIf(boolean condition, CountDownLatch latch) {
      if (condition) {
        try {
          latch.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
      return delegate.get(client);
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
      delegate.create(client, record);
      afterCreate.run();
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
      beforeUpdate.run();
      delegate.update(client, record);
    }

    @Override
    public String identity() {
      return delegate.identity();
    }

    @Override
    public String describe() {
      return delegate.describe();
    }
  }
}
