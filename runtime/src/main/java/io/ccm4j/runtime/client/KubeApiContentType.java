package io.ccm4j.runtime.client;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The wire format of the manager's hot API traffic ({@code --kube-api-content-type}, as upstream's
 * flag): protobuf, upstream's default, or JSON. With protobuf the Node informer lists and watches
 * in protobuf ({@link io.ccm4j.runtime.client.protobuf.ProtobufInformerFactory}); everything else
 * keeps JSON, as client-go does for the types it has no protobuf for.
 */
public enum KubeApiContentType {
  PROTOBUF("application/vnd.kubernetes.protobuf"),
  JSON("application/json");

  /** Upstream's default, as a flag default spells it. */
  public static final String DEFAULT_MEDIA_TYPE = "application/vnd.kubernetes.protobuf";

  public static final KubeApiContentType DEFAULT = PROTOBUF;

  private final String mediaType;

  KubeApiContentType(String mediaType) {
    this.mediaType = mediaType;
  }

  /** The media type as the flag and the {@code Accept} header spell it. */
  public String mediaType() {
    return mediaType;
  }

  /**
   * The content type a media type names.
   *
   * @throws IllegalArgumentException naming the accepted values when it names none
   */
  public static KubeApiContentType of(String mediaType) {
    for (KubeApiContentType type : values()) {
      if (type.mediaType.equals(mediaType)) {
        return type;
      }
    }
    throw new IllegalArgumentException(
        "must be one of "
            + Arrays.stream(values())
                .map(KubeApiContentType::mediaType)
                .collect(Collectors.joining(", "))
            + ", got "
            + mediaType);
  }

  @Override
  public String toString() {
    return mediaType;
  }
}
