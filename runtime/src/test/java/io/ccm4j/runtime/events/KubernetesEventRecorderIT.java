package io.ccm4j.runtime.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The event recorder writes real Events, in protobuf and in JSON alike, and counts repeats instead
 * of piling them up.
 */
@WithControlPlane
class KubernetesEventRecorderIT {

  @ParameterizedTest
  @EnumSource(KubeApiContentType.class)
  void writesEventsAboutClusterScopedObjectsAndAggregatesRepeats(
      KubeApiContentType contentType, KubernetesClient client) throws Exception {
    String name = "events-it-" + contentType.name().toLowerCase();
    Node node = node(client, name);

    try (KubernetesEventRecorder recorder =
        new KubernetesEventRecorder(client, "cloud-node-controller", contentType)) {
      recorder.normal(node, "Synced", "Node synced successfully");
      recorder.normal(node, "Synced", "Node synced successfully");
      recorder.warning(node, "DeletingNodeFailed", "Failed deleting node " + name + ": boom");
    }

    await()
        .atMost(10, TimeUnit.SECONDS)
        .untilAsserted(
            () -> {
              List<Event> events =
                  client.v1().events().inNamespace("default").list().getItems().stream()
                      .filter(e -> name.equals(e.getInvolvedObject().getName()))
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
              // Upstream's recorders have a component alone: no host, no reporting instance.
              assertThat(synced.getSource().getHost()).isNullOrEmpty();
              assertThat(synced.getReportingComponent()).isEqualTo("cloud-node-controller");
              assertThat(synced.getReportingInstance()).isNullOrEmpty();
              assertThat(synced.getMetadata().getName()).startsWith(name + ".");
              assertThat(synced.getFirstTimestamp()).isNotNull();
              assertThat(Instant.parse(synced.getLastTimestamp()))
                  .isAfterOrEqualTo(Instant.parse(synced.getFirstTimestamp()));
              assertThat(synced.getInvolvedObject().getKind()).isEqualTo("Node");
              assertThat(synced.getInvolvedObject().getApiVersion()).isEqualTo("v1");
              assertThat(synced.getInvolvedObject().getUid())
                  .isEqualTo(node.getMetadata().getUid());
              assertThat(synced.getInvolvedObject().getResourceVersion())
                  .isEqualTo(node.getMetadata().getResourceVersion());
              Event failed =
                  events.stream()
                      .filter(e -> "DeletingNodeFailed".equals(e.getReason()))
                      .findFirst()
                      .orElseThrow();
              assertThat(failed.getType()).isEqualTo("Warning");
              assertThat(failed.getMessage()).isEqualTo("Failed deleting node " + name + ": boom");
            });
  }

  @ParameterizedTest
  @EnumSource(KubeApiContentType.class)
  void anExpiredEventIsWrittenAgainWithItsCountAndFirstTime(
      KubeApiContentType contentType, KubernetesClient client) throws Exception {
    String name = "events-expired-" + contentType.name().toLowerCase();
    Node node = node(client, name);
    try (KubernetesEventRecorder recorder =
        new KubernetesEventRecorder(client, "cloud-node-controller", contentType)) {
      recorder.normal(node, "Synced", "Node synced successfully");
      recorder.normal(node, "Synced", "Node synced successfully");
      Event first =
          await()
              .atMost(10, TimeUnit.SECONDS)
              .until(() -> synced(client, name), e -> e != null && e.getCount() == 2);

      // Events have a TTL (1 h by default): the API server deletes them.
      client.v1().events().inNamespace("default").withName(first.getMetadata().getName()).delete();
      await().atMost(10, TimeUnit.SECONDS).until(() -> synced(client, name) == null);
      Thread.sleep(1100); // so that a restarted first time would show
      recorder.normal(node, "Synced", "Node synced successfully");

      Event again =
          await().atMost(10, TimeUnit.SECONDS).until(() -> synced(client, name), e -> e != null);
      assertThat(again.getCount()).isEqualTo(3);
      assertThat(again.getFirstTimestamp()).isEqualTo(first.getFirstTimestamp());
      assertThat(again.getLastTimestamp()).isNotEqualTo(first.getFirstTimestamp());
      assertThat(again.getMetadata().getName()).isEqualTo(first.getMetadata().getName());
    }
  }

