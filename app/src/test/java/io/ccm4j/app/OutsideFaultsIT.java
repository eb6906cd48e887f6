package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.tls.SelfSignedCertificate;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults an operator meets from outside a running {@code ccm4j run}, injected into a control plane
 * of this class's own (the faults stop, freeze and re-key its API server, which the shared one's
 * other tests must not see): etcd compacted while the API server was down, the API server frozen,
 * its serving certificate replaced, the cloud failing every call for a while. Each test prints what
 * it measured.
 */
class OutsideFaultsIT {

  /** A short Lease, so a leader gives up within seconds. */
  private static final String[] FAST_LEASE = {
    "--leader-elect-lease-duration=6s",
    "--leader-elect-renew-deadline=4s",
    "--leader-elect-retry-period=1s"
  };

  private static LocalControlPlane controlPlane;
  private static KubernetesClient admin;

  @TempDir Path temp;

  @BeforeAll
  static void startControlPlane() {
    controlPlane = LocalControlPlane.builder().start();
    admin = controlPlane.newClient();
  }

  @AfterAll
  static void stopControlPlane() {
    if (admin != null) {
      admin.close();
    }
    if (controlPlane != null) {
      controlPlane.close();
    }
  }

  /**
   * The API server restarts, and while it is down etcd's history is compacted past every
   * resourceVersion the manager's informers hold: their watches, resumed from there, are answered
   * 410 Gone. The informers list again (as client-go's reflector does on "too old resource
   * version"), a Node created afterwards is initialised, and what was already done is not done
   * again: no load balancer call for the unchanged Service.
   */
  @Test
  void aWatchResumedPastEtcdsCompactionListsAgainAndRedoesNothing() throws Exception {
    String id = UUID.randomUUID().toString().substring(0, 6);
    String before = "compacted-before-" + id;
    String after = "compacted-after-" + id;
    String service = "compacted-" + id;
    int adminPort = freePort();
    Path config = simConfig(adminPort, 0, List.of(before, after));
    try (ManagerProcess manager = startSim(config, "compaction-" + id)) {
      await("it leads").atMost(60, TimeUnit.SECONDS).until(manager::isLeader);
      admin.resource(TestObjects.uninitialisedNode(before)).create();
      admin.resource(TestObjects.loadBalancerService(service)).create();
      await("the node is initialised")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> providerId(before) != null);
      await("the load balancer is there")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> ingress(service) != null);
      String callsBefore = settledCalls(adminPort);
      String resourceVersion = admin.nodes().list().getMetadata().getResourceVersion();

