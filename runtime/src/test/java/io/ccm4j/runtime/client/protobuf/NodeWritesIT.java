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
 * The node controller's writes against a real API server, in protobuf and in JSON: an update's
 * answer is the written Node (projected in protobuf), every field of an update arrives, a status
 * patch writes, and a conflict is a 409 either way.
 */
@WithControlPlane
class NodeWritesIT {

  @ParameterizedTest
  @EnumSource(KubeApiContentType.class)
  void anUpdateAnswersWithTheWrittenNodeAndAStatusPatchWrites(
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

      writes.patchStatus(
          name,
          PatchType.JSON_MERGE,
          "{\"status\":{\"addresses\":[{\"type\":\"InternalIP\",\"address\":\"10.9.9.9\"}]}}");

      Node patched = client.nodes().withName(name).get();
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

  /**
   * Every metadata and spec field an update carries reaches the API server in the update's protobuf
   * body as in JSON. The API server refuses an update that drops a spec field it stored
   * (externalID, podCIDRs), so a field the body left out would fail the update, not pass unseen.
   */
  @ParameterizedTest
  @EnumSource(KubeApiContentType.class)
  void anUpdateKeepsEveryMetadataAndSpecField(
      KubeApiContentType contentType, KubernetesClient client) {
    String name = "writes-all-" + contentType.name().toLowerCase();
    Node created =
        client
            .nodes()
            .resource(
                new NodeBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .addToLabels("kubernetes.io/hostname", name)
                    .endMetadata()
                    .withNewSpec()
                    .withExternalID("i-0abc")
                    .withPodCIDR("10.244.7.0/24")
                    .withPodCIDRs("10.244.7.0/24", "fd00:7::/64")
                    .addNewTaint()
                    .withKey("node.cloudprovider.kubernetes.io/uninitialized")
                    .withValue("true")
                    .withEffect("NoSchedule")
                    .endTaint()
                    .endSpec()
                    .build())
            .create();
    // The informer's cached Node in the manager's format: projected in protobuf.
    Node cached =
        contentType == KubeApiContentType.PROTOBUF
            ? ProtobufNodeInformerIT.projected(created)
            : created;
    Node changed =
        new NodeBuilder(cached)
            .editMetadata()
            .withManagedFields()
            .addToLabels("topology.kubernetes.io/zone", "zone-a")
            .addToAnnotations("example.com/note", "kept")
            .addNewOwnerReference()
            .withApiVersion("cluster.x-k8s.io/v1beta1")
            .withKind("Machine")
            .withName("m-1")
            .withUid("5c2b7a0e-0000-4000-8000-000000000001")
            .withController(true)
            .endOwnerReference()
            .withFinalizers("example.com/keep")
            .endMetadata()
            .editSpec()
            .withProviderID("sim://zone-a/" + name)
            .withUnschedulable(true)
            .withTaints()
            .addNewTaint()
            .withKey("node.kubernetes.io/unreachable")
            .withEffect("NoExecute")
            .withTimeAdded("2026-11-26T18:30:00Z")
            .endTaint()
            .endSpec()
            .build();
    if (contentType == KubeApiContentType.PROTOBUF) {
      assertThat(ProtobufBodies.nodeUpdate(changed)).as("sent in protobuf").isNotNull();
    }
    try {
      new NodeWrites(client, contentType).update(changed);

      Node stored = client.nodes().withName(name).get();
      assertThat(stored.getSpec()).isEqualTo(changed.getSpec());
      assertThat(stored.getMetadata().getLabels()).isEqualTo(changed.getMetadata().getLabels());
      assertThat(stored.getMetadata().getAnnotations())
          .isEqualTo(changed.getMetadata().getAnnotations());
      assertThat(stored.getMetadata().getOwnerReferences())
          .isEqualTo(changed.getMetadata().getOwnerReferences());
      assertThat(stored.getMetadata().getFinalizers()).containsExactly("example.com/keep");
      assertThat(stored.getMetadata().getCreationTimestamp())
          .isEqualTo(created.getMetadata().getCreationTimestamp());
      assertThat(stored.getMetadata().getManagedFields())
          .as("the managed fields the update left out are the stored ones, with the update's")
          .isNotEmpty();
    } finally {
      ProtobufNodeInformerIT.delete(client, name);
    }
  }

  private static Node withoutManagedFields(Node node) {
    node.getMetadata().setManagedFields(java.util.List.of());
    return node;
  }
}
