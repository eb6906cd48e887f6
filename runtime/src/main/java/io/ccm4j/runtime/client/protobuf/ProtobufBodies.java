package io.ccm4j.runtime.client.protobuf;

import io.ccm4j.runtime.client.KubeTimes;
import io.fabric8.kubernetes.api.model.ConfigMapNodeConfigSource;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeConfigSource;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Taint;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.V1;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Request bodies in protobuf, in the API server's envelope: a Node's update and an Event's create.
 * Each carries every field the fabric8 object has and the generated messages know; an object with
 * anything more (a field this client's model does not know, kept in its {@code
 * additionalProperties}; managedFields) has no protobuf body here ({@code null}), and its caller
 * sends JSON, which carries everything.
 */
public final class ProtobufBodies {

  private ProtobufBodies() {}

  /**
   * The body of a full update (PUT) of {@code node}: its metadata and spec. The status is left out:
   * an update of a Node keeps the stored status whatever the request carries (the status
   * subresource writes it), so the projected status a cached Node has would be bytes for nothing.
   * {@code null} when the Node has a field this encoding does not carry.
   */
  public static byte[] nodeUpdate(Node node) {
    try {
      if (!node.getAdditionalProperties().isEmpty()) {
        return null;
      }
      V1.Node.Builder result = V1.Node.newBuilder().setMetadata(metadata(node.getMetadata()));
      if (node.getSpec() != null) {
        result.setSpec(spec(node.getSpec()));
      }
      return ProtobufEnvelope.seal("v1", "Node", result.build().toByteString());
    } catch (NotEncodable e) {
      return null;
    }
  }

  /** The body of an Event's create; {@code null} when it has a field this does not carry. */
  public static byte[] eventCreate(Event event) {
    try {
      if (!event.getAdditionalProperties().isEmpty()
          || event.getEventTime() != null
          || event.getSeries() != null
          || event.getRelated() != null
          || event.getAction() != null) {
        return null;
      }
      V1.Event.Builder result = V1.Event.newBuilder().setMetadata(metadata(event.getMetadata()));
      if (event.getInvolvedObject() != null) {
        result.setInvolvedObject(reference(event.getInvolvedObject()));
      }
      set(event.getReason(), result::setReason);
      set(event.getMessage(), result::setMessage);
      set(event.getType(), result::setType);
      if (event.getSource() != null) {
        known(event.getSource().getAdditionalProperties());
        V1.EventSource.Builder source = V1.EventSource.newBuilder();
        set(event.getSource().getComponent(), source::setComponent);
        set(event.getSource().getHost(), source::setHost);
        result.setSource(source);
      }
      time(event.getFirstTimestamp(), result::setFirstTimestamp);
      time(event.getLastTimestamp(), result::setLastTimestamp);
      if (event.getCount() != null) {
        result.setCount(event.getCount());
      }
      set(event.getReportingComponent(), result::setReportingComponent);
      set(event.getReportingInstance(), result::setReportingInstance);
      return ProtobufEnvelope.seal("v1", "Event", result.build().toByteString());
    } catch (NotEncodable e) {
      return null;
    }
  }

  static Meta.ObjectMeta metadata(ObjectMeta meta) {
    Meta.ObjectMeta.Builder result = Meta.ObjectMeta.newBuilder();
    if (meta == null) {
      return result.build();
    }
    known(meta.getAdditionalProperties());
    if (meta.getManagedFields() != null && !meta.getManagedFields().isEmpty()) {
      throw new NotEncodable();
    }
    set(meta.getName(), result::setName);
    set(meta.getGenerateName(), result::setGenerateName);
    set(meta.getNamespace(), result::setNamespace);
    set(meta.getSelfLink(), result::setSelfLink);
    set(meta.getUid(), result::setUid);
    set(meta.getResourceVersion(), result::setResourceVersion);
    if (meta.getGeneration() != null) {
      result.setGeneration(meta.getGeneration());
    }
    time(meta.getCreationTimestamp(), result::setCreationTimestamp);
    time(meta.getDeletionTimestamp(), result::setDeletionTimestamp);
    if (meta.getDeletionGracePeriodSeconds() != null) {
      result.setDeletionGracePeriodSeconds(meta.getDeletionGracePeriodSeconds());
    }
    result.putAllLabels(entries(meta.getLabels()));
    result.putAllAnnotations(entries(meta.getAnnotations()));
    for (OwnerReference owner : list(meta.getOwnerReferences())) {
      known(owner.getAdditionalProperties());
      Meta.OwnerReference.Builder reference = Meta.OwnerReference.newBuilder();
      set(owner.getApiVersion(), reference::setApiVersion);
      set(owner.getKind(), reference::setKind);
      set(owner.getName(), reference::setName);
      set(owner.getUid(), reference::setUid);
      if (owner.getController() != null) {
        reference.setController(owner.getController());
      }
      if (owner.getBlockOwnerDeletion() != null) {
        reference.setBlockOwnerDeletion(owner.getBlockOwnerDeletion());
      }
      result.addOwnerReferences(reference);
    }
    result.addAllFinalizers(list(meta.getFinalizers()));
    return result.build();
  }

