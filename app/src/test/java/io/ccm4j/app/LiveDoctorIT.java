package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.doctor.LiveDoctor;
import io.ccm4j.doctor.Rule;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The live doctor on a real API server and scheduler, in the state of the first deadlock. */
@WithControlPlane(scheduler = true)
class LiveDoctorIT {

  @Test
  void explainsNodesWaitingForACcmThatCannotScheduleOnThem(
      LocalControlPlane controlPlane, KubernetesClient admin) {
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    try (KubeletFleet kubelets = new KubeletFleet(admin, KubeletFleet.Options.kubeletDefaults())) {
      kubelets.registerAll(
          List.of(NodeSpec.named("doc-a-" + suffix), NodeSpec.named("doc-b-" + suffix)), 2);
      admin
          .serviceAccounts()
          .inNamespace("kube-system")
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName("ccm-" + suffix)
                  .endMetadata()
                  .build())
          .create();
      String pod = "ccm-" + suffix;
      admin
          .pods()
          .inNamespace("kube-system")
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName(pod)
                  .endMetadata()
                  .withNewSpec()
                  .withServiceAccountName("ccm-" + suffix)
                  .withAutomountServiceAccountToken(false)
                  .addNewContainer()
                  .withName("ccm")
                  .withImage("ccm4j:0.1.0")
                  .withArgs("run", "--cloud-provider=sim")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
      await("the scheduler gives up on the pod")
          .atMost(60, TimeUnit.SECONDS)
          .until(
              () ->
                  admin
                      .pods()
                      .inNamespace("kube-system")
                      .withName(pod)
                      .get()
                      .getStatus()
                      .getConditions()
                      .stream()
                      .anyMatch(
                          c ->
                              "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus())));

      List<LiveDoctor.Observation> observations =
          new LiveDoctor(admin, Duration.ZERO, "kube-system", "cloud-controller-manager")
              .diagnose();

      assertThat(observations)
          .anySatisfy(
              o ->
                  assertThat(o.what())
                      .startsWith(
                          "node doc-a-"
                              + suffix
                              + " still has node.cloudprovider.kubernetes.io/uninitialized"));
      assertThat(observations)
          .anySatisfy(
              o -> {
                assertThat(o.what())
                    .isEqualTo("cloud-controller-manager pod kube-system/" + pod + " is pending");
                assertThat(o.detail()).contains("node.cloudprovider.kubernetes.io/uninitialized");
              });
      assertThat(observations)
          .anySatisfy(
              o -> {
                assertThat(o.severity()).isEqualTo(Rule.Severity.ERROR);
                assertThat(o.what())
                    .isEqualTo(
                        "deadlock: nodes wait for the cloud-controller-manager, which waits for a node");
              });
      assertThat(
              Ccm4j.execute(
                  "doctor",
                  "--kubeconfig",
                  controlPlane.kubeconfigPath().toString(),
                  "--stuck-after",
                  "0"))
          .isEqualTo(1);
      admin.pods().inNamespace("kube-system").withName(pod).delete();
    }
  }
}
