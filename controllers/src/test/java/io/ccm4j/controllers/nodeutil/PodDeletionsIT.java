package io.ccm4j.controllers.nodeutil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controllers.PodNamespaces;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An eviction deletes the pod it was decided for: a pod created since under the same name (a
 * StatefulSet's, say) is left alone, which a deletion by name would not do.
 */
@WithControlPlane
class PodDeletionsIT {

  private static Pod pod(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("default")
        .endMetadata()
        .withNewSpec()
        // No token: nothing runs kube-controller-manager's token controller here.
        .withAutomountServiceAccountToken(false)
        .withTerminationGracePeriodSeconds(0L)
        .addNewContainer()
        .withName("app")
        .withImage("busybox")
        .endContainer()
        .endSpec()
        .build();
  }

  @BeforeEach
  void theNamespacesDefaultServiceAccount(KubernetesClient client) {
    PodNamespaces.defaultServiceAccount(client, "default");
  }

  @Test
  void thePodItselfIsDeleted(KubernetesClient client) {
    Pod created =
        client.resource(pod("evict-" + UUID.randomUUID().toString().substring(0, 8))).create();

    assertThat(PodDeletions.deleteExactly(client, created)).isEqualTo(PodDeletions.Outcome.DELETED);
    await().atMost(10, TimeUnit.SECONDS).until(() -> client.resource(created).get() == null);
    assertThat(PodDeletions.deleteExactly(client, created)).isEqualTo(PodDeletions.Outcome.GONE);
  }

  @Test
  void aWriteToThePodBetweenItsConditionAndTheDeletionDoesNotFailIt(KubernetesClient client) {
    Pod created =
        client.resource(pod("evict-" + UUID.randomUUID().toString().substring(0, 8))).create();

    PodDeletions.Outcome outcome =
        PodDeletions.deleteExactly(
            client,
            created,
            current -> {
              PodStatusPatches.patchCondition(
                  client,
                  current,
                  new PodConditionBuilder()
                      .withType("DisruptionTarget")
                      .withStatus("True")
                      .withReason("DeletionByTaintManager")
                      .build());
              // Another writer (the kubelet's status, a readiness gate's controller) meanwhile.
              PodStatusPatches.patchCondition(
                  client,
                  current,
                  new PodConditionBuilder()
                      .withType("example.com/Gate")
                      .withStatus("True")
                      .build());
            });

    assertThat(outcome).isEqualTo(PodDeletions.Outcome.DELETED);
    await().atMost(10, TimeUnit.SECONDS).until(() -> client.resource(created).get() == null);
  }

  @Test
  void aPodReplacedBetweenTheReadAndTheDeletionIsLeftAlone(KubernetesClient client) {
    String name = "evict-" + UUID.randomUUID().toString().substring(0, 8);
    Pod decidedFor = client.resource(pod(name)).create();
    Pod[] successor = {null};

    try {
      PodDeletions.Outcome outcome =
          PodDeletions.deleteExactly(
              client,
              decidedFor,
              current -> {
                client.resource(current).withGracePeriod(0).delete();
                await()
                    .atMost(10, TimeUnit.SECONDS)
                    .until(() -> client.pods().inNamespace("default").withName(name).get() == null);
                successor[0] = client.resource(pod(name)).create();
              });

      assertThat(outcome).isEqualTo(PodDeletions.Outcome.REPLACED);
      Pod current = client.pods().inNamespace("default").withName(name).get();
      assertThat(current.getMetadata().getUid()).isEqualTo(successor[0].getMetadata().getUid());
      assertThat(current.getMetadata().getDeletionTimestamp()).isNull();
    } finally {
      if (successor[0] != null) {
        client.resource(successor[0]).withGracePeriod(0).delete();
      }
    }
  }

  @Test
  void aPodCreatedSinceUnderItsNameIsLeftAlone(KubernetesClient client) {
    String name = "evict-" + UUID.randomUUID().toString().substring(0, 8);
    Pod decidedFor = client.resource(pod(name)).create();
    client.resource(decidedFor).withGracePeriod(0).delete();
    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> client.pods().inNamespace("default").withName(name).get() == null);
    Pod successor = client.resource(pod(name)).create();

    try {
      assertThat(PodDeletions.deleteExactly(client, decidedFor))
          .isEqualTo(PodDeletions.Outcome.REPLACED);
      Pod current = client.pods().inNamespace("default").withName(name).get();
      assertThat(current).isNotNull();
      assertThat(current.getMetadata().getUid()).isEqualTo(successor.getMetadata().getUid());
      assertThat(current.getMetadata().getDeletionTimestamp()).isNull();
    } finally {
      client.resource(successor).withGracePeriod(0).delete();
    }
  }
}
