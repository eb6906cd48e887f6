package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.events.KubernetesEventRecorder;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.runtime.serving.DelegatedAccess;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * ccm4j does its work with exactly the permissions of {@code deploy/rbac.yaml}, and no more; a
 * scraper reads its metrics with those of {@code deploy/metrics-reader.yaml}.
 */
@WithControlPlane
class DeployRbacIT {

  private static final Path RBAC = Path.of("..", "deploy", "rbac.yaml");
  private static final Path METRICS_READER = Path.of("..", "deploy", "metrics-reader.yaml");
  private static final String SERVICE_ACCOUNT = "cloud-controller-manager";

  /** The manager's renew deadline here: it must keep its Lease for longer than this. */
  private static final Duration RENEW_DEADLINE = Duration.ofSeconds(4);

  @Test
  void theManagerInitialisesNodesAsItsServiceAccountWithTheShippedClusterRole(
      LocalControlPlane controlPlane, KubernetesClient admin) throws Exception {
    try (InputStream manifest = Files.newInputStream(RBAC)) {
      for (HasMetadata object : admin.load(manifest).items()) {
        admin.resource(object).createOr(existing -> existing.update());
      }
    }
    String token = ServiceAccounts.token(admin, "kube-system", SERVICE_ACCOUNT);
    Config asServiceAccount =
        Config.fromKubeconfig(
            controlPlane.kubeconfig("system:serviceaccount:kube-system:" + SERVICE_ACCOUNT, token));
    String node = "rbac-" + UUID.randomUUID().toString().substring(0, 6);

    try (KubernetesClient client =
            new KubernetesClientBuilder().withConfig(asServiceAccount).build();
        KubeletFleet kubelets = new KubeletFleet(admin, KubeletFleet.Options.kubeletDefaults())) {
      assertThatThrownBy(() -> client.pods().inAnyNamespace().list())
          .as("not an admin")
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));
      // The serving port's delegated access, as the ServiceAccount: its own token is reviewed
      // (not 401) and its access to /metrics too (403: the role does not grant that path).
      assertThat(
              new DelegatedAccess(client, List.of())
                  .check("GET", "/metrics", Optional.of("Bearer " + token)))
          .hasValueSatisfying(denial -> assertThat(denial.status()).isEqualTo(403));

      var settings =
          CloudControllerManager.settings()
              .cloud(
                  SimCloudProviderFactory.fromYaml(
                      "instances: [{name: %s, zone: z1, addresses: [10.9.0.1]}]".formatted(node)))
              .selection(ControllerSelection.parse(List.of("*")))
              .controllers(withPodNetwork(ControllerSettings.defaults()))
              // Timings shortened (as --leader-elect-lease-duration, -renew-deadline and
              // -retry-period would): what is checked is that the Role lets it renew, which
              // outliving a renew deadline of 4 s shows as well as one of 10 s.
              .leaderElection(
                  LeaderElection.Settings.defaults("rbac-test_" + UUID.randomUUID())
                      .withTimings(
                          RENEW_DEADLINE.plusSeconds(1), RENEW_DEADLINE, Duration.ofSeconds(1)))
              .buildSettings();
      try (CloudControllerManager manager =
          CloudControllerManager.builder(client).settings(settings).exit(code -> {}).build()) {
        manager.start();
        await("leads with the Role for its Lease")
            .atMost(30, TimeUnit.SECONDS)
            .until(manager::isLeader);
        // Its own Lease only: another component's is not its to take.
        admin
            .leases()
            .inNamespace("kube-system")
            .resource(
                new io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder()
                    .withNewMetadata()
                    .withName("rbac-other-lease")
                    .endMetadata()
                    .build())
            .createOr(existing -> existing.update());
        assertThatThrownBy(
                () ->
                    client
                        .leases()
                        .inNamespace("kube-system")
                        .withName("rbac-other-lease")
                        .edit(
                            lease -> {
                              lease.getSpec().setHolderIdentity("ccm4j");
                              return lease;
                            }))
            .isInstanceOfSatisfying(
                KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));

        kubelets.register(NodeSpec.named(node));

