package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class KubeClientsTest {

  private static final String NODE_WITH_MANAGED_FIELDS =
      """
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","resourceVersion":"7",
        "labels":{"topology.kubernetes.io/zone":"z1"},
        "managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1",
          "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{}}}}}]},
       "spec":{"providerID":"sim://n1"}}
      """;

  @Test
  void theSerializationReadsObjectsWithoutManagedFieldsAndKeepsTheRest() {
    Node node = KubeClients.SERIALIZATION.unmarshal(NODE_WITH_MANAGED_FIELDS, Node.class);

    assertThat(node.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(node.getMetadata().getAdditionalProperties()).doesNotContainKey("managedFields");
    assertThat(node.getMetadata().getName()).isEqualTo("n1");
    assertThat(node.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(node.getMetadata().getLabels()).containsEntry("topology.kubernetes.io/zone", "z1");
    assertThat(node.getSpec().getProviderID()).isEqualTo("sim://n1");
  }

  @Test
  void theSerializationWritesObjectsWithoutManagedFieldsSoTheServerKeepsItsOwn() {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n1")
            .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubelet").build())
            .endMetadata()
            .build();

    String json = KubeClients.SERIALIZATION.asJson(node);

    assertThat(json).contains("\"name\":\"n1\"").doesNotContain("managedFields", "kubelet");
  }

  @Test
  void aRequestThatWaitedInTheThrottlePastTheFenceIsNotSent() throws Exception {
    int closedPort;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = probe.getLocalPort();
    }
    Fence fence = new Fence();
    try (KubernetesClient client =
        KubeClients.create(
            new ConfigBuilder()
                .withMasterUrl("https://127.0.0.1:" + closedPort)
                .withRequestRetryBackoffLimit(0)
                .build(),
            KubeClients.USER_AGENT,
            1,
            1,
            fence,
            null)) {
      // The burst's one token: sent (nothing listens, so it fails to connect).
      assertThatThrownBy(() -> client.namespaces().list())
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageNotContaining("not sent")
          .satisfies(failed -> assertThat(Fence.refused(failed)).isFalse());
      CompletableFuture<Throwable> waiting =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  client.namespaces().list();
                  return null;
                } catch (KubernetesClientException e) {
                  return e;
                }
              });
      await().pollDelay(Duration.ofMillis(200)).until(() -> !waiting.isDone());

      fence.close(); // while the second request waits about a second for its token

      Throwable refused = waiting.get(10, TimeUnit.SECONDS);
      assertThat(refused)
          .isInstanceOf(KubernetesClientException.class)
          .hasMessageContaining("not sent: this instance no longer leads (GET /api/v1/namespaces)");
      assertThat(Fence.refused(refused)).as("told apart from a failed request").isTrue();
    }
  }
}
