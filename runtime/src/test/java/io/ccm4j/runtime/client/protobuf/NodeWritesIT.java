package io.ccm4j.runtime.client.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.controlplane.junit.WithControlPlane;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The node controller's writes against a real API server, answered in protobuf and in JSON: the
 * same Node comes back (projected in protobuf), and a conflict is a 409 either way.
 */
@WithControlPlane
class NodeWritesIT {

  @ParameterizedTest
  @EnumSource(KubeApiContentType.class)
  void anUpdateAndAStatusPatchAnswerWithTheWrittenNode(
      KubeApiContentType contentType, KubernetesClient client) {
    String name = "writes-" + contentType.name().toLowerCase();
    Node created = ProtobufNodeInformerIT.createKubeletShaped(client, name);
    NodeWrites writes = new NodeWrites(client, contentType);
    try {
      Node changed =
          new NodeBuilder(created)
              .editMetadata()
              .withManagedFields()
              .addToLabels("node.kubernetes.io/instance-type", "sim.small")
              .endMetadata()
              .editSpec()
              .withUnschedulable(true)
              .withTaints()
              .endSpec()
              .build();

      Node updated = writes.update(changed);

      assertThat(updated.getSpec().getUnschedulable()).isTrue();
      assertThat(updated.getSpec().getTaints()).isEmpty();
      assertThat(updated.getMetadata().getLabels())
          .containsEntry("node.kubernetes.io/instance-type", "sim.small");
      assertThat(updated.getMetadata().getResourceVersion())
          .isNotEqualTo(created.getMetadata().getResourceVersion());
      assertThat(updated.getStatus().getAddresses())
          .as("the stored status: an update of the Node leaves it as it is")
          .isEqualTo(created.getStatus().getAddresses());
      Node stored = client.nodes().withName(name).get();
      if (contentType == KubeApiContentType.PROTOBUF) {
        assertThat(updated)
            .as("the API server's answer as the informer reads it")
            .isEqualTo(ProtobufNodeInformerIT.projected(stored));
      } else {
        assertThat(withoutManagedFields(updated)).isEqualTo(withoutManagedFields(stored));
      }

      Node patched =
          writes.patchStatus(
              name,
              PatchType.JSON_MERGE,
              "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.9.9.9\"}]}}");

      assertThat(patched.getStatus().getAddresses())
          .extracting(address -> address.getType() + "=" + address.getAddress())
          .containsExactly("InternalIP=10.9.9.9");
      assertThat(patched.getSpec().getUnschedulable()).isTrue();

      assertThatThrownBy(() -> writes.update(changed))
          .as("an update from a stale resourceVersion")
          .isInstanceOfSatisfying(
              KubernetesClientException.class,
              e -> {
                assertThat(e.getCode()).isEqualTo(409);
                assertThat(e.getStatus().getReason()).isEqualTo("Conflict");
                assertThat(e.getMessage()).contains(name);
              });
      assertThatThrownBy(() -> writes.patchStatus("writes-absent", PatchType.JSON_MERGE, "{}"))
          .isInstanceOfSatisfying(
              KubernetesClientException.class, e -> assertThat(e.getCode()).isEqualTo(404));
    } finally {
      ProtobufNodeInformerIT.delete(client, name);
    }
  }

  private static Node withoutManagedFields(Node node) {
    node.getMetadata().setManagedFields(java.util.List.of());
    return node;
  }
}
