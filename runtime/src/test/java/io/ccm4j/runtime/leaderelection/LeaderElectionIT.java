package io.ccm4j.runtime.leaderelection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.serving.LocalManagerHttp;
import io.ccm4j.runtime.serving.ManagementServer;
import io.ccm4j.runtime.serving.ServingKeys;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaderElection} against a real API server: the renew deadline enforced when Lease writes
 * hang, and an elector replaced mid-win. The manager's use of it (handover between processes, exit
 * on a lost Lease) is app's {@code ManagerLeaderElectionIT}.
 */
@WithControlPlane
class LeaderElectionIT {

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
            quickSettings(lease, "stalling_" + UUID.randomUUID()),
            onLoss(() -> lostAt.compareAndSet(0, System.nanoTime())),
            System::nanoTime,
            lock -> HookedLock.stalling(lock, stall, release));
    HealthChecks health = new HealthChecks();
    health.add("leaderElection", election::health);
    ListAppender<ILoggingEvent> logged = logged();
    try (ManagementServer server =
        new ManagementServer(
            new InetSocketAddress("127.0.0.1", 0),
            ServingKeys.selfSigned(),
            health,
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))) {
      HttpClient http = LocalManagerHttp.client();
      URI healthz = URI.create("https://127.0.0.1:" + server.address().getPort() + "/healthz");
      election.start();
      await().atMost(30, TimeUnit.SECONDS).until(election::isLeader);
      assertThat(
              http.send(HttpRequest.newBuilder(healthz).build(), BodyHandlers.ofString())
                  .statusCode())
          .isEqualTo(200);

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
      assertThat(lostLines(logged))
          .as("the line that gives up says the renewal is still waiting for its answer")
          .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
          .contains(lease + " not renewed for ")
          .containsPattern("a request for the Lease has had no answer for \\d+ ms");
    } finally {
      release.countDown();
      election.close();
      stopLogging(logged);
    }
  }

  /**
   * The leader's renewals are refused (its RBAC is gone): the line that gives leadership up names
   * the API server's refusal, as upstream's "failed to renew lease" and "error retrieving resource
   * lock" lines before its "leaderelection lost" do; before, it said only that the Lease was lost.
   */
  @Test
  void aLeaderWhoseRenewalsAreRefusedSaysWhyWhenItGivesUp(KubernetesClient admin) throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String user = "ccm-revoked-" + suffix;
    String lease = "ccm-revoked-" + suffix;
    grantLeases(admin, lease, user);
    Config asUser =
        new ConfigBuilder(admin.getConfiguration()).withImpersonateUsername(user).build();
    AtomicBoolean lost = new AtomicBoolean();
    ListAppender<ILoggingEvent> logged = logged();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(asUser).build()) {
      LeaderElection election =
          new LeaderElection(
              client, quickSettings(lease, "revoked_" + suffix), onLoss(() -> lost.set(true)));
      try {
        election.start();
        await().atMost(30, TimeUnit.SECONDS).until(election::isLeader);

        admin.rbac().roleBindings().inNamespace("kube-system").withName(lease).delete();

        await("leadership given up").atMost(20, TimeUnit.SECONDS).untilTrue(lost);
        assertThat(lostLines(logged))
            .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
            .contains(lease)
            .contains("the last renewal failed: ")
            .contains("is forbidden: User \"" + user + "\" cannot")
            .contains("(403)")
            .doesNotContain("\n");
      } finally {
        election.close();
        admin.rbac().roles().inNamespace("kube-system").withName(lease).delete();
      }
    } finally {
      stopLogging(logged);
    }
  }

  /**
   * Another instance writes itself into the leader's Lease: the leader finds it at its next renewal
   * and gives up, saying who holds the Lease now.
   */
  @Test
  void aLeaderWhoseLeaseWasTakenSaysWhoHoldsItWhenItGivesUp(KubernetesClient client)
      throws Exception {
    String lease = "ccm-taken-" + UUID.randomUUID().toString().substring(0, 8);
    AtomicBoolean lost = new AtomicBoolean();
    ListAppender<ILoggingEvent> logged = logged();
    LeaderElection election =
        new LeaderElection(
            client,
            quickSettings(lease, "taken_" + UUID.randomUUID()),
            onLoss(() -> lost.set(true)));
    try {
      election.start();
      await().atMost(30, TimeUnit.SECONDS).until(election::isLeader);

      java.time.ZonedDateTime now = java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC);
      client
          .leases()
          .inNamespace("kube-system")
          .withName(lease)
          .edit(
              taken -> {
                taken.getSpec().setHolderIdentity("usurper");
                taken.getSpec().setAcquireTime(now);
                taken.getSpec().setRenewTime(now);
                taken.getSpec().setLeaseDurationSeconds(60);
                return taken;
              });

      await("leadership given up").atMost(20, TimeUnit.SECONDS).untilTrue(lost);
      assertThat(lostLines(logged))
          .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
          .endsWith(lease + ": the last renewal failed: the Lease is held by usurper");
    } finally {
      election.close();
      stopLogging(logged);
    }
  }

  /**
   * The API server stops answering (SIGSTOP) for several retry periods while a candidate waits for
   * a Lease another instance holds. client-go's elector waits a (jittered) retry period after each
   * attempt ends; fabric8's schedules its attempts at a fixed rate, so once the hung attempt
   * returned it made one attempt for each period missed, back to back. Here no attempt starts
   * sooner than a retry period after the one before ended.
   */
  @Test
  void aCandidateTriesAtMostOncePerRetryPeriodAfterTheApiServerAnswersAgain(
      KubernetesClient client, LocalControlPlane controlPlane) throws Exception {
    String lease = "ccm-paced-" + UUID.randomUUID().toString().substring(0, 8);
    java.time.ZonedDateTime now = java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC);
    client
        .leases()
        .inNamespace("kube-system")
        .resource(
            new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                .withNewMetadata()
                .withName(lease)
                .withNamespace("kube-system")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("another-instance")
                .withLeaseDurationSeconds(300)
                .withAcquireTime(now)
                .withRenewTime(now)
                .withLeaseTransitions(0)
                .endSpec()
                .build())
        .create();
    Duration retryPeriod = Duration.ofMillis(500);
    List<long[]> attempts = java.util.Collections.synchronizedList(new ArrayList<>());
    LeaderElection election =
        new LeaderElection(
            client,
            new LeaderElection.Settings(
                "kube-system",
                lease,
                "paced_" + UUID.randomUUID(),
                Duration.ofSeconds(4),
                Duration.ofSeconds(3),
                retryPeriod,
                Duration.ofSeconds(1)),
            onLoss(() -> {}),
            System::nanoTime,
            lock -> HookedLock.recordingReads(lock, attempts));
    try {
      election.start();
      await().atMost(30, TimeUnit.SECONDS).until(() -> attempts.size() >= 2);

      controlPlane.freeze("kube-apiserver", Duration.ofSeconds(4));
      long thawed = System.nanoTime();
      await()
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> attempts.stream().filter(a -> a[0] > thawed).count() >= 3);

      List<long[]> seen;
      synchronized (attempts) {
        seen = new ArrayList<>(attempts);
      }
      List<Long> gapsMillis = new ArrayList<>();
      for (int i = 1; i < seen.size(); i++) {
        gapsMillis.add(Duration.ofNanos(seen.get(i)[0] - seen.get(i - 1)[1]).toMillis());
      }
      assertThat(election.isLeader()).isFalse();
      assertThat(gapsMillis)
          .as(
              "from the end of each attempt to the start of the next, in ms (retry period %d ms)",
              retryPeriod.toMillis())
          .allSatisfy(gap -> assertThat(gap).isGreaterThanOrEqualTo(retryPeriod.toMillis() - 5));
    } finally {
      election.close();
    }
  }

  private static void grantLeases(KubernetesClient admin, String name, String user) {
    admin
        .rbac()
        .roles()
        .inNamespace("kube-system")
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .addNewRule()
                .withApiGroups("coordination.k8s.io")
                .withResources("leases")
                .withVerbs("get", "list", "watch", "create", "update", "patch")
                .endRule()
                .build())
        .create();
    admin
        .rbac()
        .roleBindings()
        .inNamespace("kube-system")
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", name)
                .addNewSubject()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("User")
                .withName(user)
                .endSubject()
                .build())
        .create();
  }

  private static ListAppender<ILoggingEvent> logged() {
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    ((Logger) LoggerFactory.getLogger(LeaderElection.class)).addAppender(appender);
    return appender;
  }

  private static void stopLogging(ListAppender<ILoggingEvent> appender) {
    ((Logger) LoggerFactory.getLogger(LeaderElection.class)).detachAppender(appender);
  }

  private static List<String> lostLines(ListAppender<ILoggingEvent> appender) {
    synchronized (appender.list) {
      return appender.list.stream()
          .map(ILoggingEvent::getFormattedMessage)
          .filter(line -> line.startsWith("leaderelection lost"))
          .toList();
    }
  }

  /**
   * A manager started before its RBAC (or while the API server comes up) waits for its Lease as
   * upstream's elector does, retrying, instead of exiting on the first refused list and
   * crash-looping.
   */
  @Test
  void aCandidateRefusedItsLeaseRetriesUntilItMayTakeIt(KubernetesClient admin) throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String user = "ccm-late-rbac-" + suffix;
    String lease = "ccm-rbac-" + suffix;
    Config asUser =
        new ConfigBuilder(admin.getConfiguration()).withImpersonateUsername(user).build();
    try (KubernetesClient client = new KubernetesClientBuilder().withConfig(asUser).build()) {
      LeaderElection election =
          new LeaderElection(client, quickSettings(lease, "late_" + suffix), onLoss(() -> {}));
      try {
        election.start();
        await()
            .during(2, TimeUnit.SECONDS)
            .atMost(5, TimeUnit.SECONDS)
            .until(() -> !election.isLeader());

        admin
            .rbac()
            .roles()
            .inNamespace("kube-system")
            .resource(
                new RoleBuilder()
                    .withNewMetadata()
                    .withName(lease)
                    .endMetadata()
                    .addNewRule()
                    .withApiGroups("coordination.k8s.io")
                    .withResources("leases")
                    .withVerbs("get", "list", "watch", "create", "update")
                    .endRule()
                    .build())
            .create();
        admin
            .rbac()
            .roleBindings()
            .inNamespace("kube-system")
            .resource(
                new RoleBindingBuilder()
                    .withNewMetadata()
                    .withName(lease)
                    .endMetadata()
                    .withNewRoleRef("rbac.authorization.k8s.io", "Role", lease)
                    .addNewSubject()
                    .withApiGroup("rbac.authorization.k8s.io")
                    .withKind("User")
                    .withName(user)
                    .endSubject()
                    .build())
            .create();

        await("leading once its RBAC exists")
            .atMost(30, TimeUnit.SECONDS)
            .until(election::isLeader);
      } finally {
        election.close();
      }
    }
  }

  /**
   * Another holder's Lease whose renew time lies an hour back by this instance's wall clock (the
   * holder's clock lags): judged as client-go judges it, by when this candidate observed the
   * record, it is not taken before a lease duration has passed since then; fabric8 alone would take
   * it at once.
   */
  @Test
  void aLeaseRenewedByAClockAnHourBehindIsNotTakenBeforeItsTermFromTheObservation(
      KubernetesClient client) throws Exception {
    String lease = "ccm-skew-" + UUID.randomUUID().toString().substring(0, 8);
    java.time.ZonedDateTime hourAgo =
        java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).minusHours(1);
    client
        .leases()
        .inNamespace("kube-system")
        .resource(
            new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                .withNewMetadata()
                .withName(lease)
                .withNamespace("kube-system")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity("lagging-clock")
                .withLeaseDurationSeconds(4)
                .withAcquireTime(hourAgo)
                .withRenewTime(hourAgo)
                .withLeaseTransitions(0)
                .endSpec()
                .build())
        .create();
    LeaderElection election =
        new LeaderElection(
            client,
            new LeaderElection.Settings(
                "kube-system",
                lease,
                "candidate_" + UUID.randomUUID(),
                Duration.ofSeconds(4),
                Duration.ofSeconds(3),
                Duration.ofMillis(500),
                Duration.ofSeconds(1)),
            onLoss(() -> {}));
    try {
      long started = System.nanoTime();
      election.start();
      await("not taken while the holder's term runs, counted from the observation")
          .during(Duration.ofMillis(3000))
          .atMost(Duration.ofSeconds(4))
          .until(() -> !election.isLeader());
      await("taken once it ended").atMost(Duration.ofSeconds(5)).until(election::isLeader);
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      System.out.printf(
          "lease renewed an hour back by the holder's clock (4 s): taken %.2f s after the"
              + " candidate started%n",
          took.toMillis() / 1000.0);
      assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(4));
    } finally {
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
      // Its watch must have seen the Lease to see it go: on a loaded machine its first list could
      // come after the deletion, and then nothing would tell the candidate.
      await("the watch has the Lease").atMost(30, TimeUnit.SECONDS).until(election::leaseCached);
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

  /**
   * A Lease lock whose writes can be held back, as a hung API call would: {@code beforeUpdate} runs
   * before each update, {@code afterCreate} after each creation; {@code onRead} gets each read's
   * start and end ({@link System#nanoTime()}).
   */
  private record HookedLock(
      Lock delegate, Runnable afterCreate, Runnable beforeUpdate, Consumer<long[]> onRead)
      implements Lock {

    HookedLock(Lock delegate, Runnable afterCreate, Runnable beforeUpdate) {
      this(delegate, afterCreate, beforeUpdate, read -> {});
    }

    /** Blocks every Lease update while {@code stall} is set, until {@code release}. */
    static HookedLock stalling(Lock delegate, AtomicBoolean stall, CountDownLatch release) {
      return new HookedLock(delegate, () -> {}, () -> awaitIf(stall.get(), release));
    }

    /** Records the start and end ({@link System#nanoTime()}) of each read of the Lease. */
    static HookedLock recordingReads(Lock delegate, List<long[]> reads) {
      return new HookedLock(delegate, () -> {}, () -> {}, reads::add);
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
      long started = System.nanoTime();
      try {
        return delegate.get(client);
      } finally {
        onRead.accept(new long[] {started, System.nanoTime()});
      }
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

  /** A listener that runs {@code lost} when leadership is lost. */
  private static LeaderElection.Listener onLoss(Runnable lost) {
    return new LeaderElection.Listener() {
      @Override
      public void startedLeading() {}

      @Override
      public void lostLeadership() {
        lost.run();
      }
    };
  }

  /** An election on {@code lease} with short terms: 3 s Lease, 2 s deadline, 500 ms retries. */
  private static LeaderElection.Settings quickSettings(String lease, String identity) {
    return new LeaderElection.Settings(
        "kube-system",
        lease,
        identity,
        Duration.ofSeconds(3),
        Duration.ofSeconds(2),
        Duration.ofMillis(500),
        Duration.ofSeconds(1));
  }
}
