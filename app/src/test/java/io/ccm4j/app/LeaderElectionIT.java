package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two {@code ccm4j run} processes against one API server (A5, and the lease release of issue
 * #119905).
 */
@WithControlPlane
class LeaderElectionIT {

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

      // Another holder takes the Lease: the manager can no longer renew it. The manager renews
      // every second, so the intruder's write may conflict with a renewal: it tries again.
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

      assertThat(manager.process().waitFor(30, TimeUnit.SECONDS))
          .as("exits after losing the lease; log:%n%s", manager.log())
          .isTrue();
      assertThat(manager.process().exitValue()).isEqualTo(1);
      assertThat(manager.log()).contains("leaderelection lost");
    }
  }
}
