package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults injected from outside into two {@code ccm4j run} processes that share a Lease, as a
 * cluster runs them: a provider that misbehaves, a network partition. Each test prints what it
 * measured. The faults under load are {@code FaultsBenchmarkIT}'s.
 */
@WithControlPlane
class FaultInjectionIT {

  /** The failover target: a standby leads within this after the leader goes. */
  private static final Duration FAILOVER_TARGET = Duration.ofSeconds(17);

  @TempDir Path temp;

  /**
   * A provider throws {@code OutOfMemoryError} once from a worker: the worker is gone, so the
   * leader would hold the Lease while its cloud-node controller does nothing. The process exits
   * non-zero instead, and the standby leads and initialises the node.
   */
  @Test
  void anErrorOfTheJvmInAWorkerEndsTheLeaderAndTheStandbyTakesOver(
      LocalControlPlane controlPlane, KubernetesClient client) throws Exception {
    Path config = cloudConfig("outOfMemoryOnce");
    String lease = "faults-oom-" + UUID.randomUUID().toString().substring(0, 8);
    String node = "faults-oom-" + UUID.randomUUID().toString().substring(0, 8);
    try (ManagerProcess first = start(controlPlane, lease, config);
        ManagerProcess second = start(controlPlane, lease, config)) {
      ManagerProcess leader = leaderOf(first, second);
      ManagerProcess standby = leader == first ? second : first;

      client.resource(TestObjects.uninitialisedNode(node)).create();
      assertThat(leader.process().waitFor(60, TimeUnit.SECONDS))
          .as("the leader exits; log:%n%s", leader.log())
          .isTrue();
      long exitedAt = System.nanoTime();
      assertThat(leader.process().exitValue()).isEqualTo(1);
      assertThat(leader.log())
          .contains("faulty: OutOfMemoryError from instanceMetadata(" + node + ")")
          .contains("fatal error in thread cloud-node-controller-worker-");

      await("the standby leads")
          .atMost(FAILOVER_TARGET.plusSeconds(5))
          .pollInterval(Duration.ofMillis(100))
          .until(standby::isLeader);
      Duration failover = Duration.ofNanos(System.nanoTime() - exitedAt);
      await("the standby initialises the node")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> providerId(client, node), ("faulty://" + node)::equals);
      System.out.printf(
          "fault: OutOfMemoryError in a worker: leader exited with 1, standby led %.2f s later%n",
          failover.toMillis() / 1000.0);
      assertThat(failover).isLessThan(FAILOVER_TARGET);
    } finally {
      client.nodes().withName(node).delete();
    }
  }

  /**
   * The provider's {@code initialize} throws what no one expects on the instance that wins the
   * Lease: a leader that runs nothing must not hold the Lease; it exits non-zero and the standby
   * leads within the failover target.
   */
  @Test
  void aProviderWhoseInitialiseThrowsEndsTheLeaderAndTheStandbyTakesOver(
      LocalControlPlane controlPlane) throws Exception {
    Path config = Files.createTempFile(temp, "faulty", ".properties");
    Files.writeString(
        config,
        "initialize=throwOnce%nonceMarker=%s%n"
            .formatted(temp.resolve("init-" + UUID.randomUUID())));
    String lease = "faults-init-" + UUID.randomUUID().toString().substring(0, 8);
    try (ManagerProcess first = start(controlPlane, lease, config);
        ManagerProcess second = start(controlPlane, lease, config)) {
      await("one instance exits")
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> !first.process().isAlive() || !second.process().isAlive());
      long exitedAt = System.nanoTime();
      ManagerProcess failed = first.process().isAlive() ? second : first;
      ManagerProcess standby = failed == first ? second : first;
      assertThat(failed.process().exitValue()).isEqualTo(1);
      assertThat(failed.log())
          .contains("faulty: initialize throws")
          .contains("starting the controllers failed, exiting");

      await("the standby leads")
          .atMost(FAILOVER_TARGET.plusSeconds(5))
          .pollInterval(Duration.ofMillis(100))
          .until(standby::isLeader);
      Duration failover = Duration.ofNanos(System.nanoTime() - exitedAt);
      System.out.printf(
          "fault: initialize threw: leader exited with 1, standby led %.2f s later%n",
          failover.toMillis() / 1000.0);
      assertThat(failover).isLessThan(FAILOVER_TARGET);
      assertThat(standby.process().isAlive()).isTrue();
    }
  }

  /**
   * The leader's worker is stuck in a cloud read that never returns (and ignores interrupts) when
   * SIGTERM comes: the leader gives its workers 1 s, and since a read changes nothing in the cloud
   * it does not wait for it (only writes hold the Lease), releases its Lease instead of sitting on
   * it until it is killed, and the standby leads within 3 s.
   */
  @Test
  void aCloudCallThatNeverReturnsDoesNotHoldTheLeaseAfterSigterm(
      LocalControlPlane controlPlane, KubernetesClient client) throws Exception {
    Path config = cloudConfig("hang");
    String lease = "faults-hang-" + UUID.randomUUID().toString().substring(0, 8);
    String node = "faults-hang-" + UUID.randomUUID().toString().substring(0, 8);
    try (ManagerProcess first = start(controlPlane, lease, config);
        ManagerProcess second = start(controlPlane, lease, config)) {
      ManagerProcess leader = leaderOf(first, second);
      ManagerProcess standby = leader == first ? second : first;
      client.resource(TestObjects.uninitialisedNode(node)).create();
      await("the leader's worker is stuck in the cloud")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> leader.log().contains("faulty: instanceMetadata(" + node + ") hangs"));

      long terminatedAt = System.nanoTime();
      leader.terminate();
      await("the standby leads")
          .atMost(30, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(50))
          .until(standby::isLeader);
      Duration failover = Duration.ofNanos(System.nanoTime() - terminatedAt);
      assertThat(leader.process().waitFor(10, TimeUnit.SECONDS))
          .as("the old leader exits; log:%n%s", leader.log())
          .isTrue();
      System.out.printf(
          "fault: SIGTERM with a cloud call that never returns: standby led %.2f s later%n",
          failover.toMillis() / 1000.0);
      assertThat(failover).isLessThan(Duration.ofSeconds(3));
    } finally {
      client.nodes().withName(node).delete();
    }
  }

  /**
   * The leader is cut off from the API server by a network partition (a proxy the test controls):
   * it stops acting, and exits, at its renew deadline, before its Lease expires and the standby may
   * lead; once the partition heals nothing of the old leader reaches the API server.
   */
  @Test
  void aLeaderCutOffFromTheApiServerStopsBeforeItsLeaseExpires(
      LocalControlPlane controlPlane, KubernetesClient client) throws Exception {
    String lease = "faults-cut-" + UUID.randomUUID().toString().substring(0, 8);
    String[] timing = {
      "--leader-elect-lease-duration=6s",
      "--leader-elect-renew-deadline=4s",
      "--leader-elect-retry-period=1s"
    };
    java.net.URI server = java.net.URI.create(controlPlane.serverUrl());
    try (PartitionProxy proxy =
        new PartitionProxy(new InetSocketAddress(server.getHost(), server.getPort()))) {
      Path kubeconfig = temp.resolve("through-the-proxy.kubeconfig");
      Files.writeString(
          kubeconfig,
          Files.readString(controlPlane.kubeconfigPath())
              .replace(controlPlane.serverUrl(), "https://127.0.0.1:" + proxy.port()));
      List<String> leaderFlags = new ArrayList<>(List.of(timing));
      leaderFlags.add("--kubeconfig=" + kubeconfig);
      try (ManagerProcess leader =
              ManagerProcess.start(controlPlane, lease, leaderFlags.toArray(String[]::new));
          ManagerProcess standby = startWhenLeading(leader, controlPlane, lease, timing)) {
        await("the standby campaigns").atMost(30, TimeUnit.SECONDS).until(standby::isCampaigning);
        assertThat(standby.isLeader()).isFalse();

        long cutAt = System.nanoTime();
        proxy.cut();
        assertThat(leader.process().waitFor(30, TimeUnit.SECONDS))
            .as("the cut-off leader exits; log:%n%s", leader.log())
            .isTrue();
        long exitedAt = System.nanoTime();
        await("the standby leads")
            .atMost(30, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(50))
            .until(standby::isLeader);
        long ledAt = System.nanoTime();
        proxy.heal();
        Thread.sleep(2000);

        System.out.printf(
            "fault: leader cut off from the API server (lease 6 s, renew deadline 4 s): it"
                + " exited %.2f s after the cut, the standby led %.2f s after the cut; %d"
                + " connections from the old leader after the partition healed%n",
            (exitedAt - cutAt) / 1e9, (ledAt - cutAt) / 1e9, proxy.acceptedSinceHeal());
        assertThat(leader.process().exitValue()).isEqualTo(1);
        assertThat(leader.log()).contains("leaderelection lost");
        assertThat(Duration.ofNanos(exitedAt - cutAt))
            .as("gone by its renew deadline (4 s after its last renewal), before the Lease (6 s)")
            .isLessThan(Duration.ofSeconds(6));
        assertThat(exitedAt).as("gone before the standby leads").isLessThan(ledAt);
        assertThat(proxy.acceptedSinceHeal()).as("nothing of the old leader arrives late").isZero();
      }
    }
  }

  /**
   * SIGTERM reaches the leader in the middle of a slow load balancer ensure (three cloud calls of
   * 700 ms), and the Service changes at once, so the next leader must ensure the same load balancer
   * again: the old leader starts no further cloud call, finishes the write in flight before it
   * releases the Lease, and the two processes' writes to that load balancer never overlap in the
   * sim cloud's call journal (which both append to).
   */
  @Test
  void aSigtermDuringASlowEnsureLeavesOneWriterPerLoadBalancer(
      LocalControlPlane controlPlane, KubernetesClient client) throws Exception {
    Path journal = temp.resolve("sigterm-calls.tsv");
    Path config = simConfig(journal, 700);
    String lease = "faults-one-writer-" + UUID.randomUUID().toString().substring(0, 8);
    String name = "one-writer-" + UUID.randomUUID().toString().substring(0, 8);
    try (ManagerProcess first = startSim(controlPlane, lease, config);
        ManagerProcess second = startSim(controlPlane, lease, config)) {
      ManagerProcess leader = leaderOf(first, second);
      ManagerProcess standby = leader == first ? second : first;
      Service service = client.resource(TestObjects.loadBalancerService(name)).create();
      String balancer = LoadBalancer.defaultName(service);
      await("the leader is in the middle of its ensure")
          .atMost(30, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(20))
          .until(() -> CallJournal.read(journal).begunBy(leader.process().pid(), balancer));

      long terminatedAt = System.nanoTime();
      leader.terminate();
      changePort(client, name);
      await("the standby leads")
          .atMost(30, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(50))
          .until(standby::isLeader);
      Duration failover = Duration.ofNanos(System.nanoTime() - terminatedAt);
      assertThat(leader.process().waitFor(30, TimeUnit.SECONDS))
          .as("the old leader exits; log:%n%s", leader.log())
          .isTrue();
      await("the new leader ensures the changed Service")
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> CallJournal.read(journal).endedBy(standby.process().pid(), balancer));

      CallJournal calls = CallJournal.read(journal);
      long overlap = calls.overlapMillis(balancer);
      System.out.printf(
          "fault: SIGTERM during a 2.1 s ensure: standby led %.2f s later; writes to the load"
              + " balancer: %d by the old leader, %d by the new; overlap %d ms; from the old"
              + " leader's last write to the new leader's first: %s%n",
          failover.toMillis() / 1000.0,
          calls.writesBy(leader.process().pid(), balancer).size(),
          calls.writesBy(standby.process().pid(), balancer).size(),
          overlap,
          calls.gapMillis(leader.process().pid(), standby.process().pid(), balancer));
      assertThat(calls.unended(leader.process().pid()))
          .as("no write of the old leader was cut off by its exit")
          .isEmpty();
      assertThat(overlap).isZero();
      assertThat(leader.log()).contains("waiting for cloud writes in flight: EnsureLoadBalancer");
    } finally {
      LeftServices.remove(client, "default", name);
    }
  }

  /**
   * The leader is cut off from the API server (a network partition) while its cloud write of 7 s
   * goes on: it starts no cloud call after its renew deadline, waits for the write until shortly
   * before its Lease may pass (lease 10 s, renew deadline 4 s), and exits; the standby takes over
   * only then, and the two never write the same load balancer at once.
   */
  @Test
  void aLeaderCutOffDuringACloudWriteFinishesItBeforeTheStandbyWrites(
      LocalControlPlane controlPlane, KubernetesClient client) throws Exception {
    String lease = "faults-cut-write-" + UUID.randomUUID().toString().substring(0, 8);
    String name = "cut-write-" + UUID.randomUUID().toString().substring(0, 8);
    Path journal = temp.resolve("cut-calls.tsv");
    // 7 s: the Lease is lost 3 to 4 s after the cut (its last renewal up to a retry period
    // before it), the workers get 2 s to stop, and only then are the writes in flight waited for,
    // until 8 to 9 s after the cut; a write of 7 s is still in flight then, and done before.
    Path config = simConfig(journal, 2334);
    String[] flags = {
      "--leader-elect-lease-duration=10s",
      "--leader-elect-renew-deadline=4s",
      "--leader-elect-retry-period=1s",
      "--cloud-provider=sim",
      "--cloud-config=" + config,
      "--controllers=service"
    };
    java.net.URI server = java.net.URI.create(controlPlane.serverUrl());
    try (PartitionProxy proxy =
        new PartitionProxy(new InetSocketAddress(server.getHost(), server.getPort()))) {
      Path kubeconfig = temp.resolve("cut-write.kubeconfig");
      Files.writeString(
          kubeconfig,
          Files.readString(controlPlane.kubeconfigPath())
              .replace(controlPlane.serverUrl(), "https://127.0.0.1:" + proxy.port()));
      List<String> leaderFlags = new ArrayList<>(List.of(flags));
      leaderFlags.add("--kubeconfig=" + kubeconfig);
      try (ManagerProcess leader =
              ManagerProcess.start(controlPlane, lease, leaderFlags.toArray(String[]::new));
          ManagerProcess standby = startWhenLeading(leader, controlPlane, lease, flags)) {
        await("the standby campaigns").atMost(30, TimeUnit.SECONDS).until(standby::isCampaigning);
        Service service = client.resource(TestObjects.loadBalancerService(name)).create();
        String balancer = LoadBalancer.defaultName(service);
        await("the leader is in its ensure")
            .atMost(30, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(20))
            .until(() -> CallJournal.read(journal).begunBy(leader.process().pid(), balancer));

        long cutAt = System.nanoTime();
        proxy.cut();
        changePort(client, name);
        assertThat(leader.process().waitFor(30, TimeUnit.SECONDS))
            .as("the cut-off leader exits; log:%n%s", leader.log())
            .isTrue();
        long exitedAt = System.nanoTime();
        await("the standby leads")
            .atMost(30, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(50))
            .until(standby::isLeader);
        long ledAt = System.nanoTime();
        await("the new leader ensures the load balancer")
            .atMost(60, TimeUnit.SECONDS)
            .until(() -> CallJournal.read(journal).endedBy(standby.process().pid(), balancer));

        CallJournal calls = CallJournal.read(journal);
        long overlap = calls.overlapMillis(balancer);
        System.out.printf(
            "fault: leader cut off during a 7 s cloud write (lease 10 s, renew deadline 4 s):"
                + " it exited %.2f s after the cut, the standby led %.2f s after the cut;"
                + " overlap %d ms; from the old leader's last write to the new leader's first:"
                + " %s%n",
            (exitedAt - cutAt) / 1e9,
            (ledAt - cutAt) / 1e9,
            overlap,
            calls.gapMillis(leader.process().pid(), standby.process().pid(), balancer));
        assertThat(calls.unended(leader.process().pid()))
            .as("no write of the old leader was cut off by its exit")
            .isEmpty();
        assertThat(overlap).isZero();
        assertThat(exitedAt).as("gone before the standby leads").isLessThan(ledAt);
        assertThat(leader.process().exitValue()).isEqualTo(1);
        assertThat(leader.log())
            .contains("leaderelection lost")
            .contains("waiting for cloud writes in flight: EnsureLoadBalancer");
      } finally {
        LeftServices.remove(client, "default", name);
      }
    }
  }

  /** A change the next leader must ensure again: the port. */
  private static void changePort(KubernetesClient client, String name) {
    client
        .services()
        .inNamespace("default")
        .withName(name)
        .edit(
            service -> {
              service.getSpec().getPorts().get(0).setPort(8080);
              return service;
            });
  }

  /** A sim cloud whose load balancer ensure makes three calls of {@code latencyMs} each. */
  private Path simConfig(Path journal, long latencyMs) throws Exception {
    Path config = Files.createTempFile(temp, "sim", ".yaml");
    Files.writeString(
        config,
        "latencyMs: %d%njournal: %s%nloadBalancers: {ensureCalls: 3}%n"
            .formatted(latencyMs, journal));
    return config;
  }

  private static ManagerProcess startSim(LocalControlPlane controlPlane, String lease, Path config)
      throws Exception {
    return ManagerProcess.start(
        controlPlane,
        lease,
        "--cloud-provider=sim",
        "--cloud-config=" + config,
        "--controllers=service");
  }

  /** The sim cloud's call journal (SimCallJournal): one interval per write, by caller. */
  private record CallJournal(List<Write> writes) {

    /** A write from begin to end (end {@code Long.MAX_VALUE} when its process never ended it). */
    record Write(String caller, long id, String method, String balancer, long begin, long end) {}

    static CallJournal read(Path file) throws Exception {
      if (!Files.exists(file)) {
        return new CallJournal(List.of());
      }
      java.util.Map<String, Write> byCall = new java.util.LinkedHashMap<>();
      for (String line : Files.readAllLines(file)) {
        String[] f = line.split("\t");
        if (f.length < 6) {
          continue; // a line being written
        }
        String key = f[1] + "/" + f[2];
        long micros = Long.parseLong(f[3]);
        if (f[0].equals("begin")) {
          byCall.put(
              key, new Write(f[1], Long.parseLong(f[2]), f[4], f[5], micros, Long.MAX_VALUE));
        } else {
          byCall.computeIfPresent(
              key,
              (k, w) -> new Write(w.caller(), w.id(), w.method(), w.balancer(), w.begin(), micros));
        }
      }
      return new CallJournal(List.copyOf(byCall.values()));
    }

    List<Write> writesBy(long pid, String balancer) {
      return writes.stream()
          .filter(w -> w.caller().startsWith(pid + "@") && w.balancer().equals(balancer))
          .toList();
    }

    boolean begunBy(long pid, String balancer) {
      return !writesBy(pid, balancer).isEmpty();
    }

    boolean endedBy(long pid, String balancer) {
      return writesBy(pid, balancer).stream().anyMatch(w -> w.end() != Long.MAX_VALUE);
    }

    List<Write> unended(long pid) {
      return writes.stream()
          .filter(w -> w.caller().startsWith(pid + "@") && w.end() == Long.MAX_VALUE)
          .toList();
    }

    /** How long writes of different callers to the balancer ran at the same time, in total. */
    long overlapMillis(String balancer) {
      long micros = 0;
      List<Write> on = writes.stream().filter(w -> w.balancer().equals(balancer)).toList();
      for (int i = 0; i < on.size(); i++) {
        for (int j = i + 1; j < on.size(); j++) {
          Write a = on.get(i);
          Write b = on.get(j);
          if (!a.caller().equals(b.caller())) {
            micros += Math.max(0, Math.min(a.end(), b.end()) - Math.max(a.begin(), b.begin()));
          }
        }
      }
      return micros == 0 ? 0 : Math.max(1, micros / 1000);
    }

    /** From the old caller's last write's end to the new caller's first write's begin. */
    String gapMillis(long oldPid, long newPid, String balancer) {
      long lastEnd =
          writesBy(oldPid, balancer).stream().mapToLong(Write::end).max().orElse(Long.MIN_VALUE);
      long firstBegin =
          writesBy(newPid, balancer).stream().mapToLong(Write::begin).min().orElse(Long.MAX_VALUE);
      if (lastEnd == Long.MAX_VALUE) {
        return "none, the old leader's write was cut off by its exit";
      }
      return (firstBegin - lastEnd) / 1000 + " ms";
    }
  }

  private static ManagerProcess startWhenLeading(
      ManagerProcess leader, LocalControlPlane controlPlane, String lease, String... flags)
      throws Exception {
    await("the proxied instance leads").atMost(60, TimeUnit.SECONDS).until(leader::isLeader);
    return ManagerProcess.start(controlPlane, lease, flags);
  }

  private Path cloudConfig(String instanceMetadata) throws Exception {
    Path config = Files.createTempFile(temp, "faulty", ".properties");
    Files.writeString(
        config,
        "instanceMetadata=%s%nonceMarker=%s%n"
            .formatted(instanceMetadata, temp.resolve("once-" + UUID.randomUUID())));
    return config;
  }

  private static ManagerProcess start(LocalControlPlane controlPlane, String lease, Path config)
      throws Exception {
    return ManagerProcess.start(
        controlPlane,
        lease,
        "--cloud-provider=faulty",
        "--cloud-config=" + config,
        "--controllers=cloud-node");
  }

  private static ManagerProcess leaderOf(ManagerProcess first, ManagerProcess second) {
    await("one of two instances leads")
        .atMost(60, TimeUnit.SECONDS)
        .until(() -> first.isLeader() || second.isLeader());
    return first.isLeader() ? first : second;
  }

  private static String providerId(KubernetesClient client, String name) {
    Node node = client.nodes().withName(name).get();
    return node == null || node.getSpec() == null ? null : node.getSpec().getProviderID();
  }
}
