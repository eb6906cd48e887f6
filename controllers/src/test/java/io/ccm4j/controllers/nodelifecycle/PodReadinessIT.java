package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.controllers.PodNamespaces;
import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Marking a pod not ready (node-lifecycle spec §2.4) writes its Ready condition and nothing else: a
 * condition another writer added after the controller cached the pod (a readiness gate's, say)
 * survives the write.
 */
@WithControlPlane
class PodReadinessIT {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static PodCondition condition(String type, String status) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withLastTransitionTime("2025-12-31T00:00:00Z")
        .build();
  }

  @BeforeEach
  void theNamespacesDefaultServiceAccount(KubernetesClient client) {
    PodNamespaces.defaultServiceAccount(client, "default");
  }

  @Test
  void aConditionWrittenSinceThePodWasCachedIsKept(KubernetesClient client) {
    Pod created =
        client
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName("ready-" + UUID.randomUUID().toString().substring(0, 8))
                    .withNamespace("default")
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName("silent-node")
                    .withAutomountServiceAccountToken(false)
                    .addNewContainer()
                    .withName("app")
                    .withImage("busybox")
                    .endContainer()
                    .addNewReadinessGate("example.com/load-balancer-ready")
                    .endSpec()
                    .build())
            .create();

    if (created.getStatus() == null) {
      created.setStatus(new PodStatus());
    }
    created
        .getStatus()
        .setConditions(List.of(condition("PodScheduled", "True"), condition("Ready", "True")));
    Pod cached = client.resource(created).updateStatus();
    // Another writer (a load balancer controller's readiness gate) adds its condition afterwards.
    Pod newer = client.pods().inNamespace("default").withName(cached.getMetadata().getName()).get();
    List<PodCondition> withGate = new ArrayList<>(newer.getStatus().getConditions());
    withGate.add(condition("example.com/load-balancer-ready", "True"));
    newer.getStatus().setConditions(withGate);
    client.resource(newer).updateStatus();

    List<String> recorded = new ArrayList<>();
    PodReadiness readiness =
        new PodReadiness(
            client,
            null,
            new EventRecorder() {
              @Override
              public void normal(HasMetadata object, String reason, String message) {
                recorded.add("Normal " + reason);
              }

              @Override
              public void warning(HasMetadata object, String reason, String message) {
                recorded.add("Warning " + reason + " " + message);
              }
            },
            InstantSource.fixed(NOW),
            new NodeHealthTable());

    try {
      assertThat(readiness.markPodNotReady(cached)).isTrue();

      Map<String, String> conditions =
          client
              .pods()
              .inNamespace("default")
              .withName(cached.getMetadata().getName())
              .get()
              .getStatus()
              .getConditions()
              .stream()
              .collect(Collectors.toMap(PodCondition::getType, PodCondition::getStatus));
      assertThat(conditions)
          .containsEntry("Ready", "False")
          .containsEntry("PodScheduled", "True")
          .containsEntry("example.com/load-balancer-ready", "True");
      assertThat(recorded).containsExactly("Warning NodeNotReady Node is not ready");
    } finally {
      client.resource(cached).withGracePeriod(0).delete();
    }
  }
}
