package io.ccm4j.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class LocalControlPlaneIT {

  @Test
  void startsARealApiServerWithRbacAndStopsEverythingItStarted() throws Exception {
    int port;
    try (LocalControlPlane controlPlane = LocalControlPlane.builder().start()) {
      port = URI.create(controlPlane.serverUrl()).getPort();
      assertThat(Files.readString(controlPlane.kubeconfigPath()))
          .contains(controlPlane.serverUrl());

      try (KubernetesClient admin = controlPlane.newClient()) {
        // A Node with labels goes through JSON with a map: the request the vendored json-iterator
        // broke.
        Node created =
            admin
                .nodes()
                .resource(
                    new NodeBuilder()
                        .withNewMetadata()
                        .withName("control-plane-it")
                        .addToLabels("topology.kubernetes.io/zone", "zone-a")
                        .endMetadata()
                        .build())
                .create();
        assertThat(created.getMetadata().getLabels())
            .containsEntry("topology.kubernetes.io/zone", "zone-a");
        assertThat(admin.namespaces().withName("kube-system").get()).isNotNull();
      }

      Config stranger = Config.fromKubeconfig(controlPlane.kubeconfig("nobody", "not-a-token"));
      try (KubernetesClient unauthenticated =
          new KubernetesClientBuilder().withConfig(stranger).build()) {
        assertThatThrownBy(() -> unauthenticated.nodes().list())
            .isInstanceOf(KubernetesClientException.class)
            .satisfies(e -> assertThat(((KubernetesClientException) e).getCode()).isEqualTo(401));
      }
    }
    assertThat(isListening(port)).as("API server port closed after close()").isFalse();
  }

  /**
   * A port chosen free is released before etcd or kube-apiserver binds it; another process may take
   * it in between. Here the first etcd client port and then the next API server port are taken by
   * the test: both components start again on fresh ports and the control plane comes up.
   */
  @Test
  void aPortTakenBetweenChoosingAndBindingIsChosenAgain() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int takenPort = taken.getLocalPort();
      AtomicInteger chosen = new AtomicInteger();
      // Each start asks for etcd's client, etcd's peer and the API server's port, in that order.
      Set<Integer> handedOutTaken = Set.of(1, 6);
      LocalControlPlane.PortSource ports =
          () ->
              handedOutTaken.contains(chosen.incrementAndGet())
                  ? takenPort
                  : LocalControlPlane.freePort();

      try (LocalControlPlane controlPlane = LocalControlPlane.builder().ports(ports).start();
          KubernetesClient admin = controlPlane.newClient()) {
        assertThat(admin.namespaces().withName("kube-system").get()).isNotNull();
        assertThat(URI.create(controlPlane.serverUrl()).getPort()).isNotEqualTo(takenPort);
        assertThat(chosen.get()).isEqualTo(9);
        assertThat(Files.readString(controlPlane.directory().resolve("etcd.log")))
            .contains("address already in use");
        assertThat(Files.readString(controlPlane.directory().resolve("kube-apiserver.log")))
            .contains("address already in use");
      }
    }
  }

  /**
   * kube-scheduler listens on no port: had it one chosen free and lost it, it would exit unseen
   * after the start returned. Here every port after the API server's is taken.
   */
  @Test
  void theSchedulerHasNoPortToLose() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      AtomicInteger chosen = new AtomicInteger();
      LocalControlPlane.PortSource ports =
          () -> chosen.incrementAndGet() > 3 ? taken.getLocalPort() : LocalControlPlane.freePort();

      try (LocalControlPlane controlPlane =
          LocalControlPlane.builder().withScheduler(true).ports(ports).start()) {
        Awaitility.await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(10))
            .until(() -> controlPlane.pid("kube-scheduler").isPresent());
        assertThat(Files.readString(controlPlane.directory().resolve("kube-scheduler.log")))
            .doesNotContain("address already in use");
      }
    }
  }

  @Test
  void withTheControllerManagerDeploymentsBecomePodsAndNamespacesGetServiceAccountAndRootCa() {
    try (LocalControlPlane controlPlane =
            LocalControlPlane.builder().withControllerManager(true).start();
        KubernetesClient admin = controlPlane.newClient()) {
      admin
          .namespaces()
          .resource(
              new io.fabric8.kubernetes.api.model.NamespaceBuilder()
                  .withNewMetadata()
                  .withName("workloads")
                  .endMetadata()
                  .build())
          .create();
      admin
          .apps()
          .deployments()
          .inNamespace("workloads")
          .resource(
              new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder()
                  .withNewMetadata()
                  .withName("web")
                  .endMetadata()
                  .withNewSpec()
                  .withReplicas(2)
                  .withNewSelector()
                  .addToMatchLabels("app", "web")
                  .endSelector()
                  .withNewTemplate()
                  .withNewMetadata()
                  .addToLabels("app", "web")
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("web")
                  .withImage("registry.invalid/web:1")
                  .endContainer()
                  .endSpec()
                  .endTemplate()
                  .endSpec()
                  .build())
          .create();

      org.awaitility.Awaitility.await()
          .atMost(60, java.util.concurrent.TimeUnit.SECONDS)
          .until(
              () ->
                  admin
                          .pods()
                          .inNamespace("workloads")
                          .withLabel("app", "web")
                          .list()
                          .getItems()
                          .size()
                      == 2);
      assertThat(admin.serviceAccounts().inNamespace("workloads").withName("default").get())
          .isNotNull();
      org.awaitility.Awaitility.await()
          .atMost(30, java.util.concurrent.TimeUnit.SECONDS)
          .until(
              () ->
                  admin.configMaps().inNamespace("workloads").withName("kube-root-ca.crt").get()
                      != null);
    }
  }

  private static boolean isListening(int port) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return true;
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
