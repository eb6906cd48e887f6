package io.ccm4j.runtime.client.protobuf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Resource;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A kubelet-shaped Node in protobuf, as the API server writes it, read as the controllers see it.
 */
class NodeProjectionTest {

  private static final long T0 = Instant.parse("2026-11-26T18:00:00Z").getEpochSecond();

  /** The Node as the API server would send it, read as the controllers see it. */
  private static Node projected(V1.Node node) throws InvalidProtocolBufferException {
    return ProtobufObjects.node(ProtobufEnvelope.seal("v1", "Node", node.toByteString()));
  }

  private static Meta.Time time(long seconds) {
    return Meta.Time.newBuilder().setSeconds(seconds).setNanos(0).build();
  }

  /** As the API server marshals it: Go strings, bools and times always present, empty or zero. */
  static V1.Node kubeletShaped() {
    return V1.Node.newBuilder()
        .setMetadata(
            Meta.ObjectMeta.newBuilder()
                .setName("node-a")
                .setGenerateName("")
                .setNamespace("")
                .setSelfLink("")
                .setUid("0b0c3a3e-1111-2222-3333-444455556666")
                .setResourceVersion("4711")
                .setGeneration(0)
                .setCreationTimestamp(time(T0))
                .putLabels("kubernetes.io/hostname", "node-a")
                .putLabels("topology.kubernetes.io/zone", "zone-a")
                .putAnnotations("node.alpha.kubernetes.io/ttl", "0")
                .addOwnerReferences(
                    Meta.OwnerReference.newBuilder()
                        .setApiVersion("v1")
                        .setKind("Machine")
                        .setName("m-1")
                        .setUid("u-1")
                        .setController(true))
                .addFinalizers("example.com/keep")
                .addManagedFields(
                    Meta.ManagedFieldsEntry.newBuilder()
                        .setManager("kubelet")
                        .setOperation("Update")
                        .setApiVersion("v1")))
        .setSpec(
            V1.NodeSpec.newBuilder()
                .setPodCIDR("10.244.1.0/24")
                .addPodCIDRs("10.244.1.0/24")
                .addPodCIDRs("fd00:10:244:1::/64")
                .setProviderID("")
                .setUnschedulable(false)
                .setExternalID("i-legacy")
                .setConfigSource(
                    V1.NodeConfigSource.newBuilder()
                        .setConfigMap(
                            V1.ConfigMapNodeConfigSource.newBuilder()
                                .setNamespace("kube-system")
                                .setName("kubelet-config")
                                .setKubeletConfigKey("kubelet")
                                .setResourceVersion("")
                                .setUid("")))
                .addTaints(
                    V1.Taint.newBuilder()
                        .setKey("node.cloudprovider.kubernetes.io/uninitialized")
                        .setValue("true")
                        .setEffect("NoSchedule"))
                .addTaints(
                    V1.Taint.newBuilder()
                        .setKey("node.kubernetes.io/unreachable")
                        .setValue("")
                        .setEffect("NoExecute")
                        .setTimeAdded(time(T0 + 60))))
        .setStatus(
            V1.NodeStatus.newBuilder()
                .putCapacity("cpu", Resource.Quantity.newBuilder().setString("2").build())
                .putCapacity(
                    "memory", Resource.Quantity.newBuilder().setString("8025288Ki").build())
                .putAllocatable("cpu", Resource.Quantity.newBuilder().setString("1900m").build())
                .setPhase("")
                .addConditions(
                    V1.NodeCondition.newBuilder()
                        .setType("Ready")
                        .setStatus("True")
                        .setLastHeartbeatTime(time(T0 + 600))
                        .setLastTransitionTime(time(T0 + 5))
                        .setReason("KubeletReady")
                        .setMessage("kubelet is posting ready status"))
                .addConditions(
                    V1.NodeCondition.newBuilder()
                        .setType("NetworkUnavailable")
                        .setStatus("False")
                        .setLastHeartbeatTime(time(-62135596800L))
                        .setLastTransitionTime(time(T0))
                        .setReason("")
                        .setMessage(""))
                .addAddresses(
                    V1.NodeAddress.newBuilder().setType("InternalIP").setAddress("10.0.0.7"))
                .addAddresses(V1.NodeAddress.newBuilder().setType("Hostname").setAddress("node-a"))
                .setDaemonEndpoints(
                    V1.NodeDaemonEndpoints.newBuilder()
                        .setKubeletEndpoint(V1.DaemonEndpoint.newBuilder().setPort(10250)))
                .setNodeInfo(
                    V1.NodeSystemInfo.newBuilder()
                        .setMachineID("m")
                        .setSystemUUID("s")
                        .setBootID("b")
                        .setKernelVersion("6.8.0")
                        .setOsImage("Ubuntu 24.04.1 LTS")
                        .setContainerRuntimeVersion("containerd://1.7.24")
                        .setKubeletVersion("v1.37.2")
                        .setKubeProxyVersion("")
                        .setOperatingSystem("linux")
                        .setArchitecture("amd64"))
                .addImages(
                    V1.ContainerImage.newBuilder()
                        .addNames("registry.k8s.io/pause:3.10")
                        .setSizeBytes(320000))
                .addVolumesInUse("kubernetes.io/csi/ebs^vol-1")
                .addVolumesAttached(
                    V1.AttachedVolume.newBuilder()
                        .setName("kubernetes.io/csi/ebs^vol-1")
                        .setDevicePath("")))
        .build();
  }

