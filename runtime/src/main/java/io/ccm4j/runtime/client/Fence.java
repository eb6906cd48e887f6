package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Stops a manager's controllers from writing once it may no longer lead: after its Lease is lost,
 * or before it releases the Lease when it stops. A worker still in a cloud call when that happens
 * is not interrupted (a cloud SDK may ignore interrupts); its next request to the API server fails
 * here instead of landing beside the new leader's writes. Upstream's manager exits at once, so its
 * workers never get that far.
 */
public final class Fence implements Interceptor {

  private final AtomicBoolean closed = new AtomicBoolean();

  /** From now on every request through this fence fails before it is sent. */
  public void close() {
    closed.set(true);
  }

  public boolean isClosed() {
    return closed.get();
  }

  /**
   * Whether a request failed because a fence refused it (this instance no longer leads), not
   * because the API server or the connection did: a controller then stops what it was doing rather
   * than report or retry a failure. fabric8 hands the refusal on as the cause of its own exception.
   */
  public static boolean refused(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof NotSentException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    if (closed.get()) {
      throw new NotSentException(
          "not sent: this instance no longer leads (%s %s)"
              .formatted(request.method(), request.uri().getPath()));
    }
  }

  /** A request this fence did not let out ({@link #refused}). */
  private static final class NotSentException extends KubernetesClientException {
    NotSentException(String message) {
      super(message);
    }
  }
}
