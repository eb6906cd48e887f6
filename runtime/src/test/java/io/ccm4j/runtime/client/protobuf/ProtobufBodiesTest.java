package io.ccm4j.runtime.client.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Request bodies in protobuf: everything the fabric8 object has, or no protobuf body at all. */
class ProtobufBodiesTest {

  /** A Node with every metadata and spec field the update body carries set. */
  static Node everyField() {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("node-a")
        .withGenerateName("node-")
        .withUid("0b0c3a3e-1111-2222-3333-444455556666")
        .withResourceVersion("4711")
        .withGeneration(3L)
        .withCreationTimestamp("2026-11-26T18:00:00Z")
        .withDeletionTimestamp("2026-11-26T19:00:00Z")
        .withDeletionGracePeriodSeconds(30L)
        .addToLabels("kubernetes.io/hostname", "node-a")
        .addToLabels("topology.kubernetes.io/zone", "zone-a")
        .addToAnnotations("node.alpha.kubernetes.io/ttl", "0")
        .addNewOwnerReference()
        .withApiVersion("cluster.x-k8s.io/v1beta1")
        .withKind("Machine")
        .withName("m-1")
        .withUid("u-1")
        .withController(true)
        .withBlockOwnerDeletion(false)
        .endOwnerReference()
        .withFinalizers("example.com/keep")
        .endMetadata()
        .withNewSpec()
        .withPodCIDR("10.244.7.0/24")
        .withPodCIDRs("10.244.7.0/24", "fd00:7::/64")
        .withProviderID("sim://zone-a/node-a")
        .withUnschedulable(true)
        .addNewTaint()
        .withKey("node.kubernetes.io/unreachable")
        .withEffect("NoExecute")
        .withTimeAdded("2026-11-26T18:30:00Z")
        .endTaint()
        .addNewTaint()
        .withKey("example.com/dedicated")
        .withValue("db")
        .withEffect("NoSchedule")
        .endTaint()
        .withNewConfigSource()
        .withNewConfigMap()
        .withNamespace("kube-system")
        .withName("kubelet-config")
        .withUid("c-1")
        .withResourceVersion("12")
        .withKubeletConfigKey("kubelet")
        .endConfigMap()
        .endConfigSource()
        .withExternalID("i-0abc")
        .endSpec()
        .withNewStatus()
        .addNewAddress("10.0.0.7", "InternalIP")
        .endStatus()
        .build();
  }

  private static V1.Node decoded(byte[] body) throws Exception {
    Runtime.Unknown envelope = ProtobufEnvelope.open(body);
    assertThat(envelope.getTypeMeta().getApiVersion()).isEqualTo("v1");
    assertThat(envelope.getTypeMeta().getKind()).isEqualTo("Node");
    return V1.Node.parseFrom(envelope.getRaw());
  }

  @Test
  void anUpdateCarriesEveryMetadataAndSpecFieldAndNoStatus() throws Exception {
    Node node = everyField();

    V1.Node decoded = decoded(ProtobufBodies.nodeUpdate(node));

    Node read = NodeProjection.node(decoded);
    assertThat(read.getMetadata()).isEqualTo(node.getMetadata());
    assertThat(read.getSpec()).isEqualTo(node.getSpec());
    assertThat(decoded.hasStatus())
        .as("the API server keeps the stored status on an update")
        .isFalse();
  }

  @Test
  void emptyAndAbsentFieldsStayAbsent() throws Exception {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("bare")
            .endMetadata()
            .withNewSpec()
            .endSpec()
            .build();

    V1.Node decoded = decoded(ProtobufBodies.nodeUpdate(node));

    assertThat(decoded.getMetadata().hasCreationTimestamp()).isFalse();
    assertThat(decoded.getMetadata().hasUid()).isFalse();
    assertThat(decoded.getSpec().hasUnschedulable()).isFalse();
    assertThat(decoded.getSpec().hasConfigSource()).isFalse();
    assertThat(decoded.getSpec().getTaintsList()).isEmpty();
  }