  @Test
  void keepsWhatControllersReadAsJsonReadsIt() throws Exception {
    Node node = projected(kubeletShaped());

    assertThat(node.getApiVersion()).isEqualTo("v1");
    assertThat(node.getKind()).isEqualTo("Node");
    assertThat(node.getMetadata().getName()).isEqualTo("node-a");
    assertThat(node.getMetadata().getUid()).isEqualTo("0b0c3a3e-1111-2222-3333-444455556666");
    assertThat(node.getMetadata().getResourceVersion()).isEqualTo("4711");
    assertThat(node.getMetadata().getCreationTimestamp()).isEqualTo("2026-11-26T18:00:00Z");
    assertThat(node.getMetadata().getDeletionTimestamp()).isNull();
    assertThat(node.getMetadata().getLabels())
        .containsEntry("kubernetes.io/hostname", "node-a")
        .containsEntry("topology.kubernetes.io/zone", "zone-a");
    assertThat(node.getMetadata().getAnnotations())
        .containsEntry("node.alpha.kubernetes.io/ttl", "0");
    assertThat(node.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(
            owner -> {
              assertThat(owner.getKind()).isEqualTo("Machine");
              assertThat(owner.getController()).isTrue();
              assertThat(owner.getBlockOwnerDeletion()).isNull();
            });
    assertThat(node.getMetadata().getFinalizers()).containsExactly("example.com/keep");
    // Empty in protobuf, omitted in JSON: null, as fabric8 reads the omitted field.
    assertThat(node.getMetadata().getGenerateName()).isNull();
    assertThat(node.getMetadata().getNamespace()).isNull();
    assertThat(node.getMetadata().getGeneration()).isNull();
    assertThat(node.getSpec().getProviderID()).isNull();
    assertThat(node.getSpec().getUnschedulable()).isNull();
    assertThat(node.getStatus().getPhase()).isNull();

    assertThat(node.getSpec().getPodCIDR()).isEqualTo("10.244.1.0/24");
    // The whole spec: the node controller's full update must not clear a field of it.
    assertThat(node.getSpec().getExternalID()).isEqualTo("i-legacy");
    assertThat(node.getSpec().getConfigSource().getConfigMap().getName())
        .isEqualTo("kubelet-config");
    assertThat(node.getSpec().getConfigSource().getConfigMap().getKubeletConfigKey())
        .isEqualTo("kubelet");
    assertThat(node.getSpec().getConfigSource().getConfigMap().getUid()).isNull();
    assertThat(node.getSpec().getPodCIDRs()).containsExactly("10.244.1.0/24", "fd00:10:244:1::/64");
    assertThat(node.getSpec().getTaints()).hasSize(2);
    assertThat(node.getSpec().getTaints().get(0).getValue()).isEqualTo("true");
    assertThat(node.getSpec().getTaints().get(0).getTimeAdded()).isNull();
    assertThat(node.getSpec().getTaints().get(1).getValue()).isNull();
    assertThat(node.getSpec().getTaints().get(1).getTimeAdded()).isEqualTo("2026-11-26T18:01:00Z");

    assertThat(node.getStatus().getCapacity())
        .containsEntry("cpu", new Quantity("2"))
        .containsEntry("memory", new Quantity("8025288Ki"));
    assertThat(node.getStatus().getAllocatable()).containsEntry("cpu", new Quantity("1900m"));
    assertThat(node.getStatus().getConditions()).hasSize(2);
    assertThat(node.getStatus().getConditions().get(0).getLastHeartbeatTime())
        .isEqualTo("2026-11-26T18:10:00Z");
    assertThat(node.getStatus().getConditions().get(0).getReason()).isEqualTo("KubeletReady");
    // Go's zero time is JSON's null.
    assertThat(node.getStatus().getConditions().get(1).getLastHeartbeatTime()).isNull();
    assertThat(node.getStatus().getConditions().get(1).getReason()).isNull();
    assertThat(node.getStatus().getAddresses())
        .extracting(a -> a.getType() + "=" + a.getAddress())
        .containsExactly("InternalIP=10.0.0.7", "Hostname=node-a");
    assertThat(node.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort())
        .isEqualTo(10250);
    assertThat(node.getStatus().getNodeInfo().getKubeletVersion()).isEqualTo("v1.37.2");
    assertThat(node.getStatus().getNodeInfo().getKubeProxyVersion()).isEmpty();
    assertThat(node.getStatus().getNodeInfo().getArchitecture()).isEqualTo("amd64");
  }

  @Test
  void twoNodesShareTheirRecurringStringsButNotTheirNames() throws Exception {
    Node a = projected(kubeletShaped());
    Node b = projected(kubeletShaped());

    assertThat(key(b.getMetadata().getLabels(), "topology.kubernetes.io/zone"))
        .isSameAs(key(a.getMetadata().getLabels(), "topology.kubernetes.io/zone"));
    assertThat(b.getMetadata().getLabels().get("topology.kubernetes.io/zone"))
        .isSameAs(a.getMetadata().getLabels().get("topology.kubernetes.io/zone"));
    assertThat(b.getStatus().getConditions().get(0).getMessage())
        .isSameAs(a.getStatus().getConditions().get(0).getMessage());
    assertThat(b.getStatus().getNodeInfo().getOsImage())
        .isSameAs(a.getStatus().getNodeInfo().getOsImage());
    assertThat(b.getStatus().getCapacity().get("memory").getFormat())
        .isSameAs(a.getStatus().getCapacity().get("memory").getFormat());
    assertThat(b.getSpec().getTaints().get(0).getKey())
        .isSameAs(a.getSpec().getTaints().get(0).getKey());
    assertThat(b.getStatus().getConditions().get(0).getLastHeartbeatTime())
        .as("a time of a recent second")
        .isSameAs(a.getStatus().getConditions().get(0).getLastHeartbeatTime());
    assertThat(b.getMetadata().getCreationTimestamp())
        .isSameAs(a.getMetadata().getCreationTimestamp());

    assertThat(b.getMetadata().getLabels().get("kubernetes.io/hostname"))
        .as("the node's own name is not pooled (unique to it: it would only fill the pool)")
        .isNotSameAs(a.getMetadata().getLabels().get("kubernetes.io/hostname"))
        .isEqualTo("node-a");
  }

  @Test
  void timesAreReadAsTheirSecondsWhateverTheSlotsHeld() throws Exception {
    // 1024 s apart: the same slot of the shared times, one after the other.
    Meta.Time first = time(T0 + 7);
    Meta.Time second = time(T0 + 7 + 1024);

    assertThat(NodeProjection.time(true, first)).isEqualTo("2026-11-26T18:00:07Z");
    assertThat(NodeProjection.time(true, second)).isEqualTo("2026-11-26T18:17:11Z");
    assertThat(NodeProjection.time(true, first)).isEqualTo("2026-11-26T18:00:07Z");
    assertThat(NodeProjection.time(false, first)).isNull();
    assertThat(NodeProjection.time(true, Meta.Time.newBuilder().setSeconds(-62135596800L).build()))
        .as("Go's zero time, as JSON's null")
        .isNull();
  }

  @Test
  void conditionsOfOneNodeShareTheStringOfAnEqualTime() throws Exception {
    V1.Node.Builder builder = kubeletShaped().toBuilder();
    builder
        .getStatusBuilder()
        .addConditions(
            V1.NodeCondition.newBuilder()
                .setType("MemoryPressure")
                .setStatus("False")
                .setLastHeartbeatTime(time(T0 + 600))
                .setLastTransitionTime(time(T0 + 5))
                .setReason("KubeletHasSufficientMemory")
                .setMessage("kubelet has sufficient memory available"));
    Node node = projected(builder.build());

    List<NodeCondition> conditions = node.getStatus().getConditions();
    assertThat(conditions.get(2).getLastHeartbeatTime())
        .isEqualTo("2026-11-26T18:10:00Z")
        .isSameAs(conditions.get(0).getLastHeartbeatTime());
    assertThat(conditions.get(2).getLastTransitionTime())
        .isSameAs(conditions.get(0).getLastTransitionTime());
  }

  private static String key(java.util.Map<String, String> map, String key) {
    return map.keySet().stream().filter(key::equals).findFirst().orElseThrow();
  }

  @Test
  void quantitiesAreSharedAndTheHostnameHoldsTheNodesOwnName() throws Exception {
    Node a = projected(kubeletShaped());
    Node b = projected(kubeletShaped());

    assertThat(b.getStatus().getCapacity().get("memory"))
        .isSameAs(a.getStatus().getCapacity().get("memory"))
        .isEqualTo(new Quantity("8025288Ki"));
    assertThat(b.getStatus().getAllocatable().get("cpu"))
        .isSameAs(a.getStatus().getAllocatable().get("cpu"))
        .isEqualTo(new Quantity("1900m"));
    assertThat(a.getMetadata().getLabels().get("kubernetes.io/hostname"))
        .isSameAs(a.getMetadata().getName());
    assertThat(a.getStatus().getAddresses().get(1).getAddress())
        .as("the Hostname address")
        .isSameAs(a.getMetadata().getName());
    assertThat(a.getSpec().getPodCIDRs().get(0)).isSameAs(a.getSpec().getPodCIDR());
  }

  @Test
  void nodesOfOneShareTheirResourcesAndEmptyListsUnmodifiably() throws Exception {
    Node a = projected(kubeletShaped());
    Node b = projected(kubeletShaped());
    V1.Node bigger = kubeletShaped();
    bigger =
        bigger.toBuilder()
            .setStatus(
                bigger.getStatus().toBuilder()
                    .putCapacity(
                        "memory", Resource.Quantity.newBuilder().setString("16Gi").build()))
            .build();
    Node c = projected(bigger);

    assertThat(b.getStatus().getCapacity()).isSameAs(a.getStatus().getCapacity());
    assertThat(b.getStatus().getAllocatable()).isSameAs(a.getStatus().getAllocatable());
    assertThat(c.getStatus().getCapacity())
        .as("another machine type: a map of its own")
        .isNotSameAs(a.getStatus().getCapacity())
        .containsEntry("memory", new Quantity("16Gi"))
        .containsEntry("cpu", new Quantity("2"));
    assertThat(a.getStatus().getCapacity()).containsEntry("memory", new Quantity("8025288Ki"));
    assertThatThrownBy(() -> a.getStatus().getCapacity().put("cpu", new Quantity("64")))
        .isInstanceOf(UnsupportedOperationException.class);

    assertThat(
            List.<List<?>>of(
                a.getMetadata().getManagedFields(),
                a.getStatus().getImages(),
                a.getStatus().getVolumesInUse(),
                a.getStatus().getVolumesAttached(),
                a.getStatus().getRuntimeHandlers(),
                a.getStatus().getDeclaredFeatures()))
        .allSatisfy(list -> assertThat(list).isSameAs(List.of()));

    Node copy =
        new NodeBuilder(a).editStatus().addToCapacity("gpu", new Quantity("1")).endStatus().build();
    copy.getStatus().getImages().add(null);
    assertThat(copy.getStatus().getCapacity()).containsKeys("cpu", "memory", "gpu");
    assertThat(a.getStatus().getCapacity()).doesNotContainKey("gpu");
    assertThat(a.getStatus().getImages()).isEmpty();
  }

  @Test
  void everyObjectSharesOneEmptyMapOfAdditionalPropertiesThatCopiesDoNot() throws Exception {
    Node a = projected(kubeletShaped());
    Node b = projected(kubeletShaped());
    Map<String, Object> none = a.getAdditionalProperties();

    assertThat(none).isEmpty();
    assertThat(
            List.of(
                b.getAdditionalProperties(),
                a.getMetadata().getAdditionalProperties(),
                a.getMetadata().getOwnerReferences().get(0).getAdditionalProperties(),
                a.getSpec().getAdditionalProperties(),
                a.getSpec().getTaints().get(0).getAdditionalProperties(),
                a.getSpec().getConfigSource().getAdditionalProperties(),
                a.getSpec().getConfigSource().getConfigMap().getAdditionalProperties(),
                a.getStatus().getAdditionalProperties(),
                a.getStatus().getConditions().get(0).getAdditionalProperties(),
                a.getStatus().getAddresses().get(0).getAdditionalProperties(),
                a.getStatus().getDaemonEndpoints().getAdditionalProperties(),
                a.getStatus().getDaemonEndpoints().getKubeletEndpoint().getAdditionalProperties(),
                a.getStatus().getNodeInfo().getAdditionalProperties(),
                a.getStatus().getCapacity().get("cpu").getAdditionalProperties()))
        .allSatisfy(map -> assertThat(map).isSameAs(none));
    assertThatThrownBy(() -> a.getMetadata().setAdditionalProperty("x", "y"))
        .as("a cached Node is never changed")
        .isInstanceOf(UnsupportedOperationException.class);

    Node copy =
        new NodeBuilder(a).editMetadata().addToAdditionalProperties("x", "y").endMetadata().build();
    copy.getStatus().setAdditionalProperty("z", 1);
    assertThat(copy.getMetadata().getAdditionalProperties()).containsEntry("x", "y");
    assertThat(copy.getStatus().getAdditionalProperties()).containsEntry("z", 1);
    assertThat(a.getMetadata().getAdditionalProperties()).isEmpty();
    assertThat(new KubernetesSerialization().asJson(a))
        .as("written as a Node read from JSON would be")
        .isEqualTo(new KubernetesSerialization().asJson(new NodeBuilder(a).build()));
  }

  @Test
  void dropsWhatNoControllerReads() throws Exception {
    Node node = projected(kubeletShaped());
    assertThat(node.getMetadata().getManagedFields()).isEmpty();
    assertThat(node.getStatus().getImages()).isEmpty();
    assertThat(node.getStatus().getVolumesInUse()).isEmpty();
    assertThat(node.getStatus().getVolumesAttached()).isEmpty();
    assertThat(node.getStatus().getConfig()).isNull();
  }

  @Test
  void readsAListWithItsContinueToken() throws Exception {
    V1.NodeList list =
        V1.NodeList.newBuilder()
            .setMetadata(
                Meta.ListMeta.newBuilder()
                    .setResourceVersion("99")
                    .setContinue("token")
                    .setRemainingItemCount(3))
            .addItems(kubeletShaped())
            .build();
    NodeList read =
        ProtobufObjects.nodeList(ProtobufEnvelope.seal("v1", "NodeList", list.toByteString()));
    assertThat(read.getMetadata().getResourceVersion()).isEqualTo("99");
    assertThat(read.getMetadata().getContinue()).isEqualTo("token");
    assertThat(read.getItems())
        .extracting(n -> n.getMetadata().getName())
        .containsExactly("node-a");
  }

  /**
   * A watch frame: a WatchEvent without envelope whose object is in one (as kube-apiserver 1.37
   * sends).
   */
  private static byte[] frame(String type, String kind, ByteString object) {
    return Meta.WatchEvent.newBuilder()
        .setType(type)
        .setObject(
            Runtime.RawExtension.newBuilder()
                .setRaw(ByteString.copyFrom(ProtobufEnvelope.seal("v1", kind, object))))
        .build()
        .toByteArray();
  }

  @Test
  void readsAWatchEvent() throws Exception {
    WatchEvent event =
        ProtobufObjects.watchEvent(frame("MODIFIED", "Node", kubeletShaped().toByteString()));
    assertThat(event.getType()).isEqualTo("MODIFIED");
    assertThat(((Node) event.getObject()).getMetadata().getResourceVersion()).isEqualTo("4711");
  }

  /**
   * A watch from a resourceVersion too old ends with an ERROR event carrying 410: fabric8 relists.
   */
  @Test
  void readsAnExpiredWatchAsAStatusOf410() throws Exception {
    Meta.Status gone =
        Meta.Status.newBuilder()
            .setStatus("Failure")
            .setMessage("too old resource version: 1 (4711)")
            .setReason("Expired")
            .setCode(410)
            .build();
    WatchEvent event = ProtobufObjects.watchEvent(frame("ERROR", "Status", gone.toByteString()));
    assertThat(event.getType()).isEqualTo("ERROR");
    Status status = (Status) event.getObject();
    assertThat(status.getCode()).isEqualTo(410);
    assertThat(status.getReason()).isEqualTo("Expired");
    assertThat(status.getMessage()).isEqualTo("too old resource version: 1 (4711)");
  }

  @Test
  void aBodyWithoutTheMagicIsAClearError() {
    assertThatThrownBy(() -> ProtobufObjects.node("{\"kind\":\"Node\"}".getBytes()))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessage("not a Kubernetes protobuf object: it does not start with k8s\\0");
  }

  @Test
  void anUnexpectedKindIsAClearError() {
    assertThatThrownBy(
            () -> ProtobufObjects.node(ProtobufEnvelope.seal("v1", "Pod", ByteString.EMPTY)))
        .isInstanceOf(InvalidProtocolBufferException.class)
        .hasMessage("unexpected kind v1/Pod in a protobuf response");
  }

  @Test
  void theEnvelopeStartsWithTheMagic() throws Exception {
    byte[] sealed = ProtobufEnvelope.seal("v1", "Node", ByteString.copyFromUtf8("x"));
    assertThat(ByteBuffer.wrap(sealed, 0, 4)).isEqualTo(ByteBuffer.wrap("k8s\0".getBytes()));
    Runtime.Unknown opened = ProtobufEnvelope.open(sealed);
    assertThat(opened.getTypeMeta().getKind()).isEqualTo("Node");
    assertThat(opened.getRaw().toStringUtf8()).isEqualTo("x");
  }
}
