package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The manager under leader election: two {@code ccm4j run} processes against one API server (A5,
 * and the lease release of kubernetes#119905), and what a lost Lease ends. {@code LeaderElection}
 * itself is tested in runtime's {@code LeaderElectionIT}.
 */
@WithControlPlane
class ManagerLeaderElectionIT {

  @Test
  void exactlyOneLeadsAndTheOtherTakesOverAfterKillAndAfterCleanStop(
      LocalControlPlane controlPlane, KubernetesClient client) throws Exception {
    String lease = "ccm-" + UUID.randomUUID().toString().substring(0, 8);
    try (ManagerProcess first = ManagerProcess.start(controlPlane, lease);
        ManagerProcess second = ManagerProcess.start(controlPlane, lease)) {
      await("one of two instances leads")
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> first.isLeader() || second.isLeader());
      await("exactly one leads, steadily")
          .during(Duration.ofSeconds(4))
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> first.isLeader() ^ second.isLeader());
      ManagerProcess leader = first.isLeader() ? first : second;
      ManagerProcess follower = leader == first ? second : first;

      long killedAt = System.nanoTime();
      leader.kill();
      await("the follower takes over an unreleased lease")
          .atMost(30, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(100))
          .until(follower::isLeader);
      Duration failover = Duration.ofNanos(System.nanoTime() - killedAt);
      // Each leader says so on the Lease, as upstream's elector does.
      await("a LeaderElection event from each leader")
          .atMost(30, TimeUnit.SECONDS)
          .untilAsserted(
              () ->
                  assertThat(leaderElectionEvents(client, lease))
                      .hasSize(2)
                      .allSatisfy(
                          event -> {
                            assertThat(event.getType()).isEqualTo("Normal");
                            assertThat(event.getMessage()).endsWith(" became leader");
                            assertThat(event.getSource().getComponent())
                                .isEqualTo("cloud-controller-manager");
                          }));

      try (ManagerProcess third = ManagerProcess.start(controlPlane, lease)) {
        await().atMost(60, TimeUnit.SECONDS).until(third::isCampaigning);
        assertThat(third.isLeader()).isFalse();

        long stoppedAt = System.nanoTime();
        follower.terminate();
        await("a clean stop releases the lease")
            .atMost(20, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(50))
            .until(third::isLeader);
        Duration handover = Duration.ofNanos(System.nanoTime() - stoppedAt);
        assertThat(follower.process().waitFor(10, TimeUnit.SECONDS)).isTrue();

        System.out.printf(
            "MEASURED leader failover after SIGKILL: %.2f s; handover after SIGTERM: %.2f s%n",
            failover.toMillis() / 1000.0, handover.toMillis() / 1000.0);
        assertThat(failover)
            .as("failover after SIGKILL")
            .isLessThanOrEqualTo(Duration.ofSeconds(17));
        assertThat(handover)
            .as("handover after SIGTERM")
            .isLessThanOrEqualTo(Duration.ofSeconds(3));
      }
    }
  }

  @Test
  void losingTheLeaseStopsTheManagerWithANonZeroExitCode(
      LocalControlPlane controlPlane, KubernetesClient client) throws Exception {
    String lease = "ccm-lost-" + UUID.randomUUID().toString().substring(0, 8);
    try (ManagerProcess manager =
        ManagerProcess.start(
            controlPlane,
            lease,
            "--leader-elect-lease-duration=4s",
            "--leader-elect-renew-deadline=3s",
            "--leader-elect-retry-period=1s")) {
      await().atMost(60, TimeUnit.SECONDS).until(manager::isLeader);

      // Another holder takes the Lease: the manager can no longer renew it.
      takeOver(client, lease);

      assertThat(manager.process().waitFor(30, TimeUnit.SECONDS))
          .as("exits after losing the lease; log:%n%s", manager.log())
          .isTrue();
      assertThat(manager.process().exitValue()).isEqualTo(1);
      assertThat(manager.log()).contains("leaderelection lost");
    }
  }

  /**
   * Upstream exits the moment its Lease is lost. A worker stuck in a cloud call (here an
   * EnsureLoadBalancer that never returns and ignores interrupts) must not keep this instance
   * running, and acting, beside the new leader.
   */
  @Test
  void aWorkerStuckInACloudCallDoesNotDelayTheExitAfterTheLeaseIsLost(KubernetesClient client)
      throws Exception {
    String lease = "ccm-stuck-" + UUID.randomUUID().toString().substring(0, 8);
    CountDownLatch ensuring = new CountDownLatch(1);
    CountDownLatch unblock = new CountDownLatch(1);
    HangingLoadBalancerCloud cloud = new HangingLoadBalancerCloud(ensuring, unblock);
    var settings = withShortLease(cloud, "service-lb-controller", lease);
    AtomicInteger exitCode = new AtomicInteger(-1);
    AtomicLong exitedAt = new AtomicLong();
    String service = "stuck-" + UUID.randomUUID().toString().substring(0, 8);
    CloudControllerManager manager =
        CloudControllerManager.builder(client)
            .settings(settings)
            .exit(
                code -> {
                  exitedAt.compareAndSet(0, System.nanoTime());
                  exitCode.compareAndSet(-1, code);
                })
            .build();
    try {
      manager.start();
      await().atMost(30, TimeUnit.SECONDS).until(manager::isLeader);
      client.services().inNamespace("default").resource(loadBalancer(service)).create();
      assertThat(ensuring.await(30, TimeUnit.SECONDS))
          .as("the controller called EnsureLoadBalancer")
          .isTrue();

      long lostAt = System.nanoTime();
      takeOver(client, lease);

      await("the manager exits although a worker is still in its cloud call")
          .atMost(15, TimeUnit.SECONDS)
          .until(() -> exitedAt.get() != 0);
      assertThat(exitCode.get()).isEqualTo(1);
      assertThat(unblock.getCount()).as("the cloud call is still hanging").isEqualTo(1);
      assertThat(Duration.ofNanos(exitedAt.get() - lostAt))
          .as("noticing the loss (a retry period, 1 s) plus the grace for workers (2 s)")
          .isLessThan(Duration.ofSeconds(8));
    } finally {
      // Before closing: the old manager waited for the hung worker there, forever.
      unblock.countDown();
      manager.close();
      LeftServices.remove(client, "default", service);
    }
  }

  /**
   * A worker back from a cloud call after the Lease was lost must not write: another instance may
   * lead already. Its status write is refused before it is sent (the fence), where upstream's
   * process would simply be gone.
   */
  @Test
  void aWorkerBackFromTheCloudAfterTheLeaseIsLostWritesNothing(KubernetesClient client)
      throws Exception {
    String lease = "ccm-fence-" + UUID.randomUUID().toString().substring(0, 8);
    CountDownLatch ensuring = new CountDownLatch(1);
    CountDownLatch unblock = new CountDownLatch(1);
    HangingLoadBalancerCloud cloud = new HangingLoadBalancerCloud(ensuring, unblock);
    var settings = withShortLease(cloud, "service-lb-controller", lease);
    AtomicInteger exitCode = new AtomicInteger(-1);
    String service = "fenced-" + UUID.randomUUID().toString().substring(0, 8);
    try (ManagerClients clients = ManagerClients.create(client.getConfiguration(), 20, 30, false);
        CloudControllerManager manager =
            CloudControllerManager.builder(clients)
                .settings(settings)
                .exit(code -> exitCode.compareAndSet(-1, code))
                .build()) {
      manager.start();
      await().atMost(30, TimeUnit.SECONDS).until(manager::isLeader);
      client.services().inNamespace("default").resource(loadBalancer(service)).create();
      assertThat(ensuring.await(30, TimeUnit.SECONDS)).isTrue();

      takeOver(client, lease);
      await("the manager has lost its Lease")
          .atMost(15, TimeUnit.SECONDS)
          .until(() -> exitCode.get() != -1);
      unblock.countDown(); // the cloud answers now, with an address

      await("the late status write never lands")
          .during(Duration.ofSeconds(3))
          .atMost(5, TimeUnit.SECONDS)
          .until(
              () -> {
                Service current = client.services().inNamespace("default").withName(service).get();
                return current.getStatus() == null
                    || current.getStatus().getLoadBalancer() == null
                    || current.getStatus().getLoadBalancer().getIngress() == null
                    || current.getStatus().getLoadBalancer().getIngress().isEmpty();
              });
    } finally {
      unblock.countDown();
      LeftServices.remove(client, "default", service);
    }
  }

  /**
   * A provider whose initialisation throws what no one expects (not a CloudException): the new
   * leader runs nothing, so it must exit and let a standby lead, not hold the Lease.
   */
  @Test
  void aProviderWhoseInitialisationThrowsEndsTheLeaderWithANonZeroExitCode(KubernetesClient client)
      throws Exception {
    String lease = "ccm-init-" + UUID.randomUUID().toString().substring(0, 8);
    CloudProvider throwing =
        new CloudProvider() {
          @Override
          public String providerName() {
            return "throwing";
          }

          @Override
          public void initialize(io.ccm4j.cloudprovider.ProviderContext context) {
            throw new IllegalStateException("the provider's bug");
          }
        };
    var settings = withShortLease(throwing, "cloud-node", lease);
    AtomicInteger exitCode = new AtomicInteger(-1);
    try (CloudControllerManager manager =
        CloudControllerManager.builder(client)
            .settings(settings)
            .exit(code -> exitCode.compareAndSet(-1, code))
            .build()) {
      manager.start();

      await("the leader exits").atMost(15, TimeUnit.SECONDS).until(() -> exitCode.get() != -1);
      assertThat(exitCode.get()).isEqualTo(1);
    }
  }

  /**
   * A stop right after the Lease was taken (SIGTERM during a rollout) ends the informers before
   * their first list. That is an ordinary stop: fabric8 logged it as a failure to start, with a
   * WARN and a stack trace per informer ("informer manually stopped before starting").
   */
  @Test
  void aStopRightAfterTakingTheLeaseLogsNoFailure(KubernetesClient client) throws Exception {
    String lease = "ccm-early-" + UUID.randomUUID().toString().substring(0, 8);
    AtomicReference<CloudControllerManager> manager = new AtomicReference<>();
    AtomicReference<Thread> stopper = new AtomicReference<>();
    CloudProvider stopsWhileStarting =
        new HangingLoadBalancerCloud(new CountDownLatch(1), new CountDownLatch(0)) {
          @Override
          public Optional<LoadBalancer> loadBalancer() {
            // Asked while the controller is built, before the informers start.
            stopper.compareAndSet(null, Thread.ofPlatform().start(() -> manager.get().close()));
            return super.loadBalancer();
          }
        };
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    ch.qos.logback.classic.Logger root =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
    logged.start();
    root.addAppender(logged);
    try {
      manager.set(
          CloudControllerManager.builder(client)
              .settings(withShortLease(stopsWhileStarting, "service-lb-controller", lease))
              .exit(code -> {})
              .build());
      manager.get().start();
      await().atMost(30, TimeUnit.SECONDS).until(() -> stopper.get() != null);
      stopper.get().join(Duration.ofSeconds(30));
    } finally {
      root.detachAppender(logged);
      manager.get().close();
    }
    assertThat(logged.list)
        .as("a stop is no failure")
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN) || e.getThrowableProxy() != null)
        .extracting(ILoggingEvent::getFormattedMessage)
        .isEmpty();
  }

  /** One controller on {@code cloud}, leading {@code lease} for 4 s (renew deadline 3 s). */
  private static CloudControllerManager.Settings withShortLease(
      CloudProvider cloud, String controller, String lease) {
    return CloudControllerManager.settings()
        .cloud(cloud)
        .selection(ControllerSelection.parse(List.of(controller), Set.of()))
        .controllers(ControllerSettings.defaults())
        .leaderElection(
            LeaderElection.Settings.defaults("short_" + UUID.randomUUID())
                .withName(lease)
                .withTimings(Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofSeconds(1)))
        .buildSettings();
  }

  private static void takeOver(KubernetesClient client, String lease) {
    // The manager renews every second, so the intruder's write may conflict with a renewal.
    await()
        .atMost(30, TimeUnit.SECONDS)
        .ignoreExceptionsMatching(
            e -> e instanceof KubernetesClientException conflict && conflict.getCode() == 409)
        .until(
            () ->
                client
                        .leases()
                        .inNamespace("kube-system")
                        .withName(lease)
                        .edit(
                            (Lease current) -> {
                              current.getSpec().setHolderIdentity("intruder");
                              current.getSpec().setRenewTime(ZonedDateTime.now().plusMinutes(5));
                              current.getSpec().setLeaseDurationSeconds(600);
                              return current;
                            })
                    != null);
  }

  /** A cloud whose EnsureLoadBalancer hangs, deaf to interrupts, until the test ends. */
  private static class HangingLoadBalancerCloud implements CloudProvider, LoadBalancer {
    private final CountDownLatch ensuring;
    private final CountDownLatch unblock;

    HangingLoadBalancerCloud(CountDownLatch ensuring, CountDownLatch unblock) {
      this.ensuring = ensuring;
      this.unblock = unblock;
    }

    @Override
    public String providerName() {
      return "hanging";
    }

    @Override
    public Optional<LoadBalancer> loadBalancer() {
      return Optional.of(this);
    }

    @Override
    public Optional<LoadBalancerStatus> getLoadBalancer(String clusterName, Service service) {
      return Optional.empty();
    }

    @Override
    public LoadBalancerStatus ensureLoadBalancer(
        String clusterName, Service service, List<Node> nodes) {
      ensuring.countDown();
      boolean interrupted = false;
      while (true) {
        try {
          unblock.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      return new LoadBalancerStatus(List.of(LoadBalancerStatus.Ingress.ofIp("192.0.2.10")));
    }

    @Override
    public void updateLoadBalancer(String clusterName, Service service, List<Node> nodes) {}

    @Override
    public void ensureLoadBalancerDeleted(String clusterName, Service service) {}
  }

  /** {@code type: LoadBalancer}, TCP port 80 to 8080 of the pods labelled {@code app=<name>}. */
  private static Service loadBalancer(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addToSelector("app", name)
        .addNewPort()
        .withProtocol("TCP")
        .withPort(80)
        .withTargetPort(new IntOrString(8080))
        .endPort()
        .endSpec()
        .build();
  }

  private static List<Event> leaderElectionEvents(KubernetesClient client, String lease) {
    return client.v1().events().inNamespace("kube-system").list().getItems().stream()
        .filter(
            e ->
                "LeaderElection".equals(e.getReason())
                    && "Lease".equals(e.getInvolvedObject().getKind())
                    && lease.equals(e.getInvolvedObject().getName()))
        .toList();
  }
}
