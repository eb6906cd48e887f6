package io.fabric8.kubernetes.client.dsl.internal;

import io.ccm4j.runtime.client.protobuf.ProtobufEnvelope;
import io.ccm4j.runtime.client.protobuf.ProtobufObjects;
import io.ccm4j.runtime.client.protobuf.WatchFrames;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * fabric8's HTTP watch ({@code WatchHTTPManager}) reading the protobuf watch stream: the same
 * reconnects, backoff, bookmarks, resourceVersion tracking and 410 Gone handling (its {@link
 * AbstractWatchManager}), with length-delimited protobuf frames where fabric8 reads lines of JSON.
 * It lives in fabric8's package because that base class's constructor and hooks are
 * package-private; the informer's {@code ListerWatcher} must hand back one of its kind.
 *
 * <p>Frames are cut on the HTTP client's thread and decoded on the watch's serial executor, as
 * fabric8 decodes JSON, so the event loop never parses; the next chunk is asked for once the
 * chunk's events are dispatched.
 */
public final class ProtobufWatchManager<T extends HasMetadata> extends AbstractWatchManager<T> {

  private CompletableFuture<HttpResponse<AsyncBody>> call;
  private volatile AsyncBody body;

  public ProtobufWatchManager(
      HttpClient client,
      BaseOperation<T, ?, ?> operation,
      ListOptions options,
      Watcher<T> watcher,
      int reconnectInterval,
      int reconnectLimit)
      throws MalformedURLException {
    super(watcher, operation, options, reconnectLimit, reconnectInterval, client);
  }

  @Override
  protected synchronized void start(URL url, Map<String, String> headers, WatchRequestState state) {
    HttpRequest.Builder builder = client.newHttpRequestBuilder().url(url).forStreaming();
    headers.forEach(builder::header);
    builder.setHeader("Accept", ProtobufEnvelope.WATCH_MEDIA_TYPE);
    WatchFrames frames = new WatchFrames();
    call =
        client.consumeBytes(
            builder.build(),
            (chunks, asyncBody) -> {
              state.started.set(true);
              AtomicInteger pending = new AtomicInteger(1);
              Runnable consumeWhenDispatched =
                  () -> {
                    if (pending.decrementAndGet() == 0) {
                      asyncBody.consume();
                    }
                  };
              for (ByteBuffer chunk : chunks) {
                List<byte[]> complete;
                try {
                  complete = frames.accept(chunk);
                } catch (IllegalStateException e) {
                  close(new WatcherException("Could not read the protobuf watch stream", e));
                  return;
                }
                for (byte[] frame : complete) {
                  pending.incrementAndGet();
                  onFrame(frame, state, consumeWhenDispatched);
                }
              }
              consumeWhenDispatched.run();
            });
    call.whenComplete(
        (response, failure) -> {
          if (failure != null) {
            watchEnded(failure, state);
          }
          if (response != null) {
            body = response.body();
            if (!response.isSuccessful()) {
              Status status = OperationSupport.createStatus(response.code(), response.message());
              if (onStatus(status, state)) {
                return;
              }
              watchEnded(new KubernetesClientException(status), state);
            } else {
              // Watching from the response's headers on, as over a WebSocket: a quiet API server
              // sends the first bytes only with its first bookmark, a minute later.
              state.started.set(true);
              resetReconnectAttempts(state);
              body.consume();
              body.done().whenComplete((ignored, error) -> watchEnded(error, state));
            }
          }
        });
  }

  /** As {@code onMessage} does for a line of JSON. */
  private void onFrame(byte[] frame, WatchRequestState state, Runnable onComplete) {
    if (serialExecutor.isShutdown()) {
      onComplete.run();
      return;
    }
    state.messageReceived.set(true);
    serialExecutor.execute(
        () -> {
          try {
            if (state.closed.get() || forceClosed.get()) {
              return;
            }
            WatchEvent event;
            Watcher.Action action;
            try {
              event = ProtobufObjects.watchEvent(frame);
              action = Watcher.Action.valueOf(event.getType());
            } catch (Exception e) {
              close(new WatcherException("Could not decode a protobuf watch event", e));
              return;
            }
            Object object = event.getObject();
            if (action == Watcher.Action.ERROR) {
              if (object instanceof Status status) {
                onStatus(status, state);
              } else {
                closeRequest();
              }
            } else if (object instanceof HasMetadata resource) {
              updateResourceVersion(resource.getMetadata().getResourceVersion());
              eventReceived(action, resource);
            } else {
              close(new WatcherException("Invalid object in a protobuf watch event: " + object));
            }
          } finally {
            onComplete.run();
          }
        });
  }

  @Override
  protected synchronized void closeCurrentRequest() {
    if (call != null) {
      call.cancel(true);
    }
    AsyncBody current = body;
    if (current != null) {
      current.cancel();
    }
  }
}
