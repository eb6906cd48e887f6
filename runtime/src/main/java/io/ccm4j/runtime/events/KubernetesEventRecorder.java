package io.ccm4j.runtime.events;

import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.client.protobuf.ApiWrites;
import io.ccm4j.runtime.client.protobuf.ProtobufBodies;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes {@code core/v1} Events in the background, so a controller's sync never waits for them: one
 * writer, in the order they were recorded, as upstream's event broadcaster has one sink per event
 * source. A repeat of the same event (object, type, reason, message) raises the count of the
 * existing Event instead of creating another, as client-go's correlator does; so does the rest of
 * that correlator ({@link EventCorrelator}): similar events with ten different messages become one
 * combined event, and an object's events of one type pass a spam filter. When 1,000 events are
 * pending, new ones are dropped (counted in the log) rather than slowing the controllers: a burst
 * of thousands of nodes initialised at once writes what one writer can, as upstream's does, and
 * leaves the API server's capacity to the nodes' writes.
 *
 * <p>With protobuf ({@code --kube-api-content-type}) an Event is created with a protobuf body and
 * every answer is asked in protobuf and not read (the recorder needs only to know it succeeded);
 * with JSON these are fabric8's calls.
 */
public final class KubernetesEventRecorder implements EventRecorder, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(KubernetesEventRecorder.class);
  private static final int MAX_PENDING = 1000;

  private static final int MAX_REMEMBERED = 4096;

  private final KubernetesClient client;

  /** The writes in protobuf; {@code null} with JSON. */
  private final ApiWrites protobuf;

  private final String component;

  private final ThreadPoolExecutor writer;

  private final AtomicLong sequence = new AtomicLong(System.currentTimeMillis() * 1_000_000L);
  private final Map<EventKey, Recorded> recorded =
      new LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<EventKey, Recorded> eldest) {
          return size() > MAX_REMEMBERED;
        }
      };

  /** The message part of the key of an object's combined event (no real message is this). */
  private static final String COMBINED = "\u0000combined";

  /** client-go's aggregation and spam filter, applied on the writer thread in recording order. */
  private final EventCorrelator correlator = new EventCorrelator();

  private record EventKey(
      String uid, String kind, String name, String type, String reason, String message) {}

  private record Recorded(String namespace, String name, int count, String firstTimestamp) {}

  /**
   * @param component the event source, as upstream names it per controller ({@code
   *     cloud-node-controller}): {@code source.component} and {@code reportingComponent}. As
   *     upstream's recorders (an {@code EventSource} with a component alone), no {@code
   *     source.host} and no {@code reportingInstance}.
   * @param contentType the wire format of the writes
   */
  public KubernetesEventRecorder(
      KubernetesClient client, String component, KubeApiContentType contentType) {
    this.client = client;
    this.protobuf = contentType == KubeApiContentType.PROTOBUF ? new ApiWrites(client) : null;
    this.component = component;
    this.writer =
        new ThreadPoolExecutor(
            1,
            1,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(MAX_PENDING),
            runnable ->
                Thread.ofPlatform().daemon().name("events-" + component).unstarted(runnable),
            (runnable, executor) -> dropped(component));
  }

  private final AtomicLong droppedCount = new AtomicLong();

  /** Logs the first drop and every thousandth after, not each one. */
  private void dropped(String component) {
    long count = droppedCount.incrementAndGet();
    if (count == 1 || count % 1000 == 0) {
      log.warn("{}: event buffer full; {} events dropped so far", component, count);
    }
  }

  @Override
  public void normal(HasMetadata object, String reason, String message) {
    record(object, "Normal", reason, message);
  }

  @Override
  public void warning(HasMetadata object, String reason, String message) {
    record(object, "Warning", reason, message);
  }

  private void record(HasMetadata object, String type, String reason, String message) {
    if (writer.isShutdown()) {
      return;
    }
    // Copy what the event needs now: the caller may go on to mutate the object.
    var reference =
        new ObjectReferenceBuilder()
            .withApiVersion(object.getApiVersion())
            .withKind(object.getKind())
            .withName(object.getMetadata().getName())
            .withNamespace(object.getMetadata().getNamespace())
            .withUid(object.getMetadata().getUid())
            .withResourceVersion(object.getMetadata().getResourceVersion())
            .build();
    writer.execute(
        () -> {
          try {
            write(reference, type, reason, message);
          } catch (KubernetesClientException e) {
            log.warn(
                "{}: could not write event {} for {} {}: {}",
                component,
                reason,
                reference.getKind(),
                reference.getName(),
                e.getMessage());
          }
        });
  }

  private void write(
      io.fabric8.kubernetes.api.model.ObjectReference reference,
      String type,
      String reason,
      String message) {
    String namespace = reference.getNamespace() == null ? "default" : reference.getNamespace();
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    EventCorrelator.Decision decision = correlator.correlate(reference, type, reason, message);
    message = decision.message();
    // The combined event of an object, type and reason is one Event whatever its latest message.
    EventKey key =
        new EventKey(
            reference.getUid(),
            reference.getKind(),
            reference.getName(),
            type,
            reason,
            decision.combined() ? COMBINED : message);
    Recorded previous;
    synchronized (recorded) {
      previous = recorded.get(key);
      if (decision.skip()) {
        // Held back by the spam filter: counted, as client-go counts it, not written. A later
        // write of the same event carries the count (or creates it, if it never was).
        recorded.put(
            key,
            previous == null
                ? new Recorded(
                    namespace,
                    reference.getName() + "." + Long.toHexString(sequence.incrementAndGet()),
                    1,
                    now)
                : new Recorded(
                    previous.namespace(),
                    previous.name(),
                    previous.count() + 1,
                    previous.firstTimestamp()));
        return;
      }
    }
    if (previous != null) {
      int count = previous.count() + 1;
      try {
        patchCount(
            previous.namespace(),
            previous.name(),
            count,
            now,
            decision.combined() ? message : null);
        synchronized (recorded) {
          recorded.put(
              key,
              new Recorded(
                  previous.namespace(), previous.name(), count, previous.firstTimestamp()));
        }
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
        // The event expired (events have a TTL): written again under its name, with its count and
        // first time, as upstream's recorder does.
      }
    }
    String name =
        previous != null
            ? previous.name()
            : reference.getName() + "." + Long.toHexString(sequence.incrementAndGet());
    int count = previous != null ? previous.count() + 1 : 1;
    String first = previous != null ? previous.firstTimestamp() : now;
    Event event =
        new EventBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(namespace)
            .endMetadata()
            .withInvolvedObject(reference)
            .withType(type)
            .withReason(reason)
            .withMessage(message)
            .withNewSource()
            .withComponent(component)
            .endSource()
            .withReportingComponent(component)
            .withFirstTimestamp(first)
            .withLastTimestamp(now)
            .withCount(count)
            .build();
    create(event);
    synchronized (recorded) {
      recorded.put(key, new Recorded(namespace, name, count, first));
    }
  }

  private void create(Event event) {
    if (protobuf == null) {
      client.v1().events().inNamespace(event.getMetadata().getNamespace()).resource(event).create();
      return;
    }
    String url = protobuf.core("namespaces/" + event.getMetadata().getNamespace() + "/events");
    protobuf.send("POST", url, ProtobufBodies.eventCreate(event), event);
  }

  /**
   * A repeat: the existing Event's count and last time (and the latest message of a combined
   * event), by a merge patch.
   */
  private void patchCount(String namespace, String name, int count, String now, String message) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("count", count);
    fields.put("lastTimestamp", now);
    if (message != null) {
      fields.put("message", message);
    }
    String patch = client.getKubernetesSerialization().asJson(fields);
    if (protobuf == null) {
      // By resource(), not withName(): fabric8 would GET the event first, a verb the
      // documented ClusterRole does not grant on events (create, patch, update).
      client
          .v1()
          .events()
          .inNamespace(namespace)
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(namespace)
                  .endMetadata()
                  .build())
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      return;
    }
    String url = protobuf.core("namespaces/" + namespace + "/events/" + name);
    protobuf.send(
        "PATCH",
        url,
        PatchType.JSON_MERGE.getContentType(),
        patch.getBytes(StandardCharsets.UTF_8));
  }

  /** Writes the events still pending (waiting at most 5 s) and stops. */
  @Override
  public void close() throws InterruptedException {
    close(Duration.ofSeconds(5));
  }

  /**
   * Writes the events still pending, waiting at most {@code timeout}, and stops; what is not
   * written by then is dropped.
   */
  public void close(Duration timeout) throws InterruptedException {
    writer.shutdown();
    if (!writer.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      writer.shutdownNow();
    }
  }
}