  /**
   * One writer, as upstream's broadcaster has one sink: events about different objects reach the
   * API server in the order they were recorded (each write's resourceVersion follows the one
   * before).
   */
  @ParameterizedTest
  @EnumSource(KubeApiContentType.class)
  void writesEventsOneAtATimeInTheOrderTheyWereRecorded(
      KubeApiContentType contentType, KubernetesClient client) throws Exception {
    String prefix = "events-order-" + contentType.name().toLowerCase() + "-";
    List<Node> nodes =
        IntStream.range(0, 24)
            .mapToObj(
                i ->
                    client
                        .nodes()
                        .resource(
                            new NodeBuilder()
                                .withNewMetadata()
                                .withName(prefix + i)
                                .endMetadata()
                                .build())
                        .create())
            .toList();
    try (KubernetesEventRecorder recorder =
        new KubernetesEventRecorder(client, "cloud-node-controller", contentType)) {
      nodes.forEach(node -> recorder.normal(node, "Synced", "Node synced successfully"));
    }

    List<Event> written =
        await()
            .atMost(10, TimeUnit.SECONDS)
            .until(
                () ->
                    client.v1().events().inNamespace("default").list().getItems().stream()
                        .filter(e -> e.getInvolvedObject().getName().startsWith(prefix))
                        .sorted(
                            Comparator.comparingLong(
                                e -> Long.parseLong(e.getMetadata().getResourceVersion())))
                        .toList(),
                events -> events.size() == nodes.size());
    assertThat(written)
        .extracting(e -> e.getInvolvedObject().getName())
        .containsExactlyElementsOf(nodes.stream().map(n -> n.getMetadata().getName()).toList());
  }

  /**
   * client-go's correlator: a warning whose message changes on every try (a route creation that
   * failed "after 1.2ms") is ten Events at most, the tenth on combining the rest, not one per try.
   */
  @ParameterizedTest
  @EnumSource(KubeApiContentType.class)
  void similarEventsWithTenMessagesAreCombinedIntoOne(
      KubeApiContentType contentType, KubernetesClient client) throws Exception {
    String name = "events-similar-" + contentType.name().toLowerCase();
    Node node = node(client, name);
    try (KubernetesEventRecorder recorder =
        new KubernetesEventRecorder(client, "route_controller", contentType)) {
      for (int i = 1; i <= 12; i++) {
        recorder.warning(node, "FailedToCreateRoute", "Could not create route after " + i + "ms");
      }
    }

    List<Event> events =
        await()
            .atMost(10, TimeUnit.SECONDS)
            .until(
                () -> eventsAbout(client, name),
                list ->
                    list.stream()
                        .anyMatch(
                            e -> e.getMessage().startsWith("(combined") && e.getCount() == 3));
    assertThat(events).hasSize(10);
    assertThat(events)
        .filteredOn(e -> e.getMessage().startsWith("(combined"))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .isEqualTo(
                        "(combined from similar events): Could not create route after 12ms"));
    assertThat(events)
        .filteredOn(e -> !e.getMessage().startsWith("(combined"))
        .extracting(Event::getMessage)
        .containsExactlyInAnyOrderElementsOf(
            IntStream.rangeClosed(1, 9)
                .mapToObj(i -> "Could not create route after " + i + "ms")
                .toList());
  }

  /** client-go's spam filter: an object's events of one type pass a bucket of 25. */
  @ParameterizedTest
  @EnumSource(KubeApiContentType.class)
  void anObjectsEventsOfOneTypePassABucketOf25(
      KubeApiContentType contentType, KubernetesClient client) throws Exception {
    String name = "events-spam-" + contentType.name().toLowerCase();
    Node node = node(client, name);
    try (KubernetesEventRecorder recorder =
        new KubernetesEventRecorder(client, "cloud-node-controller", contentType)) {
      for (int i = 0; i < 30; i++) {
        recorder.normal(node, "Reason" + i, "the same message");
      }
      recorder.warning(node, "Other", "a warning has its own bucket");
    }

    await()
        .atMost(10, TimeUnit.SECONDS)
        .until(() -> eventsAbout(client, name), list -> list.size() >= 26);
    List<Event> events =
        await() // and nothing more arrives
            .during(Duration.ofMillis(500))
            .atMost(5, TimeUnit.SECONDS)
            .until(() -> eventsAbout(client, name), list -> list.size() == 26);
    assertThat(events)
        .filteredOn(e -> "Normal".equals(e.getType()))
        .extracting(Event::getReason)
        .containsExactlyInAnyOrderElementsOf(
            IntStream.range(0, 25).mapToObj(i -> "Reason" + i).toList());
  }

  private static List<Event> eventsAbout(KubernetesClient client, String node) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> node.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  private static Event synced(KubernetesClient client, String node) {
    return client.v1().events().inNamespace("default").list().getItems().stream()
        .filter(e -> node.equals(e.getInvolvedObject().getName()))
        .filter(e -> "Synced".equals(e.getReason()))
        .findFirst()
        .orElse(null);
  }

  /** A Node of that name, the events' object. */
  private static Node node(KubernetesClient client, String name) {
    return client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
  }
}
