package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The request throttle against fabric8's one scheduler thread, which fires every request timeout
 * and Lease renew tick of the process and also sends fabric8's retries: a client whose throttle is
 * saturated by failing requests must not delay the Lease renewals of another.
 */
@WithControlPlane
class RequestRateLimiterIT {

  private static final Duration RETRY_PERIOD = Duration.ofMillis(500);

  @Test
  void aSaturatedThrottleRetryingOnTheSharedSchedulerDoesNotDelayLeaseRenewals(
      KubernetesClient client) throws Exception {
    List<Long> renewals = new CopyOnWriteArrayList<>();
    AtomicInteger lost = new AtomicInteger();
    LeaderElection election =
        new LeaderElection(
            client,
            new LeaderElection.Settings(
                "kube-system",
                "ccm-throttle-" + UUID.randomUUID().toString().substring(0, 8),
                "renewing_" + UUID.randomUUID(),
                Duration.ofSeconds(4),
                Duration.ofSeconds(3),
                RETRY_PERIOD,
                Duration.ofSeconds(1)),
            new LeaderElection.Listener() {
              @Override
              public void startedLeading() {}

              @Override
              public void lostLeadership() {
                lost.incrementAndGet();
              }
            },
            System::nanoTime,
            lock -> new RecordingLock(lock, renewals));
    int closedPort;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = probe.getLocalPort();
    }
    // One request a second, against a port where nothing listens: every attempt fails to connect
    // and fabric8 sends the retries from its shared scheduler thread, each taking a token.
    KubernetesClient throttled =
        KubeClients.create(
            new ConfigBuilder()
                .withMasterUrl("https://127.0.0.1:" + closedPort)
                .withTrustCerts(true)
                .withRequestRetryBackoffLimit(8)
                .withRequestRetryBackoffInterval(20)
                .build(),
            1,
            1);
    List<Thread> flood = new ArrayList<>();
    AtomicInteger failed = new AtomicInteger();
    try {
      election.start();
      await().atMost(30, TimeUnit.SECONDS).until(election::isLeader);
      for (int i = 0; i < 20; i++) {
        flood.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        throttled.namespaces().list();
                      } catch (KubernetesClientException e) {
                        failed.incrementAndGet();
                      }
                    }));
      }
      int before = renewals.size();

      await("the Lease stays held for 6 s while the throttle is saturated")
          .during(Duration.ofSeconds(6))
          .atMost(Duration.ofSeconds(8))
          .until(() -> election.isLeader() && lost.get() == 0);

      List<Long> during = List.copyOf(renewals.subList(before, renewals.size()));
      long worstGapMs = 0;
      for (int i = 1; i < during.size(); i++) {
        worstGapMs = Math.max(worstGapMs, (during.get(i) - during.get(i - 1)) / 1_000_000);
      }
      System.out.printf(
          "throttle saturated (1 request/s, 20 requests retrying): %d Lease renewals in 6 s,"
              + " longest interval %d ms (retry period %d ms); %d requests failed so far%n",
          during.size(), worstGapMs, RETRY_PERIOD.toMillis(), failed.get());
      assertThat(during.size()).as("renewals every retry period").isGreaterThanOrEqualTo(8);
      assertThat(worstGapMs).as("renew interval").isLessThan(RETRY_PERIOD.toMillis() + 700);
      assertThat(failed.get()).as("the requests were still retrying").isLessThan(20);
    } finally {
      throttled.close();
      flood.forEach(Thread::interrupt);
      election.close();
    }
  }

  /** Notes the time of every successful Lease write. */
  private record RecordingLock(Lock delegate, List<Long> writes) implements Lock {
    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
      return delegate.get(client);
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
      delegate.create(client, record);
      writes.add(System.nanoTime());
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
      delegate.update(client, record);
      writes.add(System.nanoTime());
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