      Duration outage = controlPlane.crashAndRestart("kube-apiserver", controlPlane::compactEtcd);
      long restartedAt = System.nanoTime();
      admin.resource(TestObjects.uninitialisedNode(after)).create();
      await("the node created after the restart is initialised")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> providerId(after) != null);
      long initialisedAt = System.nanoTime();

      System.out.printf(
          "outside fault: API server down %.2f s with etcd compacted meanwhile: a node created"
              + " after it initialised %.2f s later; cloud calls before %s, after %s%n",
          outage.toMillis() / 1e3,
          (initialisedAt - restartedAt) / 1e9,
          callsBefore,
          calls(adminPort));
      assertThat(manager.process().isAlive()).as("log:%n%s", manager.log()).isTrue();
      assertThat(manager.isLeader()).isTrue();
      assertThat(watchFrom(resourceVersion))
          .as("a watch from before the restart is answered 410 Gone")
          .contains("too old resource version");
      assertThat(count(calls(adminPort), "InstanceMetadata"))
          .as("one instance lookup, for the node created after the restart")
          .isEqualTo(count(callsBefore, "InstanceMetadata") + 1);
      assertThat(count(calls(adminPort), "EnsureLoadBalancer"))
          .as("no load balancer call for the unchanged Service")
          .isEqualTo(count(callsBefore, "EnsureLoadBalancer"));
    } finally {
      admin.nodes().withName(before).delete();
      admin.nodes().withName(after).delete();
      admin.services().inNamespace("default").withName(service).delete();
    }
  }

  /**
   * The API server is stopped (SIGSTOP) for longer than the Lease lasts, then goes on: its
   * connections stay open and answer nothing. The leader gives up at its renew deadline and exits
   * 1, as upstream's cloud-controller-manager does ("leaderelection lost"), while the API server is
   * still stopped; once it goes on, the standby leads and the Lease names it.
   */
  @Test
  void aLeaderWhoseApiServerIsFrozenPastItsRenewDeadlineExits() throws Exception {
    String lease = "frozen-" + UUID.randomUUID().toString().substring(0, 6);
    try (ManagerProcess leader = ManagerProcess.start(controlPlane, lease, FAST_LEASE);
        ManagerProcess standby = startWhenLeading(leader, lease)) {
      await("the standby campaigns").atMost(30, TimeUnit.SECONDS).until(standby::isCampaigning);
      CompletableFuture<Long> exitedAt =
          leader.process().onExit().thenApply(process -> System.nanoTime());

      long frozenAt = System.nanoTime();
      controlPlane.freeze("kube-apiserver", Duration.ofSeconds(8));
      long thawedAt = System.nanoTime();
      assertThat(exitedAt.isDone())
          .as("the leader exits while the API server is stopped; log:%n%s", leader.log())
          .isTrue();
      await("the standby leads")
          .atMost(30, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(100))
          .until(standby::isLeader);
      long ledAt = System.nanoTime();

      System.out.printf(
          "outside fault: API server stopped 8 s (lease 6 s, renew deadline 4 s): the leader"
              + " exited %.2f s after the stop, the standby led %.2f s after the API server went"
              + " on%n",
          (exitedAt.get() - frozenAt) / 1e9, (ledAt - thawedAt) / 1e9);
      assertThat(leader.process().exitValue()).isEqualTo(1);
      assertThat(leader.log())
          .containsPattern("leaderelection lost: kube-system/" + lease + " not renewed for \\d+ ms")
          .as("the deadline as the flag spells it")
          .contains("(renew deadline 4s)");
      assertThat(Duration.ofNanos(exitedAt.get() - frozenAt))
          .as("gone by its renew deadline (4 s after its last renewal), before the Lease (6 s)")
          .isLessThan(Duration.ofSeconds(6));
      assertThat(holder(lease)).isEqualTo(identity(standby));
    }
  }

  /**
   * The API server's serving certificate is replaced by one of a CA the managers do not trust, and
   * the API server restarted on it: no request of theirs gets through. The leader gives up at its
   * renew deadline (exit 1), as upstream does; the standby goes on trying, with one line per
   * attempt naming the certificate problem (fabric8's own message named only the request), no stack
   * traces and no tight loop. The managers log as {@code ccm4j run} does ({@link
   * ManagerProcess#startAsShipped}).
   */
  @Test
  void aServingCertificateOfAnotherCaIsNamedOncePerAttemptWithoutStackTraces() throws Exception {
    String lease = "rekeyed-" + UUID.randomUUID().toString().substring(0, 6);
    Path config = Files.writeString(temp.resolve("sim.yaml"), "latencyMs: 0\n");
    String[] flags =
        shipped(
            FAST_LEASE,
            "--cloud-provider=sim",
            "--cloud-config=" + config,
            "--controllers=service");
    try (ManagerProcess leader = ManagerProcess.startAsShipped(controlPlane, lease, flags)) {
      await("it leads").atMost(60, TimeUnit.SECONDS).until(leader::isLeader);
      try (ManagerProcess standby = ManagerProcess.startAsShipped(controlPlane, lease, flags)) {
        await("the standby campaigns").atMost(30, TimeUnit.SECONDS).until(standby::isCampaigning);
        int standbyLinesBefore = lines(standby).size();
        try {
          controlPlane.replaceServingCertificate(
              SelfSignedCertificate.certificateAuthority("another-ca", Duration.ofDays(1)));
          assertThat(leader.process().waitFor(30, TimeUnit.SECONDS))
              .as("the leader gives up leading; log:%n%s", leader.log())
              .isTrue();
          Thread.sleep(5_000); // the standby's attempts meanwhile
        } finally {
          controlPlane.restoreServingCertificate();
        }
        List<String> standbyLines = lines(standby);
        List<String> meanwhile =
            standbyLines.subList(
                Math.min(standbyLinesBefore, standbyLines.size()), standbyLines.size());
        System.out.printf(
            "outside fault: serving certificate of another CA: the leader exited %d; the standby"
                + " logged %d lines meanwhile:%n%s%n",
            leader.process().exitValue(), meanwhile.size(), String.join("\n", meanwhile));
        assertThat(leader.process().exitValue()).isEqualTo(1);
        assertThat(leader.log()).contains("leaderelection lost");
        assertThat(meanwhile).anyMatch(line -> line.contains("PKIX path building failed"));
        assertThat(meanwhile)
            .as("no stack traces")
            .noneMatch(line -> line.startsWith("\tat ") || line.startsWith("Caused by"));
        assertThat(meanwhile.size()).as("no flood of lines").isLessThan(40);
        assertThat(standby.process().isAlive()).isTrue();
      }
    }
  }

  private static String[] shipped(String[] lease, String... more) {
    List<String> flags = new java.util.ArrayList<>(List.of(lease));
    flags.addAll(List.of(more));
    return flags.toArray(String[]::new);
  }

  private static List<String> lines(ManagerProcess manager) {
    return manager.log().lines().toList();
  }

  /**
   * The cloud fails every call for 10 s, then recovers: the node registered and the Service created
   * meanwhile are retried with backoff (no more calls than upstream's per-item exponential backoff
   * makes, 5 ms doubling for a node, 5 s doubling for a Service) and done once the cloud answers
   * again.
   */
  @Test
  void aCloudFailingEveryCallForAWhileIsRetriedWithBackoffAndNothingIsLost() throws Exception {
    String id = UUID.randomUUID().toString().substring(0, 6);
    String node = "cloud-down-" + id;
    String service = "cloud-down-" + id;
    int adminPort = freePort();
    Path config = simConfig(adminPort, 1.0, List.of(node));
    try (ManagerProcess manager = startSim(config, "cloud-down-" + id)) {
      await("it leads").atMost(60, TimeUnit.SECONDS).until(manager::isLeader);
      long failingSince = System.nanoTime();
      admin.resource(TestObjects.uninitialisedNode(node)).create();
      admin.resource(TestObjects.loadBalancerService(service)).create();
      Thread.sleep(10_000);
      String callsWhileFailing = calls(adminPort);
      adminCall(adminPort, "POST", "/error-rate?value=0");
      long recoveredAt = System.nanoTime();
      await("the node is initialised")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> providerId(node) != null);
      long nodeAt = System.nanoTime();
      await("the load balancer is there")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> ingress(service) != null);
      long serviceAt = System.nanoTime();

      System.out.printf(
          "outside fault: the cloud failed every call for %.1f s (%s): node initialised %.2f s,"
              + " load balancer %.2f s after it recovered%n",
          (recoveredAt - failingSince) / 1e9,
          callsWhileFailing,
          (nodeAt - recoveredAt) / 1e9,
          (serviceAt - recoveredAt) / 1e9);
      assertThat(manager.process().isAlive()).as("log:%n%s", manager.log()).isTrue();
      // 5 ms doubling: the 12th try 10.2 s after the first, the 13th 20.5 s after; 5 s doubling:
      // tries at 0, 5 and 15 s. Fewer if the controllers started a little after the objects came.
      assertThat(count(callsWhileFailing, "InstanceMetadata")).isBetween(5L, 12L);
      assertThat(count(callsWhileFailing, "EnsureLoadBalancer")).isBetween(1L, 2L);
    } finally {
      admin.nodes().withName(node).delete();
      admin.services().inNamespace("default").withName(service).delete();
    }
  }

  private static ManagerProcess startWhenLeading(ManagerProcess leader, String lease)
      throws Exception {
    await("the first instance leads").atMost(60, TimeUnit.SECONDS).until(leader::isLeader);
    return ManagerProcess.start(controlPlane, lease, FAST_LEASE);
  }

  /** The identity it campaigns as, from its log. */
  private static String identity(ManagerProcess manager) {
    Matcher matcher =
        Pattern.compile("attempting to acquire leader lease \\S+ as (\\S+)").matcher(manager.log());
    return matcher.find() ? matcher.group(1) : null;
  }

  private static String holder(String lease) {
    return admin
        .leases()
        .inNamespace("kube-system")
        .withName(lease)
        .get()
        .getSpec()
        .getHolderIdentity();
  }

  /** How the API server answers a Node watch from {@code resourceVersion}: its first event. */
  private static String watchFrom(String resourceVersion) throws Exception {
    CompletableFuture<String> answer = new CompletableFuture<>();
    try (Watch watch =
        admin
            .nodes()
            .withResourceVersion(resourceVersion)
            .watch(
                new Watcher<Node>() {
                  @Override
                  public void eventReceived(Action action, Node node) {
                    answer.complete(action + " " + node.getMetadata().getName());
                  }

                  @Override
                  public void onClose(WatcherException cause) {
                    answer.complete(cause.getMessage());
                  }
                })) {
      return answer.get(10, TimeUnit.SECONDS);
    } catch (KubernetesClientException e) {
      return e.getMessage();
    }
  }

  private ManagerProcess startSim(Path config, String lease, String... more) throws Exception {
    List<String> flags =
        new java.util.ArrayList<>(
            List.of(
                "--kubeconfig=" + controlPlane.kubeconfigPath(),
                "--cloud-provider=sim",
                "--cloud-config=" + config,
                "--controllers=cloud-node,service"));
    flags.addAll(List.of(more));
    return ManagerProcess.start(controlPlane, lease, flags.toArray(String[]::new));
  }

  private Path simConfig(int adminPort, double errorRate, List<String> instances) throws Exception {
    StringBuilder yaml =
        new StringBuilder(
            "admin: 127.0.0.1:%d%nerrorRate: %s%ninstances:%n".formatted(adminPort, errorRate));
    for (String instance : instances) {
      yaml.append(
          "  - {name: %s, region: r1, zone: r1-a, instanceType: sim.small, addresses: [10.0.0.%d]}%n"
              .formatted(instance, 10 + instances.indexOf(instance)));
    }
    Path config = Files.createTempFile(temp, "sim", ".yaml");
    Files.writeString(config, yaml);
    return config;
  }

  /** The cloud's call counts once they stay the same for a second. */
  private static String settledCalls(int adminPort) {
    AtomicReference<String> last = new AtomicReference<>("");
    await("the cloud calls settle")
        .atMost(30, TimeUnit.SECONDS)
        .pollInterval(Duration.ofSeconds(1))
        .until(
            () -> {
              String now = calls(adminPort);
              return now.equals(last.getAndSet(now));
            });
    return last.get();
  }

  private static String calls(int adminPort) throws Exception {
    return adminCall(adminPort, "GET", "/calls");
  }

  private static String adminCall(int adminPort, String method, String path) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .timeout(Duration.ofSeconds(5))
            .build();
    try (HttpClient http = HttpClient.newHttpClient()) {
      return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }
  }

  /** A method's count in the sim cloud's {@code GET /calls} answer. */
  private static long count(String calls, String method) {
    Matcher matcher = Pattern.compile("\"" + method + "\"\\s*:\\s*(\\d+)").matcher(calls);
    return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
  }

  private static int freePort() throws Exception {
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return probe.getLocalPort();
    }
  }

  private static String providerId(String name) {
    Node node = admin.nodes().withName(name).get();
    return node == null || node.getSpec() == null ? null : node.getSpec().getProviderID();
  }

  private static String ingress(String name) {
    Service service = admin.services().inNamespace("default").withName(name).get();
    if (service == null
        || service.getStatus() == null
        || service.getStatus().getLoadBalancer() == null
        || service.getStatus().getLoadBalancer().getIngress() == null
        || service.getStatus().getLoadBalancer().getIngress().isEmpty()) {
      return null;
    }
    return service.getStatus().getLoadBalancer().getIngress().get(0).getIp();
  }
}
