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
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/** The live doctor on a real API server and scheduler, in the state of the first deadlock. */
@WithControlPlane(scheduler = true)
class LiveDoctorIT {

  @Test
  void explainsNodesWaitingForACcmThatCannotScheduleOnThem(
      LocalControlPlane controlPlane, KubernetesClient admin) {
    withPendingCcm(
        admin,
        List.of("run", "--cloud-provider=sim"),
        (pod, suffix) -> {
          List<LiveDoctor.Observation> observations = diagnose(admin);

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
                        .isEqualTo(
                            "cloud-controller-manager pod kube-system/" + pod + " is pending");
                    // Today's scheduler no longer names the taint: the doctor does.
                    assertThat(o.detail())
                        .startsWith("the scheduler says: 0/")
                        .contains(
                            "does not tolerate the taint(s) node.cloudprovider.kubernetes.io/uninitialized");
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
        });
  }

  /**
   * A CCM that leaves cloud-node to another component (STACKIT's serves load balancers only), with
   * no such component: the nodes wait for a node controller that is not there, not for this CCM.
   */
  @Test
  void namesTheMissingNodeControllerWhenTheCcmLeavesCloudNodeOut(KubernetesClient admin) {
    withPendingCcm(
        admin,
        List.of("run", "--cloud-provider=sim", "--controllers=service-lb-controller"),
        (pod, suffix) -> {
          List<LiveDoctor.Observation> observations = diagnose(admin);

          assertThat(observations)
              .anySatisfy(
                  o -> {
                    assertThat(o.severity()).isEqualTo(Rule.Severity.ERROR);
                    assertThat(o.what())
                        .isEqualTo(
                            "deadlock: the nodes wait for a node controller that is not there, and"
                                + " the cloud-controller-manager waits for the nodes");
                    assertThat(o.detail())
                        .contains("no cloud-controller-manager pod runs cloud-node");
                  })
              .noneSatisfy(
                  o ->
                      assertThat(o.what())
                          .isEqualTo(
                              "deadlock: nodes wait for the cloud-controller-manager, which waits"
                                  + " for a node"));
        });
  }

  /**
   * Two nodes registered as kubelets with an external cloud register them (uninitialized), and a
   * CCM pod with {@code args} that tolerates none of their taints, once the scheduler has given up
   * on it: {@code check} gets the pod's name and the nodes' suffix; the pod is deleted afterwards.
   */
  private static void withPendingCcm(
      KubernetesClient admin, List<String> args, BiConsumer<String, String> check) {
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    try (KubeletFleet kubelets = new KubeletFleet(admin, KubeletFleet.Options.kubeletDefaults())) {
      kubelets.registerAll(
          List.of(NodeSpec.named("doc-a-" + suffix), NodeSpec.named("doc-b-" + suffix)), 2);
      ServiceAccounts.create(admin, "kube-system", "ccm-" + suffix);
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
                  .withArgs(args)
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
      try {
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
                                "PodScheduled".equals(c.getType())
                                    && "False".equals(c.getStatus())));
        check.accept(pod, suffix);
      } finally {
        admin.pods().inNamespace("kube-system").withName(pod).delete();
      }
    }
  }

  private static void boundPod(
      KubernetesClient admin, String name, boolean hostNetwork, String... args) {
    ServiceAccounts.create(admin, "kube-system", "doctor-it");
    admin
        .pods()
        .inNamespace("kube-system")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewSpec()
                .withNodeName("node-of-" + name)
                .withHostNetwork(hostNetwork)
                .withServiceAccountName("doctor-it")
                .withAutomountServiceAccountToken(false)
                .addNewContainer()
                .withName("ccm")
                .withImage("ccm4j:0.1.0")
                .withArgs(args)
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  private static void setPhase(KubernetesClient admin, String pod, String phase) {
    admin
        .pods()
        .inNamespace("kube-system")
        .withName(pod)
        .subresource("status")
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"status\":{\"phase\":\"" + phase + "\"}}");
  }

  private static List<LiveDoctor.Observation> diagnose(KubernetesClient admin) {
    return new LiveDoctor(admin, Duration.ZERO, "kube-system", "cloud-controller-manager")
        .diagnose();
  }

  @Test
  void explainsACcmPodThatIsBoundButWaitsForThePodNetwork(KubernetesClient admin) {
    String pod = "ccm-net-" + UUID.randomUUID().toString().substring(0, 6);
    boundPod(admin, pod, false, "run", "--cloud-provider=sim");
    try {
      List<LiveDoctor.Observation> observations = diagnose(admin);

      assertThat(observations)
          .anySatisfy(
              o -> {
                assertThat(o.severity()).isEqualTo(Rule.Severity.ERROR);
                assertThat(o.what())
                    .isEqualTo(
                        "cloud-controller-manager pod kube-system/%s is bound to node-of-%s but has not started"
                            .formatted(pod, pod));
                assertThat(o.detail()).contains("no hostNetwork");
              });
      assertThat(observations)
          .anySatisfy(
              o ->
                  assertThat(o.what())
                      .isEqualTo(
                          "deadlock: the cloud-controller-manager waits for the pod network, which waits for it"));
    } finally {
      admin.pods().inNamespace("kube-system").withName(pod).withGracePeriod(0).delete();
    }
  }

  @Test
  void theLeaseIsTheOneThePodsFlagsName(KubernetesClient admin) {
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    String pod = "ccm-lease-" + suffix;
    boundPod(
        admin,
        pod,
        true,
        "run",
        "--cloud-provider=sim",
        "--leader-elect-resource-name",
        "lease-" + suffix,
        "--leader-elect-resource-namespace=default");
    setPhase(admin, pod, "Running");
    try {
      assertThat(diagnose(admin))
          .anySatisfy(
              o -> {
                assertThat(o.severity()).isEqualTo(Rule.Severity.ERROR);
                assertThat(o.what()).isEqualTo("no leader Lease default/lease-" + suffix);
              });
    } finally {
      admin.pods().inNamespace("kube-system").withName(pod).withGracePeriod(0).delete();
    }
  }

  @Test
  void onlyRunningPodsWithoutLeaderElectionCount(KubernetesClient admin) {
    String suffix = UUID.randomUUID().toString().substring(0, 6);
    List<String> pods = List.of("ccm-a-" + suffix, "ccm-b-" + suffix, "ccm-c-" + suffix);
    String lease = "--leader-elect-resource-name=no-election-" + suffix;
    boundPod(
        admin, pods.get(0), true, "run", "--cloud-provider=sim", lease, "--leader-elect=false");
    boundPod(admin, pods.get(1), true, "run", "--cloud-provider=sim", lease, "--leader-elect=0");
    boundPod(admin, pods.get(2), true, "run", "--cloud-provider=sim", lease, "--leader-elect=F");
    setPhase(admin, pods.get(0), "Running");
    setPhase(admin, pods.get(1), "Failed");
    setPhase(admin, pods.get(2), "Running");
    try {
      assertThat(diagnose(admin))
          .anySatisfy(
              o ->
                  assertThat(o.what())
                      .isEqualTo("2 cloud-controller-manager pods run without leader election"));
      setPhase(admin, pods.get(2), "Succeeded");
      assertThat(diagnose(admin))
          .noneSatisfy(o -> assertThat(o.what()).endsWith("pods run without leader election"));
    } finally {
      pods.forEach(
          p -> admin.pods().inNamespace("kube-system").withName(p).withGracePeriod(0).delete());
    }
  }
}
