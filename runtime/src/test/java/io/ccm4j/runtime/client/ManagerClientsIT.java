package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.controlplane.junit.WithControlPlane;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The manager's clients against a real API server: they share one transport, read objects without
 * managedFields (as upstream's trimming informers), and their full-object updates leave the
 * server's managedFields intact, the manager's own entry added.
 */
@WithControlPlane
class ManagerClientsIT {

  @Test
  void objectsAreReadWithoutManagedFieldsAndUpdatesKeepTheServersBookkeeping(KubernetesClient admin)
      throws Exception {
    admin
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("trimmed")
                .addToLabels("registered-by", "kubelet")
                .endMetadata()
                .build())
        .create();
    assertThat(managers(admin.nodes().withName("trimmed").get())).hasSize(1);

    try (ManagerClients clients = ManagerClients.create(admin.getConfiguration(), 50, 100, false)) {
      KubernetesClient controller = clients.forController("node-controller");
      controller.nodes().withName("trimmed").get();
      clients.leaderElection().leases().inNamespace("kube-system").list();
      clients.reviews().nodes().withName("trimmed").get();
      // Four clients, their calls on the transport's one pool of threads.
      assertThat(callThreads()).isNotEmpty().allMatch(Thread::isDaemon);

      Node read = controller.nodes().withName("trimmed").get();
      assertThat(read.getMetadata().getManagedFields()).isNullOrEmpty();
      assertThat(read.getMetadata().getLabels()).containsEntry("registered-by", "kubelet");

      try (SharedIndexInformer<Node> informer = clients.manager().nodes().inform()) {
        Node cached = informer.getStore().getByKey("trimmed");
        assertThat(cached.getMetadata().getManagedFields()).isNullOrEmpty();
      }

      read.getMetadata().getLabels().put("initialised-by", "ccm4j");
      Node updated = controller.nodes().resource(read).update(); // a full PUT, as N9's
      assertThat(updated.getMetadata().getLabels()).containsEntry("initialised-by", "ccm4j");
    }

    List<ManagedFieldsEntry> after = managers(admin.nodes().withName("trimmed").get());
    assertThat(after)
        .extracting(ManagedFieldsEntry::getManager)
        .hasSize(2)
        .contains("cloud-controller-manager")
        .anySatisfy(manager -> assertThat(manager).isNotEqualTo("cloud-controller-manager"));
  }

  /**
   * A part of a controller that upstream runs as a controller of its own (taint eviction, whose
   * {@code NewClient("node-controller")} is a clientset of its own on the node controller's
   * credentials) gets a client, and so a rate limit, of its own under the controller's account.
   */
  @Test
  void aControllersPartHasAClientOfItsOwnUnderTheControllersServiceAccount(KubernetesClient admin) {
    try (ManagerClients clients = ManagerClients.create(admin.getConfiguration(), 50, 100, true)) {
      KubernetesClient controller = clients.forController("node-controller");
      KubernetesClient part = clients.forController("node-controller", "taint-eviction-controller");

      assertThat(part).isNotSameAs(controller);
      assertThat(clients.forController("node-controller", "taint-eviction-controller"))
          .isSameAs(part);
      // The API server's bootstrap policy lets the node-controller account list pods.
      assertThat(part.pods().inAnyNamespace().list().getItems()).isNotNull();
      assertThat(
              admin
                  .serviceAccounts()
                  .inNamespace("kube-system")
                  .withName("taint-eviction-controller")
                  .get())
          .isNull();
    }
  }

  /** The threads of the shared transport's calls. */
  private static List<Thread> callThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(thread -> thread.getName().startsWith(SharedTransport.THREAD_PREFIX))
        .toList();
  }

  private static List<ManagedFieldsEntry> managers(Node node) {
    return node.getMetadata().getManagedFields();
  }
}
