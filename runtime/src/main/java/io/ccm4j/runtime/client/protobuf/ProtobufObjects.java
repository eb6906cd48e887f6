package io.ccm4j.runtime.client.protobuf;

import com.google.protobuf.InvalidProtocolBufferException;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.ListMeta;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.dsl.internal.OperationSupport;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.kubernetes.client.proto.Meta;
import io.kubernetes.client.proto.Runtime;
import io.kubernetes.client.proto.V1;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the protobuf objects the manager asks for as the fabric8 objects the rest of ccm4j knows:
 * Nodes (projected, {@link NodeProjection}), NodeLists, Statuses and watch events.
 */
public final class ProtobufObjects {

  private ProtobufObjects() {}

  /**
   * Loads the generated classes (and builds their descriptors) on a daemon thread of its own: the
   * first Node list read would otherwise wait some 50 ms for them on the way to the first node.
   */
  public static void loadInBackground() {
    Thread.ofPlatform()
        .daemon()
        .name("ccm4j-protobuf-classes")
        .start(
            () -> {
              try {
                V1.NodeList.parseFrom(new byte[0]);
                Meta.WatchEvent.parseFrom(new byte[0]);
                Runtime.Unknown.parseFrom(new byte[0]);
              } catch (InvalidProtocolBufferException e) {
                throw new IllegalStateException(e); // an empty message always parses
              }
            });
  }

  /**
   * The object in an envelope: a Node or a Status.
   *
   * @throws InvalidProtocolBufferException when it is neither or does not parse
   */
  public static KubernetesResource object(Runtime.Unknown envelope)
      throws InvalidProtocolBufferException {
    String kind = envelope.getTypeMeta().getKind();
    return switch (kind) {
      case "Node" -> NodeProjection.node(V1.Node.parseFrom(envelope.getRaw()));
      case "Status" -> status(Meta.Status.parseFrom(envelope.getRaw()));
      default ->
          throw new InvalidProtocolBufferException(
              "unexpected kind "
                  + envelope.getTypeMeta().getApiVersion()
                  + "/"
                  + kind
                  + " in a protobuf response");
    };
  }

  /** The Node in a protobuf body (a create, update or patch response). */
  public static Node node(byte[] body) throws InvalidProtocolBufferException {
    if (object(ProtobufEnvelope.open(body)) instanceof Node node) {
      return node;
    }
    throw new InvalidProtocolBufferException("expected a Node in the protobuf response");
  }

  /** The NodeList in a protobuf list body, its Nodes projected. */
  public static NodeList nodeList(byte[] body) throws InvalidProtocolBufferException {
    Runtime.Unknown envelope = ProtobufEnvelope.open(body);
    if (!"NodeList".equals(envelope.getTypeMeta().getKind())) {
      throw new InvalidProtocolBufferException(
          "expected a NodeList, got " + envelope.getTypeMeta().getKind());
    }
    V1.NodeList list = V1.NodeList.parseFrom(envelope.getRaw());
    List<Node> items = new ArrayList<>(list.getItemsCount());
    for (V1.Node node : list.getItemsList()) {
      items.add(NodeProjection.node(node));
    }
    NodeList result = new NodeList();
    result.setApiVersion("v1");
    result.setKind("NodeList");
    result.setMetadata(listMeta(list.getMetadata()));
    result.setItems(items);
    return result;
  }

  /**
   * One frame of a protobuf watch stream: a {@code meta.v1.WatchEvent} (without envelope) whose
   * object is in an envelope. Bookmarks carry a Node with only its resourceVersion, as in JSON.
   */
  public static WatchEvent watchEvent(byte[] frame) throws InvalidProtocolBufferException {
    Meta.WatchEvent event = Meta.WatchEvent.parseFrom(frame);
    byte[] object = event.getObject().getRaw().toByteArray();
    return new WatchEvent(object(ProtobufEnvelope.open(object)), event.getType());
  }

  /** A protobuf Status as fabric8's. */
  public static Status status(Meta.Status status) {
    Status result = new Status();
    result.setApiVersion("v1");
    result.setKind("Status");
    result.setStatus(status.getStatus());
    result.setMessage(status.getMessage());
    result.setReason(status.getReason());
    result.setCode(status.getCode());
    if (status.hasDetails()) {
      Meta.StatusDetails details = status.getDetails();
      StatusDetails result1 = new StatusDetails();
      result1.setName(details.getName());
      result1.setGroup(details.getGroup());
      result1.setKind(details.getKind());
      result1.setUid(details.getUid());
      result1.setRetryAfterSeconds(details.getRetryAfterSeconds());
      List<StatusCause> causes = new ArrayList<>();
      for (Meta.StatusCause cause : details.getCausesList()) {
        causes.add(new StatusCause(cause.getField(), cause.getMessage(), cause.getReason()));
      }
      result1.setCauses(causes);
      result.setDetails(result1);
    }
    return result;
  }

  /** The Status of a failed protobuf request: its body's when it has one. */
  static Status failureStatus(HttpResponse<byte[]> response) {
    byte[] body = response.body();
    if (body != null && body.length > 0) {
      try {
        if (object(ProtobufEnvelope.open(body)) instanceof Status status) {
          return status;
        }
      } catch (Exception e) {
        // not a protobuf Status: the code and message say what there is to say
      }
    }
    return OperationSupport.createStatus(response.code(), response.message());
  }

  private static ListMeta listMeta(Meta.ListMeta meta) {
    ListMeta result = new ListMeta();
    result.setResourceVersion(meta.getResourceVersion());
    result.setContinue(meta.getContinue().isEmpty() ? null : meta.getContinue());
    if (meta.hasRemainingItemCount()) {
      result.setRemainingItemCount(meta.getRemainingItemCount());
    }
    return result;
  }
}
