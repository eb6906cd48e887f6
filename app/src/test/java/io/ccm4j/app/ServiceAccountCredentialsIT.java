package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.client.ServiceAccountClients;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code --use-service-account-credentials}: a controller writes as its own ServiceAccount, so it
 * can do exactly what that account is granted.
 */
@WithControlPlane
class ServiceAccountCredentialsIT {

  @Test
  void theCloudNodeControllerWritesAsItsOwnServiceAccount(
      LocalControlPlane controlPlane, KubernetesClient admin) throws Exception {
    String node = "sa-" + UUID.randomUUID().toString().substring(0, 6);
    String role = "sa-it-" + node;
    // The manager's account may do no more than the chart's controller-accounts Role grants: read
    // and create ServiceAccounts, and request their tokens, in kube-system.
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
                .withVerbs("get", "create")
                .endRule()
                .addNewRule()
                .withApiGroups("")
                .withResources("serviceaccounts/token")
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
        new CloudControllerManager.Settings(
            SimCloudProviderFactory.fromYaml(
                "instances: [{name: %s, zone: z1, addresses: [10.9.1.1]}]".formatted(node)),
            "kubernetes",
            ControllerSelection.parse(List.of("cloud-node"), Set.of()),
            ControllerSettings.defaults(),
            Optional.empty(),
            Optional.empty(),
            null);
    try (asManager;
        ServiceAccountClients serviceAccounts = new ServiceAccountClients(asManager, 20, 30);
        KubeletFleet kubelets = new KubeletFleet(admin, KubeletFleet.Options.kubeletDefaults());
        CloudControllerManager manager =
            new CloudControllerManager(
                admin,
                settings,
                Controllers.factories(),
                code -> {},
                serviceAccounts::forController)) {
      manager.start();
      await("the controller's ServiceAccount is created")
          .atMost(30, TimeUnit.SECONDS)
          .until(
              () ->
                  admin
                          .serviceAccounts()
                          .inNamespace("kube-system")
                          .withName("cloud-node-controller")
                          .get()
                      != null);
      kubelets.register(NodeSpec.named(node));

      await("nothing granted to the ServiceAccount: the node stays uninitialised")
          .during(Duration.ofSeconds(4))
          .atMost(6, TimeUnit.SECONDS)
          .until(() -> uninitialised(admin, node));

      admin
          .rbac()
          .clusterRoles()
          .resource(
              new ClusterRoleBuilder()
                  .withNewMetadata()
                  .withName(role)
                  .endMetadata()
                  .addNewRule()
                  .withApiGroups("")
                  .withResources("nodes")
                  .withVerbs("get", "list", "watch", "update", "patch")
                  .endRule()
                  .addNewRule()
                  .withApiGroups("")
                  .withResources("nodes/status")
                  .withVerbs("patch", "update")
                  .endRule()
                  .build())
          .create();
      admin
          .rbac()
          .clusterRoleBindings()
          .resource(
              new ClusterRoleBindingBuilder()
                  .withNewMetadata()
                  .withName(role)
                  .endMetadata()
                  .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role)
                  .addNewSubject()
                  .withKind("ServiceAccount")
                  .withName("cloud-node-controller")
                  .withNamespace("kube-system")
                  .endSubject()
                  .build())
          .create();

      await("initialised once the ServiceAccount may write nodes (after the key's backoff)")
          .atMost(60, TimeUnit.SECONDS)
          .until(() -> !uninitialised(admin, node));
      Node initialised = admin.nodes().withName(node).get();
      assertThat(initialised.getStatus().getAddresses())
          .anyMatch(a -> a.getAddress().equals("10.9.1.1"));
    } finally {
      admin.rbac().roleBindings().inNamespace("kube-system").withName(managerAccount).delete();
      admin.rbac().roles().inNamespace("kube-system").withName(managerAccount).delete();
      admin.serviceAccounts().inNamespace("kube-system").withName(managerAccount).delete();
      admin.rbac().clusterRoleBindings().withName(role).delete();
      admin.rbac().clusterRoles().withName(role).delete();
      admin.nodes().withName(node).delete();
    }
  }

  private static boolean uninitialised(KubernetesClient admin, String node) {
    Node current = admin.nodes().withName(node).get();
    return current != null && Taints.hasKey(current, WellKnownTaints.UNINITIALIZED);
  }
}