  private static V1.NodeSpec spec(NodeSpec spec) {
    known(spec.getAdditionalProperties());
    V1.NodeSpec.Builder result = V1.NodeSpec.newBuilder();
    set(spec.getPodCIDR(), result::setPodCIDR);
    result.addAllPodCIDRs(list(spec.getPodCIDRs()));
    set(spec.getProviderID(), result::setProviderID);
    if (spec.getUnschedulable() != null) {
      result.setUnschedulable(spec.getUnschedulable());
    }
    for (Taint taint : list(spec.getTaints())) {
      known(taint.getAdditionalProperties());
      V1.Taint.Builder encoded = V1.Taint.newBuilder();
      set(taint.getKey(), encoded::setKey);
      set(taint.getValue(), encoded::setValue);
      set(taint.getEffect(), encoded::setEffect);
      time(taint.getTimeAdded(), encoded::setTimeAdded);
      result.addTaints(encoded);
    }
    set(spec.getExternalID(), result::setExternalID);
    NodeConfigSource source = spec.getConfigSource();
    if (source != null) {
      known(source.getAdditionalProperties());
      V1.NodeConfigSource.Builder encoded = V1.NodeConfigSource.newBuilder();
      ConfigMapNodeConfigSource configMap = source.getConfigMap();
      if (configMap != null) {
        known(configMap.getAdditionalProperties());
        V1.ConfigMapNodeConfigSource.Builder map = V1.ConfigMapNodeConfigSource.newBuilder();
        set(configMap.getNamespace(), map::setNamespace);
        set(configMap.getName(), map::setName);
        set(configMap.getUid(), map::setUid);
        set(configMap.getResourceVersion(), map::setResourceVersion);
        set(configMap.getKubeletConfigKey(), map::setKubeletConfigKey);
        encoded.setConfigMap(map);
      }
      result.setConfigSource(encoded);
    }
    return result.build();
  }

  private static V1.ObjectReference reference(ObjectReference reference) {
    known(reference.getAdditionalProperties());
    V1.ObjectReference.Builder result = V1.ObjectReference.newBuilder();
    set(reference.getKind(), result::setKind);
    set(reference.getNamespace(), result::setNamespace);
    set(reference.getName(), result::setName);
    set(reference.getUid(), result::setUid);
    set(reference.getApiVersion(), result::setApiVersion);
    set(reference.getResourceVersion(), result::setResourceVersion);
    set(reference.getFieldPath(), result::setFieldPath);
    return result.build();
  }

  /** An RFC 3339 time (metav1.Time's JSON) as its protobuf. */
  private static void time(String text, Consumer<Meta.Time> setter) {
    if (text == null) {
      return;
    }
    Instant instant;
    try {
      instant = KubeTimes.parse(text);
    } catch (DateTimeException e) {
      throw new NotEncodable();
    }
    setter.accept(
        Meta.Time.newBuilder()
            .setSeconds(instant.getEpochSecond())
            .setNanos(instant.getNano())
            .build());
  }

  private static void set(String value, Consumer<String> setter) {
    if (value != null) {
      setter.accept(value);
    }
  }

  /** A list without a null element (which JSON would carry and protobuf cannot). */
  private static <T> List<T> list(List<T> values) {
    if (values == null) {
      return List.of();
    }
    if (values.contains(null)) {
      throw new NotEncodable();
    }
    return values;
  }

  /** A map of strings without a null key or value. */
  private static Map<String, String> entries(Map<String, String> entries) {
    if (entries == null) {
      return Map.of();
    }
    for (Map.Entry<String, String> entry : entries.entrySet()) {
      if (entry.getKey() == null || entry.getValue() == null) {
        throw new NotEncodable();
      }
    }
    return entries;
  }

  private static void known(Map<String, Object> additionalProperties) {
    if (additionalProperties != null && !additionalProperties.isEmpty()) {
      throw new NotEncodable();
    }
  }

  /** A field this encoding does not carry: the caller sends JSON. */
  private static final class NotEncodable extends RuntimeException {
    NotEncodable() {
      super(null, null, false, false);
    }
  }
}
