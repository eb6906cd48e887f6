package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Faults injected from outside into a {@code ccm4j run} process's shared informers, through an
 * {@link ApiProxy} in front of the API server: a watch frame that does not parse, a credential that
 * fails for a while, RBAC revoked for a while. The informer must come back each time (it retries
 * with backoff, as upstream's reflector does), and while it goes without a watch for longer than
 * {@code --informer-stall-timeout} (3 s here) the health check of the controller that uses it says
 * so. Each test prints what it measured.
 *
 * <p>The credential test spends a minute waiting for fabric8's refresh, whose interval no setting
 * changes; the other two run meanwhile, one after the other ({@link #SHIPPED_BINDING}), and the
 * class runs beside the module's other classes (JUnit's parallel execution, see this module's pom).
 * It has a control plane of its own, as the RBAC test revokes the shipped binding for a while. The
 * managers never meet: each has an account, Node names and a cloud of its own (the cloud answers
 * for its test's Nodes only, so no manager initialises another test's Node).
 */
@WithControlPlane(shared = false)
@Execution(ExecutionMode.CONCURRENT)
class InformerFaultsIT {

  /**
   * The shipped ClusterRoleBinding of the manager's ServiceAccount, which the RBAC test revokes for
   * a while and the watch frame test's manager needs throughout.
   */
  private static final String SHIPPED_BINDING = "io.ccm4j.app.InformerFaultsIT.shipped-binding";

  private static final Path RBAC = Path.of("..", "deploy", "rbac.yaml");

  /** A Role and binding for the Leases of this test's managers (the shipped Role names one). */
  private static final String TEST_LEASES = "cloud-controller-manager:informer-faults-leases";

  private static final String SERVICE_ACCOUNT = "cloud-controller-manager";
  private static final String CHECK = "cloud-node-controller";
  private static final Duration BOUND = Duration.ofSeconds(3);

  @TempDir Path temp;

  /**
   * Once for the class: the RBAC test, which revokes the binding, puts it back itself, and a test
   * applying it while that one runs would end its revocation early.
   */
  @BeforeAll
  static void shippedRbac(KubernetesClient admin) throws Exception {
    applyRbac(admin);
  }

  /**
   * A Node watch frame that does not parse reaches the manager (a protobuf length beyond any
   * frame's, as the manager watches Nodes in protobuf by default): fabric8 would stop the informer
   * for good on it. The informer lists and watches again instead, and a node created afterwards is
   * initialised.
   */
  @Test
  @ResourceLock(SHIPPED_BINDING)
  void aWatchFrameThatDoesNotParseIsFollowedByAFreshListAndWatch(
      LocalControlPlane controlPlane, KubernetesClient admin) throws Exception {
    String node = "informer-frame-" + UUID.randomUUID().toString().substring(0, 6);
    try (ApiProxy proxy = new ApiProxy(controlPlane.adminConfig());
        ManagerProcess manager =
            start(
                controlPlane,
                serviceAccountKubeconfig(controlPlane, admin, proxy),
                true,
                "informer-frame-")) {
      awaitLeadingAndHealthy(manager);
      await("the Node informer watches")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> proxy.liveNodeWatches() > 0);
      int watchesBefore = proxy.nodeWatchesOpened();

      long corruptedAt = System.nanoTime();
      assertThat(proxy.corruptNodeWatches()).as("a live Node watch").isPositive();
      await("the Node informer watches again")
          .atMost(30, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(50))
          .until(() -> proxy.nodeWatchesOpened() > watchesBefore);
      long watchingAt = System.nanoTime();
      admin.resource(TestObjects.uninitialisedNode(node)).create();
      await("the node created afterwards is initialised")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> providerId(admin, node), ("faulty://" + node)::equals);
      long initialisedAt = System.nanoTime();

      System.out.printf(
          "informer fault: a Node watch frame that does not parse: watching again %.2f s later,"
              + " a node created then initialised %.2f s after the fault%n",
          (watchingAt - corruptedAt) / 1e9, (initialisedAt - corruptedAt) / 1e9);
      assertThat(manager.process().isAlive()).as("log:%n%s", manager.log()).isTrue();
      assertThat(manager.log())
          .contains("watch failed for v1/nodes, will retry")
          .contains("Could not read the protobuf watch stream") // the default wire
          .doesNotContain("stopped, exiting");
      assertThat(manager.health(CHECK).orElseThrow().statusCode()).isEqualTo(200);
    } finally {
      admin.nodes().withName(node).delete();
    }
  }

  /**
   * The token the manager's exec credential plugin gave is revoked, the plugin fails (while a
   * marker file exists) and the kubeconfig naming it is half rewritten: the Node informer cannot
   * watch, the health check turns red within the bound, and once the credential works again the
   * informer watches, the check is green and the node created meanwhile is initialised. The fault
   * starts over a minute after the manager did, when fabric8 refreshes the credential before each
   * request, and throws there on the half-written kubeconfig: without {@code CredentialRefresh} the
   * informer's relist lost that exception and never watched again. Runs beside the other tests.
   */
  @Test
  void aCredentialThatFailsForAWhileTurnsTheHealthRedThenGreen(
      LocalControlPlane controlPlane, KubernetesClient admin) throws Exception {
    String account = "informer-exec";
    String node = "informer-exec-" + UUID.randomUUID().toString().substring(0, 6);
    ServiceAccounts.create(admin, "kube-system", account);
    bind(admin, account);
    Path tokenFile = temp.resolve("token");
    Path marker = temp.resolve("credential-backend-down");
    Files.writeString(tokenFile, ServiceAccounts.token(admin, "kube-system", account));
    Path plugin = temp.resolve("credential-plugin.sh");
    Files.writeString(
        plugin,
        """
        if [ -e '%s' ]; then echo 'credential backend down'; exit 1; fi
        printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",\
        "status":{"token":"%%s"}}' "$(cat '%s')"
        """
            .formatted(marker, tokenFile));
    try (ApiProxy proxy = new ApiProxy(controlPlane.adminConfig())) {
      Path kubeconfig = temp.resolve("exec.kubeconfig");
      String kubeconfigText =
          """
          apiVersion: v1
          kind: Config
          clusters:
          - name: local
            cluster:
              server: %s
          users:
          - name: exec
            user:
              exec:
                apiVersion: client.authentication.k8s.io/v1
                command: /bin/sh
                args: ['%s']
                interactiveMode: Never
          contexts:
          - name: local
            context:
              cluster: local
              user: exec
          current-context: local
          """
              .formatted(proxy.url(), plugin);
      Files.writeString(kubeconfig, kubeconfigText);
      // The Lease is renewed with the same credential: with leader election the manager would
      // exit at its renew deadline, as upstream's does.
      try (ManagerProcess manager = start(controlPlane, kubeconfig, false, "informer-exec-")) {
        long startedAt = System.nanoTime();
        awaitHealthy(manager);
        await("fabric8 runs the plugin again before a request")
            .atMost(90, TimeUnit.SECONDS)
            .pollInterval(Duration.ofMillis(500))
            .until(() -> System.nanoTime() - startedAt > Duration.ofSeconds(65).toNanos());

        Files.createFile(marker);
        // Half rewritten, as by a rotation that is not atomic: fabric8's refresh throws on it.
        Files.writeString(
            kubeconfig, kubeconfigText.substring(0, kubeconfigText.indexOf("users:")) + "users: [");
        // A new account of the same name: the token in hand is no longer valid.
        admin.serviceAccounts().inNamespace("kube-system").withName(account).delete();
        await()
            .atMost(30, TimeUnit.SECONDS)
            .until(
                () ->
                    admin.serviceAccounts().inNamespace("kube-system").withName(account).get()
                        == null);
        ServiceAccounts.create(admin, "kube-system", account);
        long faultAt = System.nanoTime();
        assertThat(proxy.endWatches()).as("live watches").isPositive();
        admin.resource(TestObjects.uninitialisedNode(node)).create();
        HttpResponse<String> red = awaitRed(manager);
        long redAt = System.nanoTime();

        Files.writeString(tokenFile, ServiceAccounts.token(admin, "kube-system", account));
        Files.writeString(kubeconfig, kubeconfigText);
        Files.delete(marker);
        long recoveredAt = System.nanoTime();
        awaitHealthy(manager);
        long greenAt = System.nanoTime();
        await("the node created meanwhile is initialised")
            .atMost(60, TimeUnit.SECONDS)
            .until(() -> providerId(admin, node), ("faulty://" + node)::equals);
        long initialisedAt = System.nanoTime();

        System.out.printf(
            "informer fault: exec credential revoked and failing, kubeconfig half rewritten:"
                + " health red %.2f s"
                + " after the watches ended (bound %d s); after the credential recovered, green"
                + " %.2f s and the node created meanwhile initialised %.2f s later%n",
            (redAt - faultAt) / 1e9,
            BOUND.toSeconds(),
            (greenAt - recoveredAt) / 1e9,
            (initialisedAt - recoveredAt) / 1e9);
        assertThat(red.body()).contains("informer Node has not been watching since");
        assertThat(Duration.ofNanos(redAt - faultAt)).isLessThan(BOUND.plusSeconds(10));
        assertThat(manager.process().isAlive()).as("log:%n%s", manager.log()).isTrue();
        assertThat(manager.log()).contains("cannot refresh the credentials");
      }
    } finally {
      admin.nodes().withName(node).delete();
      admin.rbac().clusterRoleBindings().withName(account).delete();
      admin.serviceAccounts().inNamespace("kube-system").withName(account).delete();
    }
  }

  /**
   * The ClusterRole of {@code deploy/rbac.yaml} is unbound from the manager's ServiceAccount, and
   * the watches end: the Node informer cannot watch, the health check turns red within the bound
   * (the Lease, which a Role of its own grants, stays held); once the binding is back, the check is
   * green and the node created meanwhile is initialised.
   */
  @Test
  @ResourceLock(SHIPPED_BINDING)
  void rbacRevokedForAWhileTurnsTheHealthRedThenGreen(
      LocalControlPlane controlPlane, KubernetesClient admin) throws Exception {
    String node = "informer-rbac-" + UUID.randomUUID().toString().substring(0, 6);
    try (ApiProxy proxy = new ApiProxy(controlPlane.adminConfig());
        ManagerProcess manager =
            start(
                controlPlane,
                serviceAccountKubeconfig(controlPlane, admin, proxy),
                true,
                "informer-rbac-")) {
      awaitLeadingAndHealthy(manager);

      admin.rbac().clusterRoleBindings().withName(SERVICE_ACCOUNT).delete();
      await("the binding is gone")
          .atMost(30, TimeUnit.SECONDS)
          .until(() -> admin.rbac().clusterRoleBindings().withName(SERVICE_ACCOUNT).get() == null);
      long revokedAt = System.nanoTime();
      assertThat(proxy.endWatches()).as("live watches").isPositive();
      admin.resource(TestObjects.uninitialisedNode(node)).create();
      HttpResponse<String> red = awaitRed(manager);
      long redAt = System.nanoTime();

      applyRbac(admin);
      long restoredAt = System.nanoTime();
      awaitHealthy(manager);
      long greenAt = System.nanoTime();
      await("the node created meanwhile is initialised")
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> providerId(admin, node), ("faulty://" + node)::equals);
      long initialisedAt = System.nanoTime();

      System.out.printf(
          "informer fault: RBAC for nodes revoked: health red %.2f s after the watches ended"
              + " (bound %d s); after the binding was restored, green %.2f s and the node"
              + " created meanwhile initialised %.2f s later%n",
          (redAt - revokedAt) / 1e9,
          BOUND.toSeconds(),
          (greenAt - restoredAt) / 1e9,
          (initialisedAt - restoredAt) / 1e9);
      assertThat(red.body()).contains("informer Node has not been watching since");
      assertThat(Duration.ofNanos(redAt - revokedAt)).isLessThan(BOUND.plusSeconds(10));
      assertThat(manager.isLeader()).as("the Lease is held throughout").isTrue();
      assertThat(manager.process().isAlive()).as("log:%n%s", manager.log()).isTrue();
    } finally {
      applyRbac(admin);
      admin.nodes().withName(node).delete();
    }
  }

  /** A manager whose cloud answers for the Nodes named {@code nodes}… only. */
  private ManagerProcess start(
      LocalControlPlane controlPlane, Path kubeconfig, boolean lease, String nodes)
      throws Exception {
    Path cloudConfig = temp.resolve("faulty.properties");
    Files.writeString(cloudConfig, "instanceMetadata=ok%nnodes=%s%n".formatted(nodes));
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--kubeconfig=" + kubeconfig,
                "--cloud-provider=faulty",
                "--cloud-config=" + cloudConfig,
                "--controllers=cloud-node",
                "--informer-stall-timeout=" + BOUND.toSeconds() + "s",
                "--authorization-always-allow-paths=/healthz/*"));
    if (!lease) {
      flags.add("--leader-elect=false");
    }
    return ManagerProcess.start(
        controlPlane,
        "informer-faults-" + UUID.randomUUID().toString().substring(0, 8),
        flags.toArray(String[]::new));
  }

  /** The manager as the ServiceAccount of {@code deploy/rbac.yaml}, through the proxy. */
  private Path serviceAccountKubeconfig(
      LocalControlPlane controlPlane, KubernetesClient admin, ApiProxy proxy) throws Exception {
    String token = ServiceAccounts.token(admin, "kube-system", SERVICE_ACCOUNT);
    Path kubeconfig = temp.resolve("service-account.kubeconfig");
    Files.writeString(
        kubeconfig,
        controlPlane
            .kubeconfig("system:serviceaccount:kube-system:" + SERVICE_ACCOUNT, token)
            .replace(controlPlane.serverUrl(), proxy.url()));
    return kubeconfig;
  }

  private static void applyRbac(KubernetesClient admin) throws Exception {
    try (InputStream manifest = Files.newInputStream(RBAC)) {
      for (HasMetadata object : admin.load(manifest).items()) {
        admin.resource(object).createOr(existing -> existing.update());
      }
    }
    // The shipped Role grants the Lease kube-system/cloud-controller-manager only; each test here
    // campaigns for a Lease of its own.
    String testLeases = TEST_LEASES;
    admin
        .rbac()
        .roles()
        .inNamespace("kube-system")
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.RoleBuilder()
                .withNewMetadata()
                .withName(testLeases)
                .endMetadata()
                .addNewRule()
                .withApiGroups("coordination.k8s.io")
                .withResources("leases")
                .withVerbs("get", "list", "watch", "create", "update", "patch")
                .endRule()
                .build())
        .createOr(existing -> existing.update());
    admin
        .rbac()
        .roleBindings()
        .inNamespace("kube-system")
        .resource(
            new io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder()
                .withNewMetadata()
                .withName(testLeases)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", testLeases)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(SERVICE_ACCOUNT)
                .withNamespace("kube-system")
                .endSubject()
                .build())
        .createOr(existing -> existing.update());
  }

  /** The shipped ClusterRole, bound to another ServiceAccount in kube-system. */
  private static void bind(KubernetesClient admin, String account) {
    ClusterRoleBinding binding =
        new ClusterRoleBindingBuilder()
            .withNewMetadata()
            .withName(account)
            .endMetadata()
            .withNewRoleRef()
            .withApiGroup("rbac.authorization.k8s.io")
            .withKind("ClusterRole")
            .withName(SERVICE_ACCOUNT)
            .endRoleRef()
            .addNewSubject()
            .withKind("ServiceAccount")
            .withName(account)
            .withNamespace("kube-system")
            .endSubject()
            .build();
    admin.resource(binding).createOr(existing -> existing.update());
  }

  private static void awaitLeadingAndHealthy(ManagerProcess manager) {
    try {
      await("the manager leads").atMost(60, TimeUnit.SECONDS).until(manager::isLeader);
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "; log:\n" + manager.log(), e);
    }
    awaitHealthy(manager);
  }

  private static void awaitHealthy(ManagerProcess manager) {
    try {
      await("/healthz/" + CHECK + " is green")
          .atMost(60, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  manager.health(CHECK).map(HttpResponse::statusCode).orElse(0) == 200
                      || !manager.process().isAlive());
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "; log:\n" + manager.log(), e);
    }
    assertThat(manager.process().isAlive()).as("log:%n%s", manager.log()).isTrue();
  }

  private static HttpResponse<String> awaitRed(ManagerProcess manager) {
    return await("/healthz/" + CHECK + " is red")
        .atMost(BOUND.plusSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> manager.health(CHECK).orElse(null),
            response -> response != null && response.statusCode() != 200);
  }

  private static String providerId(KubernetesClient client, String name) {
    Node node = client.nodes().withName(name).get();
    return node == null || node.getSpec() == null ? null : node.getSpec().getProviderID();
  }
}
