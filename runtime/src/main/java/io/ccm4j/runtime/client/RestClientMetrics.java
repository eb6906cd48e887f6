package io.ccm4j.runtime.client;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * client-go's REST client metrics, as upstream's managers expose them (component-base's {@code
 * metrics/prometheus/restclient}, loaded by the cloud- and kube-controller-manager's {@code
 * prometheus/clientgo} import), for the manager's API clients:
 *
 * <ul>
 *   <li>{@code rest_client_requests_total{code,host,method}}: every attempt, retries included, by
 *       its status code ({@code "200"}, a watch's once established), or {@code <error>} when it got
 *       no answer;
 *   <li>{@code rest_client_request_duration_seconds{host,verb}}: from before the client-side
 *       throttle to the answer's headers, per attempt that got an answer, watches left out;
 *   <li>{@code rest_client_rate_limiter_duration_seconds{host,verb}}: the wait in the client-side
 *       throttle ({@code --kube-api-qps}), per attempt.
 * </ul>
 *
 * <p>Labels as client-go's: {@code host} is the API server's URL's host and port as given ({@code
 * 127.0.0.1:6443}, {@code [::1]:6443}, a name without a port when the URL has none), {@code
 * verb}/{@code method} the HTTP method ({@code GET}, {@code PATCH}). The histograms have upstream's
 * buckets. The meters are made once per label set and kept: a request costs two map reads and an
 * increment. Nothing is counted before {@link #bindTo}.
 */
public final class RestClientMetrics {

  /** client-go's code label of an attempt that got no answer (a transport failure, a timeout). */
  public static final String NO_ANSWER = "<error>";

  /** component-base's buckets of both duration histograms, 5 ms to 60 s. */
  static final Duration[] DURATION_BUCKETS = {
    Duration.ofMillis(5),
    Duration.ofMillis(25),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(2),
    Duration.ofSeconds(4),
    Duration.ofSeconds(8),
    Duration.ofSeconds(15),
    Duration.ofSeconds(30),
    Duration.ofSeconds(60)
  };

  /** Status codes kept in an array, by code; any other (none in practice) is looked up. */
  private static final int CODES = 600;

  private volatile MeterRegistry registry;
  private final Map<String, Map<String, Verb>> hosts = new ConcurrentHashMap<>();

  /** From now on the requests are counted in {@code registry}; before, they are not. */
  public void bindTo(MeterRegistry registry) {
    this.registry = registry;
    hosts.clear();
  }

  /** client-go's {@code host} label of the requests to the API server at {@code url}. */
  public static String host(String url) {
    String authority;
    try {
      authority = url == null ? null : URI.create(url).getRawAuthority();
    } catch (IllegalArgumentException e) {
      authority = null;
    }
    if (authority == null) {
      return "none"; // client-go's label without a base URL
    }
    int user = authority.lastIndexOf('@');
    return user < 0 ? authority : authority.substring(user + 1);
  }

  /** client-go's {@code code} label of an answer's status. */
  static String code(int status) {
    return Integer.toString(status);
  }

  /**
   * An attempt answered with {@code status}, {@code nanos} after it started (negative: unknown).
   */
  void answered(String host, String method, int status, long nanos) {
    Verb verb = verb(host, method);
    if (verb == null) {
      return;
    }
    verb.requests(status).increment();
    if (nanos >= 0) {
      verb.duration.record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  /** An attempt that got no answer. */
  void unanswered(String host, String method) {
    Verb verb = verb(host, method);
    if (verb != null) {
      verb.unanswered().increment();
    }
  }

  /** An attempt waited {@code nanos} in the client-side throttle. */
  void throttled(String host, String method, long nanos) {
    Verb verb = verb(host, method);
    if (verb != null) {
      verb.rateLimiter.record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  private Verb verb(String host, String method) {
    MeterRegistry bound = registry;
    if (bound == null) {
      return null;
    }
    Map<String, Verb> verbs = hosts.get(host);
    if (verbs == null) {
      verbs = hosts.computeIfAbsent(host, h -> new ConcurrentHashMap<>());
    }
    Verb verb = verbs.get(method);
    return verb != null ? verb : verbs.computeIfAbsent(method, m -> new Verb(bound, host, m));
  }

  /** The meters of one host and verb. */
  private static final class Verb {
    private final MeterRegistry registry;
    private final String host;
    private final String verb;
    private final Timer duration;
    private final Timer rateLimiter;
    private volatile Counter unanswered;
    private final AtomicReferenceArray<Counter> byCode = new AtomicReferenceArray<>(CODES);

    Verb(MeterRegistry registry, String host, String verb) {
      this.registry = registry;
      this.host = host;
      this.verb = verb;
      this.duration =
          Timer.builder("rest.client.request.duration")
              .tag("host", host)
              .tag("verb", verb)
              .description("[ALPHA] Request latency in seconds. Broken down by verb, and host.")
              .serviceLevelObjectives(DURATION_BUCKETS)
              .register(registry);
      this.rateLimiter =
          Timer.builder("rest.client.rate.limiter.duration")
              .tag("host", host)
              .tag("verb", verb)
              .description(
                  "[ALPHA] Client side rate limiter latency in seconds. Broken down by verb, and"
                      + " host.")
              .serviceLevelObjectives(DURATION_BUCKETS)
              .register(registry);
    }

    /** Made on the first attempt without an answer: client-go has no series before one. */
    Counter unanswered() {
      Counter counter = unanswered;
      if (counter == null) {
        counter = counter(NO_ANSWER);
        unanswered = counter;
      }
      return counter;
    }

    Counter requests(int status) {
      if (status < 0 || status >= CODES) {
        return counter(code(status));
      }
      Counter counter = byCode.get(status);
      if (counter == null) {
        counter = counter(code(status));
        byCode.set(status, counter);
      }
      return counter;
    }

    private Counter counter(String code) {
      return Counter.builder("rest.client.requests")
          .tag("code", code)
          .tag("host", host)
          .tag("method", verb)
          .description(
              "[ALPHA] Number of HTTP requests, partitioned by status code, method, and host.")
          .register(registry);
    }
  }
}
