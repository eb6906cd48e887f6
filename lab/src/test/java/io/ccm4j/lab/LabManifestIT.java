package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.controlplane.LocalControlPlane;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A user's manifest applied by the lab as {@code kubectl apply} would, on a real API server. */
class LabManifestIT {

  private static LocalControlPlane controlPlane;
  private static KubernetesClient admin;

  @BeforeAll
  static void start() throws Exception {
    controlPlane = LocalControlPlane.builder().start();
    admin = controlPlane.newClient();
  }

  @AfterAll
  static void stop() {
    if (admin != null) {
      admin.close();
    }
    if (controlPlane != null) {
      controlPlane.close();
    }
  }

  @Test
  void objectsWithoutANamespaceGoWhereKubectlPutsThem() {
    String manifest =
        """
        apiVersion: v1
        kind: ServiceAccount
        metadata:
          name: no-namespace
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: its-own
          namespace: kube-system
        ---
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata:
          name: lab-manifest-cluster-scoped
        rules: []
        """;

    List<HasMetadata> objects = LabManifest.objects(admin, manifest, quiet());
    LabManifest.apply(admin, objects);

    assertThat(admin.serviceAccounts().inNamespace("default").withName("no-namespace").get())
        .isNotNull();
    assertThat(admin.configMaps().inNamespace("kube-system").withName("its-own").get()).isNotNull();
    assertThat(admin.rbac().clusterRoles().withName("lab-manifest-cluster-scoped").get())
        .isNotNull();
    assertThat(objects.get(2).getMetadata().getNamespace()).isNull();
  }

  /**
   * The kinds of the API groups whose fabric8 models ccm4j does not ship (a CCM's manifest may
   * carry a PodDisruptionBudget, a PriorityClass, a NetworkPolicy) are applied as generic objects.
   */
  @Test
  void kindsWithoutAModelOnTheClassPathAreAppliedAsGenericObjects() {
    String manifest =
        """
        apiVersion: scheduling.k8s.io/v1
        kind: PriorityClass
        metadata:
          name: lab-manifest-ccm-critical
        value: 1000000
        ---
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata:
          name: ccm
        spec:
          maxUnavailable: 1
          selector:
            matchLabels:
              app: ccm
        ---
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata:
          name: ccm
          namespace: kube-system
        spec:
          podSelector: {}
        """;

    List<HasMetadata> objects = LabManifest.objects(admin, manifest, quiet());
    LabManifest.apply(admin, objects);

    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .containsExactly("PriorityClass", "PodDisruptionBudget", "NetworkPolicy");
    Object value =
        admin
            .genericKubernetesResources("scheduling.k8s.io/v1", "PriorityClass")
            .withName("lab-manifest-ccm-critical")
            .get()
            .get("value");
    assertThat(value).isEqualTo(1000000);
    assertThat(
            admin
                .genericKubernetesResources("policy/v1", "PodDisruptionBudget")
                .inNamespace("default")
                .withName("ccm")
                .get())
        .isNotNull();
    assertThat(
            admin
                .genericKubernetesResources("networking.k8s.io/v1", "NetworkPolicy")
                .inNamespace("kube-system")
                .withName("ccm")
                .get())
        .isNotNull();
  }

  @Test
  void aKindTheClusterDoesNotServeIsLeftOutWithANote() {
    String manifest =
        """
        apiVersion: monitoring.coreos.com/v1
        kind: ServiceMonitor
        metadata:
          name: ccm-metrics
        spec: {}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: beside-the-monitor
        """;
    ByteArrayOutputStream out = new ByteArrayOutputStream();

    List<HasMetadata> objects =
        LabManifest.objects(admin, manifest, new PrintStream(out, true, StandardCharsets.UTF_8));

    assertThat(objects).extracting(HasMetadata::getKind).containsExactly("ConfigMap");
    assertThat(out.toString(StandardCharsets.UTF_8))
        .isEqualTo(
            "lab: left out ServiceMonitor ccm-metrics of the manifest: this cluster serves no such"
                + " kind (monitoring.coreos.com/v1)\n");
  }

  @Test
  void anObjectTheApiServerRefusesIsNamedWithItsReason() {
    String manifest =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: without-selector
          namespace: kube-system
        spec:
          template: {}
        """;
    List<HasMetadata> objects = LabManifest.objects(admin, manifest, quiet());

    assertThatThrownBy(() -> LabManifest.apply(admin, objects))
        .isInstanceOf(LabManifest.RefusedException.class)
        .hasMessageStartingWith(
            "the API server refused Deployment kube-system/without-selector of the manifest:"
                + " Deployment.apps \"without-selector\" is invalid:")
        .hasMessageContaining("spec.selector: Required value");
  }

  private static PrintStream quiet() {
    return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
  }
}
