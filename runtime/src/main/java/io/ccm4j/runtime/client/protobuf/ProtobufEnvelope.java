package io.ccm4j.runtime.client.protobuf;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.kubernetes.client.proto.Runtime;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The API server's protobuf envelope: the four bytes {@code k8s\0}, then a {@code runtime.Unknown}
 * naming the object's apiVersion and kind and carrying its bytes (apimachinery's protobuf
 * serializer). Every protobuf response body has it, and so has the object of each watch event.
 */
public final class ProtobufEnvelope {

  /** The media type of protobuf bodies. */
  public static final String MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

  /** The media type of a protobuf watch stream: length-prefixed {@code meta.v1.WatchEvent}s. */
  public static final String WATCH_MEDIA_TYPE = MEDIA_TYPE + ";stream=watch";

  private static final byte[] MAGIC = "k8s\0".getBytes(StandardCharsets.US_ASCII);

  private ProtobufEnvelope() {}

  /**
   * The envelope in {@code bytes}.
   *
   * @throws InvalidProtocolBufferException when the bytes do not start with the magic or do not
   *     parse
   */
  public static Runtime.Unknown open(byte[] bytes) throws InvalidProtocolBufferException {
    return open(bytes, 0, bytes.length);
  }

  /** The envelope in {@code length} bytes from {@code offset}. */
  public static Runtime.Unknown open(byte[] bytes, int offset, int length)
      throws InvalidProtocolBufferException {
    if (length < MAGIC.length
        || !Arrays.equals(bytes, offset, offset + MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new InvalidProtocolBufferException(
          "not a Kubernetes protobuf object: it does not start with k8s\\0");
    }
    return Runtime.Unknown.parseFrom(
        ByteString.copyFrom(bytes, offset + MAGIC.length, length - MAGIC.length));
  }

  /** The object's bytes in an envelope naming its apiVersion and kind. */
  public static byte[] seal(String apiVersion, String kind, ByteString object) {
    Runtime.Unknown unknown =
        Runtime.Unknown.newBuilder()
            .setTypeMeta(Runtime.TypeMeta.newBuilder().setApiVersion(apiVersion).setKind(kind))
            .setRaw(object)
            .build();
    byte[] sealed = new byte[MAGIC.length + unknown.getSerializedSize()];
    System.arraycopy(MAGIC, 0, sealed, 0, MAGIC.length);
    try {
      unknown.writeTo(
          com.google.protobuf.CodedOutputStream.newInstance(
              sealed, MAGIC.length, sealed.length - MAGIC.length));
    } catch (java.io.IOException e) {
      throw new IllegalStateException("an array of the exact size cannot overflow", e);
    }
    return sealed;
  }
}
