package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerDescriptor;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.client.ServiceAccountClients;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code --use-service-account-credentials}: a controller writes as its own ServiceAccount,
 * upstream's name for it, which a stock API server's bootstrap policy already grants what the
 * controller does.
 */
@WithControlPlane
class ServiceAccountCredentialsIT {

  /** The accounts the chart's controller-accounts Role names: upstream's for each controller. */
  private static final List<String> CONTROLLER_ACCOUNTS =
      List.of("node-controller", "service-controller", "route-controller");

  @Test
  void theCloudNodeControllerWritesAsItsOwnServiceAccount(
      LocalControlPlane controlPlane, KubernetesClient admin) throws Exception {
    String node = "sa-" + UUID.randomUUID().toString().substring(0, 6);
    String second = node + "-2";
    // The manager's account may do no more than the chart's controller-accounts Role grants:
    // create ServiceAccounts, read the controllers' and request their tokens, in kube-system.
    String managerAccount = "sa-it-manager-" + node;
    ServiceAccounts.create(admin, "kube-system", managerAccount);
    admin
        .rbac()
        .roles()
        .inNamespace("kube-system")
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName(managerAccount)
                .endMetadata()
                .addNewRule()
                .withApiGroups("")
                .withResources("serviceaccounts")
                .withVerbs("create")
                .endRule()
                .addNewRule()
                .withApiGroups("")
                .withResources("serviceaccounts")
                .withResourceNames(CONTROLLER_ACCOUNTS)
                .withVerbs("get")
                .endRule()
                .addNewRule()
                .withApiGroups("")
                .withResources("serviceaccounts/token")
                .withResourceNames(CONTROLLER_ACCOUNTS)
                .withVerbs("create")
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
                .withName(managerAccount)
                .endMetadata()
                .withNewRoleRef("rbac.authorization.k8s.io", "Role", managerAccount)
                .addNewSubject()
                .withKind("ServiceAccount")
                .withName(managerAccount)
                .withNamespace("kube-system")
                .endSubject()
                .build())
        .create();
    KubernetesClient asManager =
        new KubernetesClientBuilder()
            .withConfig(
                Config.fromKubeconfig(
                    controlPlane.kubeconfig(
                        "system:serviceaccount:kube-system:" + managerAccount,
                        ServiceAccounts.token(admin, "kube-system", managerAccount))))
            .build();
    var settings =
        CloudControllerManager.settings()
            .cloud(
                SimCloudProviderFactory.fromYaml(
                    "instances: [{name: %s, zone: z1, addresses: [10.9.1.1]}, {name: %s, zone: z1}]"
                        .formatted(node, second)))
            .selection(ControllerSelection.parse(List.of("cloud-node"), Set.of()))
            .controllers(ControllerSettings.defaults())
            .buildSettings();
    try (asManager;
        ServiceAccountClients serviceAccounts = new ServiceAccountClients(asManager, 20, 30);
        KubeletFleet kubelets = new KubeletFleet(admin, KubeletFleet.Options.kubeletDefaults());
        CloudControllerManager manager =
            CloudControllerManager.builder(
                    ManagerClients.sharing(admin, serviceAccounts::forController))
                .settings(settings)
                .exit(code -> {})
                .build()) {
      manager.start();
      await("the controller's ServiceAccount is created")
          .atMost(30, TimeUnit.SECONDS)
          .until(
              () ->
                  admin
                          .serviceAccounts()
                          .inNamespace("kube-system")
                          .withName("node-controller")
                          .get()
                      != null);
      kubelets.register(NodeSpec.named(node));

      // Nothing was granted to any controller's account: kube-system/node-controller may write
      // nodes through the API server's bootstrap role system:controller:node-controller, and the
      // manager's own account may not, so the writes are the controller's.
      await("initialised through the bootstrap role of upstream's node-controller")
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> !uninitialised(admin, node));
      Node initialised = admin.nodes().withName(node).get();
      assertThat(initialised.getStatus().getAddresses())
          .anyMatch(a -> a.getAddress().equals("10.9.1.1"));
      // Another account's token is not the manager's to request.
      assertThatThrownBy(
              () ->
                  asManager
                      .serviceAccounts()
                      .inNamespace("kube-system")
                      .withName("default")
                      .tokenRequest(
                          new TokenRequestBuilder()
                              .withNewSpec()
                              .withExpirationSeconds(600L)
                              .endSpec()
                              .build()))
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(403));

      // Someone deletes the controller's ServiceAccount, which revokes its token: the next write
      // is refused (401), and the controller gets the account made again and a new token, as
      // upstream's client builder does, instead of being refused until the manager restarts.
      String old =
          admin
              .serviceAccounts()
              .inNamespace("kube-system")
              .withName("node-controller")
              .get()
              .getMetadata()
              .getUid();
      admin.serviceAccounts().inNamespace("kube-system").withName("node-controller").delete();
      await("the old account is gone")
          .atMost(30, TimeUnit.SECONDS)
          .until(
              () -> {
                var current =
                    admin.serviceAccounts().inNamespace("kube-system").withName("node-controller");
                return current.get() == null || !old.equals(current.get().getMetadata().getUid());
              });
      // The API server caches a token's authentication for some seconds: the controller's token
      // counts as revoked once a request with it is refused.
      String revoked =
          serviceAccounts
              .forController("node-controller")
              .getConfiguration()
              .getOauthTokenProvider()
              .getToken();
      try (KubernetesClient withRevoked =
          new KubernetesClientBuilder()
              .withConfig(
                  Config.fromKubeconfig(
                      controlPlane.kubeconfig(
                          "system:serviceaccount:kube-system:node-controller", revoked)))
              .build()) {
        await("the deleted account's token is refused")
            .atMost(60, TimeUnit.SECONDS)
            .until(
                () -> {
                  try {
                    withRevoked.nodes().withName(node).get();
                    return false;
                  } catch (KubernetesClientException e) {
                    return e.getCode() == 401;
                  }
                });
      }
      kubelets.register(NodeSpec.named(second));
      await("a node registered after the account's deletion is initialised")
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> !uninitialised(admin, second));
      assertThat(
              admin
                  .serviceAccounts()
                  .inNamespace("kube-system")
                  .withName("node-controller")
                  .get()
                  .getMetadata()
                  .getUid())
          .isNotEqualTo(old);
    } finally {
      admin.nodes().withName(second).delete();
      admin.rbac().roleBindings().inNamespace("kube-system").withName(managerAccount).delete();
      admin.rbac().roles().inNamespace("kube-system").withName(managerAccount).delete();
      admin.serviceAccounts().inNamespace("kube-system").withName(managerAccount).delete();
      admin.nodes().withName(node).delete();
    }
  }

  /**
   * Each controller's client name is an account a stock API server already grants its job: the
   * subject of the bootstrap binding {@code system:controller:<name>}.
   */
  @Test
  void everyControllersAccountIsBoundByTheApiServersBootstrapPolicy(KubernetesClient admin) {
    for (ControllerDescriptor descriptor : Controllers.ALL) {
      String controller = descriptor.name();
      String account = descriptor.clientName();
      ClusterRoleBinding binding =
          admin.rbac().clusterRoleBindings().withName("system:controller:" + account).get();

      assertThat(binding).as("system:controller:%s for %s", account, controller).isNotNull();
      assertThat(CONTROLLER_ACCOUNTS)
          .as("the chart lets the manager request its token")
          .contains(account);
      assertThat(binding.getSubjects())
          .anySatisfy(
              subject -> {
                assertThat(subject.getKind()).isEqualTo("ServiceAccount");
                assertThat(subject.getNamespace()).isEqualTo("kube-system");
                assertThat(subject.getName()).isEqualTo(account);
              });
    }
  }

  private static boolean uninitialised(KubernetesClient admin, String node) {
    Node current = admin.nodes().withName(node).get();
    return current != null && Taints.hasKey(current, WellKnownTaints.UNINITIALIZED);
  }
}
