package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A failure of the Kubernetes client in the words a user needs. fabric8 wraps a transport failure
 * (connection refused, an unknown host, a certificate the cluster's CA did not sign) in an
 * exception that says only "An error has occurred.", or only which request failed ("Operation:
 * [get] for kind: [Lease] ... failed."); the reason is in its causes.
 */
public final class KubernetesErrors {

  /** What fabric8 says of a failure whose reason is in its cause. */
  static final String GENERIC = "An error has occurred.";

  private KubernetesErrors() {}

  /**
   * The API server's message (and code) when it answered, else the first cause that says something,
   * else the failure's type.
   */
  public static String reason(Throwable failure) {
    KubernetesClientException refused = refusal(failure);
    if (refused != null) {
      return refused.getCode() > 0
          ? refused.getStatus().getMessage() + " (" + refused.getCode() + ")"
          : refused.getStatus().getMessage();
    }
    return transportReason(failure);
  }

  /**
   * What client-go's error would say, as upstream's events and logs show it: the API server's
   * message alone when it answered ({@code services "a" is forbidden: …}), else as {@link #reason}.
   * fabric8's own message adds the request's URL and the whole Status object.
   */
  public static String message(Throwable failure) {
    KubernetesClientException refused = refusal(failure);
    return refused != null ? refused.getStatus().getMessage() : transportReason(failure);
  }

  /** The failure, or one of its causes, that carries the API server's answer with a message. */
  private static KubernetesClientException refusal(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof KubernetesClientException refused
          && refused.getStatus() != null
          && refused.getStatus().getMessage() != null
          && !refused.getStatus().getMessage().isBlank()) {
        return refused;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return null;
  }

  private static String transportReason(Throwable failure) {
    while ((failure instanceof CompletionException || failure instanceof ExecutionException)
        && failure.getCause() != null) {
      failure = failure.getCause();
    }
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      String message = cause.getMessage();
      if (message != null && !message.isBlank() && !message.strip().equals(GENERIC)) {
        String said =
            cause == failure || message.contains(cause.getClass().getSimpleName())
                ? message.strip()
                : cause.getClass().getSimpleName() + ": " + message.strip();
        if (cause instanceof KubernetesClientException
            && cause.getCause() != null
            && cause.getCause() != cause) {
          // fabric8's "Operation: [get] for kind: [Lease] ... failed." names the request only;
          // why it failed (a refused connection, a certificate no trusted CA signed) is below.
          return said.replaceFirst("\\.$", "") + ": " + transportReason(cause.getCause());
        }
        return said;
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return failure.getClass().getSimpleName();
  }
}