  @Test
  void aNodeWithAFieldTheEncodingDoesNotCarryHasNoProtobufBody() {
    Node unknownSpecField = everyField();
    unknownSpecField.getSpec().setAdditionalProperty("newerField", "x");
    Node unknownTaintField = everyField();
    unknownTaintField.getSpec().getTaints().getFirst().setAdditionalProperty("newer", 1);
    Node managedFields =
        new NodeBuilder(everyField())
            .editMetadata()
            .addNewManagedField()
            .withManager("kubelet")
            .endManagedField()
            .endMetadata()
            .build();
    Node nullLabel = everyField();
    nullLabel.getMetadata().getLabels().put("empty", null);
    Node oddTime = everyField();
    oddTime.getMetadata().setCreationTimestamp("yesterday");

    for (Node node :
        new Node[] {unknownSpecField, unknownTaintField, managedFields, nullLabel, oddTime}) {
      assertThat(ProtobufBodies.nodeUpdate(node)).isNull();
    }
  }

  @Test
  void anEventCarriesWhatTheRecorderWrites() throws Exception {
    Event event =
        new EventBuilder()
            .withNewMetadata()
            .withName("node-a.187a")
            .withNamespace("default")
            .endMetadata()
            .withNewInvolvedObject()
            .withApiVersion("v1")
            .withKind("Node")
            .withName("node-a")
            .withUid("u-1")
            .withResourceVersion("4711")
            .endInvolvedObject()
            .withType("Normal")
            .withReason("Synced")
            .withMessage("Node synced successfully")
            .withNewSource()
            .withComponent("cloud-node-controller")
            .withHost("host-1")
            .endSource()
            .withReportingComponent("cloud-node-controller")
            .withReportingInstance("host-1")
            .withFirstTimestamp("2026-11-26T18:00:00Z")
            .withLastTimestamp("2026-11-26T18:00:05Z")
            .withCount(2)
            .build();

    Runtime.Unknown envelope = ProtobufEnvelope.open(ProtobufBodies.eventCreate(event));
    V1.Event decoded = V1.Event.parseFrom(envelope.getRaw());

    assertThat(envelope.getTypeMeta().getKind()).isEqualTo("Event");
    assertThat(decoded.getMetadata().getName()).isEqualTo("node-a.187a");
    assertThat(decoded.getMetadata().getNamespace()).isEqualTo("default");
    assertThat(decoded.getInvolvedObject().getKind()).isEqualTo("Node");
    assertThat(decoded.getInvolvedObject().getApiVersion()).isEqualTo("v1");
    assertThat(decoded.getInvolvedObject().getName()).isEqualTo("node-a");
    assertThat(decoded.getInvolvedObject().getUid()).isEqualTo("u-1");
    assertThat(decoded.getInvolvedObject().getResourceVersion()).isEqualTo("4711");
    assertThat(decoded.getInvolvedObject().hasNamespace()).isFalse();
    assertThat(decoded.getType()).isEqualTo("Normal");
    assertThat(decoded.getReason()).isEqualTo("Synced");
    assertThat(decoded.getMessage()).isEqualTo("Node synced successfully");
    assertThat(decoded.getSource().getComponent()).isEqualTo("cloud-node-controller");
    assertThat(decoded.getSource().getHost()).isEqualTo("host-1");
    assertThat(decoded.getReportingComponent()).isEqualTo("cloud-node-controller");
    assertThat(decoded.getReportingInstance()).isEqualTo("host-1");
    assertThat(decoded.getFirstTimestamp().getSeconds())
        .isEqualTo(Instant.parse("2026-11-26T18:00:00Z").getEpochSecond());
    assertThat(decoded.getLastTimestamp().getSeconds())
        .isEqualTo(Instant.parse("2026-11-26T18:00:05Z").getEpochSecond());
    assertThat(decoded.getCount()).isEqualTo(2);
  }

  @Test
  void anEventWithFieldsTheEncodingDoesNotCarryHasNoProtobufBody() {
    Event withEventTime =
        new EventBuilder()
            .withNewMetadata()
            .withName("e")
            .endMetadata()
            .withEventTime(new MicroTime("2026-11-26T18:00:00.000000Z"))
            .build();

    assertThat(ProtobufBodies.eventCreate(withEventTime)).isNull();
  }

  @Test
  void aCachedNodeHasAProtobufBody() throws Exception {
    // As the informer caches it: projected from what the API server sends.
    Node cached = NodeProjection.node(NodeProjectionTest.kubeletShaped());

    V1.Node decoded = decoded(ProtobufBodies.nodeUpdate(cached));

    Node read = NodeProjection.node(decoded);
    assertThat(read.getMetadata()).isEqualTo(cached.getMetadata());
    assertThat(read.getSpec()).isEqualTo(cached.getSpec());
  }
}
