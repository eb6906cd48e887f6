package io.ccm4j.runtime.events;

import io.ccm4j.runtime.workqueue.TokenBucketRateLimiter;
import io.fabric8.kubernetes.api.model.ObjectReference;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * What client-go's event correlator (tools/record/events_cache.go, with the defaults every upstream
 * recorder uses) does to an event before it is written, for one event source (§6.1):
 *
 * <ul>
 *   <li>similar events (same object, type and reason) with 10 different messages within 10 minutes
 *       become one event, "(combined from similar events): " and the latest message, whose count
 *       grows with each further one (a message that varies on each try, a duration say, would
 *       otherwise be a new Event each time);
 *   <li>an object's events of one type pass a token bucket of 25, refilled one per 5 minutes; an
 *       event over it is not written, but still counted in its Event's count.
 * </ul>
 */
final class EventCorrelator {

  static final int MAX_SIMILAR = 10;
  static final Duration SIMILAR_WINDOW = Duration.ofMinutes(10);
  static final int SPAM_BURST = 25;
  static final double SPAM_QPS = 1.0 / 300;
  static final String COMBINED_PREFIX = "(combined from similar events): ";
  private static final int CACHE_ENTRIES = 4096;

  /**
   * @param message the message to write
   * @param combined whether it is the combined event of its object, type and reason (counted under
   *     that, whatever its message)
   * @param skip whether the spam filter holds it back: counted, not written
   */
  record Decision(String message, boolean combined, boolean skip) {}

  private record Similar(Set<String> messages, long lastNanos) {}

  private final LongSupplier nanoTime;
  private final Map<String, Similar> similar = lru();
  private final Map<String, TokenBucketRateLimiter<Object>> spam = lru();

  EventCorrelator() {
    this(System::nanoTime);
  }

  EventCorrelator(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  synchronized Decision correlate(
      ObjectReference object, String type, String reason, String message) {
    long now = nanoTime.getAsLong();
    String objectKey =
        String.join(
            "\u0000",
            String.valueOf(object.getKind()),
            String.valueOf(object.getNamespace()),
            String.valueOf(object.getName()),
            String.valueOf(object.getUid()),
            String.valueOf(object.getApiVersion()),
            type);
    String similarKey = objectKey + "\u0000" + reason;
    Similar record = similar.get(similarKey);
    if (record == null || now - record.lastNanos() > SIMILAR_WINDOW.toNanos()) {
      record = new Similar(new HashSet<>(), now);
    }
    record.messages().add(message);
    boolean combined = record.messages().size() >= MAX_SIMILAR;
    if (combined) {
      Iterator<String> any = record.messages().iterator();
      any.next();
      any.remove();
    }
    similar.put(similarKey, new Similar(record.messages(), now));
    TokenBucketRateLimiter<Object> bucket =
        spam.computeIfAbsent(objectKey, k -> new TokenBucketRateLimiter<>(SPAM_QPS, SPAM_BURST));
    boolean skip = !bucket.tryAcquire();
    return new Decision(combined ? COMBINED_PREFIX + message : message, combined, skip);
  }

  private static <V> Map<String, V> lru() {
    return new LinkedHashMap<>(256, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
        return size() > CACHE_ENTRIES;
      }
    };
  }
}
