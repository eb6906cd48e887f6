package io.ccm4j.runtime.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.junit.WithControlPlane;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The event recorder writes real Events, and counts repeats instead of piling them up. */
@WithControlPlane
class KubernetesEventRecorderIT {

  @Test
  void writesEventsAboutClusterScopedObjectsAndAggregatesRepeats(KubernetesClient client)
      throws Exception {
    Node node =
        client
            .nodes()
            .resource(
                new NodeBuilder().withNewMetadata().withName("events-it").endMetadata().build())
            .create();

    try (KubernetesEventRecorder recorder =
        new KubernetesEventRecorder(client, "cloud-node-controller", "test-host")) {
      recorder.normal(node, "Synced", "Node synced successfully");
      recorder.normal(node, "Synced", "Node synced successfully");
      recorder.warning(node, "DeletingNodeFailed", "Failed deleting node events-it: boom");
    }

    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () -> {
              List<Event> events =
                  client.v1().events().inNamespace("default").list().getItems().stream()
                      .filter(e -> "events-it".equals(e.getInvolvedObject().getName()))
                      .toList();
              assertThat(events).hasSize(2);
              Event synced =
                  events.stream()
                      .filter(e -> "Synced".equals(e.getReason()))
                      .findFirst()
                      .orElseThrow();
              assertThat(synced.getType()).isEqualTo("Normal");
              assertThat(synced.getCount()).isEqualTo(2);
              assertThat(synced.getSource().getComponent()).isEqualTo("cloud-node-controller");
              assertThat(synced.getInvolvedObject().getKind()).isEqualTo("Node");
              assertThat(synced.getInvolvedObject().getUid())
                  .isEqualTo(node.getMetadata().getUid());
              Event failed =
                  events.stream()
                      .filter(e -> "DeletingNodeFailed".equals(e.getReason()))
                      .findFirst()
                      .orElseThrow();
              assertThat(failed.getType()).isEqualTo("Warning");
              assertThat(failed.getMessage()).isEqualTo("Failed deleting node events-it: boom");
            });
  }

  @Test
  void anExpiredEventIsWrittenAgainWithItsCountAndFirstTime(KubernetesClient client)
      throws Exception {
    Node node =
        client
            .nodes()
            .resource(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName("events-expired")
                    .endMetadata()
                    .build())
            .create();
    try (KubernetesEventRecorder recorder =
        new KubernetesEventRecorder(client, "cloud-node-controller", "test-host")) {
      recorder.normal(node, "Synced", "Node synced successfully");
      recorder.normal(node, "Synced", "Node synced successfully");
      Event first =
          await()
              .atMost(10, TimeUnit.SECONDS)
              .until(() -> synced(client), e -> e != null && e.getCount() == 2);

      // Events have a TTL (1 h by default): the API server deletes them.
      client.v1().events().inNamespace("default").withName(first.getMetadata().getName()).delete();
      await().atMost(10, TimeUnit.SECONDS).until(() -> synced(client) == null);
      Thread.sleep(1100); // so that a restarted first time would show
      recorder.normal(node, "Synced", "Node synced successfully");

      Event again =
          await().atMost(10, TimeUnit.SECONDS).until(() -> synced(client), e -> e != null);
      assertThat(again.getCount()).isEqualTo(3);
      assertThat(again.getFirstTimestamp()).isEqualTo(first.getFirstTimestamp());
      assertThat(again.getLastTimestamp()).isNotEqualTo(first.getFirstTimestamp());
      assertThat(again.getMetadata().getName()).isEqualTo(first.getMetadata().getName());
    }
  }

  private static Event synced(KubernetesClient client) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> "events-expired".equals(e.getInvolvedObject().getName()))
        .filter(e -> "Synced".equals(e.getReason()))
        .findFirst()
        .orElse(null);
  }
}