        await()
            .atMost(30, TimeUnit.SECONDS)
            .until(
                () -> {
                  Node current = admin.nodes().withName(node).get();
                  return !Taints.hasKey(current, WellKnownTaints.UNINITIALIZED)
                      && current.getStatus().getAddresses().stream()
                          .anyMatch(a -> a.getAddress().equals("10.9.0.1"));
                });
        await()
            .atMost(10, TimeUnit.SECONDS)
            .until(
                () ->
                    admin.v1().events().inNamespace("default").list().getItems().stream()
                        .anyMatch(
                            e ->
                                node.equals(e.getInvolvedObject().getName())
                                    && "Synced".equals(e.getReason())));
        await("node IPAM and routes work with the ClusterRole (nodes, nodes/status)")
            .atMost(30, TimeUnit.SECONDS)
            .until(
                () -> {
                  Node current = admin.nodes().withName(node).get();
                  return current.getSpec().getPodCIDRs() != null
                      && current.getSpec().getPodCIDRs().size() == 1
                      && current.getStatus().getConditions().stream()
                          .anyMatch(
                              c ->
                                  "NetworkUnavailable".equals(c.getType())
                                      && "RouteCreated".equals(c.getReason()));
                });
        // The service-lb controller as the ServiceAccount: services/status carries the
        // finalizer and the ingress (spec §6.3).
        String service = node + "-lb";
        admin
            .services()
            .inNamespace("default")
            .resource(
                new io.fabric8.kubernetes.api.model.ServiceBuilder()
                    .withNewMetadata()
                    .withName(service)
                    .endMetadata()
                    .withNewSpec()
                    .withType("LoadBalancer")
                    .addNewPort()
                    .withPort(80)
                    .endPort()
                    .endSpec()
                    .build())
            .create();
        await()
            .atMost(30, TimeUnit.SECONDS)
            .until(
                () -> {
                  var current = admin.services().inNamespace("default").withName(service).get();
                  return current
                          .getMetadata()
                          .getFinalizers()
                          .contains(WellKnownAnnotations.LOAD_BALANCER_CLEANUP_FINALIZER)
                      && !current.getStatus().getLoadBalancer().getIngress().isEmpty();
                });
        admin.services().inNamespace("default").withName(service).delete();
        await()
            .atMost(30, TimeUnit.SECONDS)
            .until(() -> admin.services().inNamespace("default").withName(service).get() == null);
        // A repeated event is a patch of the first one (count, lastTimestamp): the ClusterRole
        // grants create and patch on events, not get.
        try (KubernetesEventRecorder recorder =
            new KubernetesEventRecorder(
                client, Controllers.CLOUD_NODE.name(), KubeApiContentType.DEFAULT)) {
          Node involved = admin.nodes().withName(node).get();
          recorder.warning(involved, "RbacRepeated", "the same event twice");
          recorder.warning(involved, "RbacRepeated", "the same event twice");
        }
        await("a repeated event is counted, not refused")
            .atMost(10, TimeUnit.SECONDS)
            .until(
                () ->
                    admin.v1().events().inNamespace("default").list().getItems().stream()
                        .anyMatch(
                            e ->
                                node.equals(e.getInvolvedObject().getName())
                                    && "RbacRepeated".equals(e.getReason())
                                    && Integer.valueOf(2).equals(e.getCount())));
        await("keeps renewing its Lease past the renew deadline")
            .during(RENEW_DEADLINE.plusSeconds(2))
            .atMost(RENEW_DEADLINE.plusSeconds(10))
            .until(
                () ->
                    manager.isLeader()
                        && manager.health().run().values().stream().allMatch(Optional::isEmpty));
        assertThat(Set.of(manager.health().run().keySet().toArray()))
            .contains(
                "leaderElection",
                Controllers.CLOUD_NODE.name(),
                Controllers.CLOUD_NODE_LIFECYCLE.name(),
                Controllers.SERVICE_LB.name(),
                Controllers.NODE_IPAM.name(),
                Controllers.NODE_ROUTE.name());
      }
    }
  }

  /**
   * deploy/metrics-reader.yaml, bound to a scraper's ServiceAccount, lets it read /metrics and
   * /metrics/slis through the serving port's delegated access, and nothing more: not the reset of
   * the SLIs; a scraper it is not bound to is refused both.
   */
  @Test
  void aScraperBoundToTheMetricsReaderRoleMayGetTheMetricsPathsOnly(KubernetesClient admin)
      throws Exception {
    try (InputStream manifest = Files.newInputStream(METRICS_READER)) {
      for (HasMetadata object : admin.load(manifest).items()) {
        admin.resource(object).createOr(existing -> existing.update());
      }
    }
    String scraper = "prometheus-" + UUID.randomUUID().toString().substring(0, 6);
    ServiceAccounts.create(admin, "default", scraper);
    ServiceAccounts.create(admin, "default", scraper + "-unbound");
    admin
        .rbac()
        .clusterRoleBindings()
        .resource(
            new ClusterRoleBindingBuilder()
                .withNewMetadata()
                .withName(scraper)
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("ClusterRole")
                .withName("cloud-controller-manager:metrics-reader")
                .endRoleRef()
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(scraper)
                .withNamespace("default")
                .endSubject()
                .build())
        .create();
    String bound = "Bearer " + ServiceAccounts.token(admin, "default", scraper);
    String unbound = "Bearer " + ServiceAccounts.token(admin, "default", scraper + "-unbound");
    DelegatedAccess access = new DelegatedAccess(admin, List.of());

    // A binding takes effect when the API server's authorizer has seen it (a denial before that
    // is remembered for 10 s).
    await("the binding is in force")
        .atMost(30, TimeUnit.SECONDS)
        .until(() -> access.check("GET", "/metrics", Optional.of(bound)).isEmpty());
    assertThat(access.check("GET", "/metrics/slis", Optional.of(bound))).isEmpty();
    assertThat(access.check("DELETE", "/metrics/slis", Optional.of(bound)))
        .hasValueSatisfying(denial -> assertThat(denial.status()).isEqualTo(403));
    assertThat(access.check("GET", "/metrics", Optional.of(unbound)))
        .hasValueSatisfying(denial -> assertThat(denial.status()).isEqualTo(403));
    assertThat(access.check("GET", "/metrics/slis", Optional.of(unbound)))
        .hasValueSatisfying(denial -> assertThat(denial.status()).isEqualTo(403));
  }

  /** Node IPAM and routes on, so their writes run under the ServiceAccount too. */
  private static ControllerSettings withPodNetwork(ControllerSettings settings) {
    return settings.withNetwork(
        new NetworkSettings(
            NetworkSettings.parseDualStack("10.120.0.0/16"),
            true,
            Duration.ofSeconds(1),
            true,
            24,
            64,
            List.of(),
            false));
  }
}
