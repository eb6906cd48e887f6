package io.ccm4j.runtime.client;

import io.ccm4j.cloudprovider.GoDurations;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the manager's shared informers, so that none can freeze silently.
 *
 * <ul>
 *   <li>Each keeps retrying, as upstream's reflector does: its exception handler answers "retry" to
 *       every failure (a watch event that does not parse, a failed list, a failed reconnect), where
 *       fabric8 would stop it on a watch error. fabric8 then lists and watches again after its
 *       backoff (1 s doubling to 32 s).
 *   <li>One that stops all the same (its {@code stopped()} completes exceptionally) is fatal: the
 *       listener hears which and why (the manager exits, so that a standby takes over).
 *   <li>One that has not been watching for longer than the bound ({@link #DEFAULT_BOUND}, longer
 *       than fabric8's longest backoff, so a reconnect that goes through in time never shows) is
 *       stalled: {@link #health} names it and since when, for the health checks of the controllers
 *       that use it, until it watches again. The shipped liveness probe on {@code /healthz} then
 *       restarts a manager whose informer stays stalled.
 * </ul>
 *
 * <p>Upstream has no such check: its reflector retries for ever and {@code /healthz} says nothing
 * of it.
 */
public final class InformerWatchdog implements AutoCloseable {

  /** How long an informer may go without a watch before it counts as stalled. */
  public static final Duration DEFAULT_BOUND = Duration.ofSeconds(60);

  private static final Logger log = LoggerFactory.getLogger(InformerWatchdog.class);

  private final Duration bound;
  private final InstantSource clock;
  private final BiConsumer<String, Throwable> onStopped;
  private final Map<SharedIndexInformer<?>, Watched> watched = new ConcurrentHashMap<>();
  private final ScheduledExecutorService sampler;
  private volatile boolean closed;

  /** What the watchdog knows of one informer. */
  private static final class Watched {
    final String resource;
    volatile Instant notWatchingSince;
    volatile Throwable lastFailure;
    volatile boolean reportedStalled;

    Watched(String resource, Instant since) {
      this.resource = resource;
      this.notWatchingSince = since;
    }
  }

  /**
   * @param bound how long an informer may go without a watch before it counts as stalled
   * @param onStopped called once with the resource (its kind) and the cause when an informer stops
   *     on its own
   */
  public InformerWatchdog(Duration bound, BiConsumer<String, Throwable> onStopped) {
    this(bound, onStopped, InstantSource.system());
    long period = Math.clamp(bound.toMillis() / 10, 100, 5_000);
    sampler.scheduleWithFixedDelay(this::sample, period, period, TimeUnit.MILLISECONDS);
  }

  /** Sampled only when {@link #sample} or {@link #health} is called (tests). */
  InformerWatchdog(Duration bound, BiConsumer<String, Throwable> onStopped, InstantSource clock) {
    if (bound.isNegative() || bound.isZero()) {
      throw new IllegalArgumentException("the bound must be positive, got " + bound);
    }
    this.bound = bound;
    this.onStopped = onStopped;
    this.clock = clock;
    this.sampler =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("ccm4j-informer-watchdog").factory());
  }

  public Duration bound() {
    return bound;
  }

  /**
   * Watches an informer; before it starts, as its exception handler can only be set then.
   *
   * @return the informer
   */
  public <T> SharedIndexInformer<T> watch(SharedIndexInformer<T> informer) {
    Watched state = new Watched(informer.getApiTypeClass().getSimpleName(), clock.instant());
    if (watched.putIfAbsent(informer, state) != null) {
      return informer;
    }
    informer.exceptionHandler(
        (started, failure) -> {
          state.lastFailure = failure;
          return true; // as upstream's reflector: never give up
        });
    informer
        .stopped()
        .whenComplete(
            (ignored, cause) -> {
              // Completed normally: stopped by its owner. Exceptionally: it gave up on its own.
              if (cause != null && !closed) {
                onStopped.accept(state.resource, cause);
              }
            });
    return informer;
  }

  /**
   * Why the given informers are not healthy, or empty when each of them watches or has been without
   * a watch for at most the bound.
   */
  public Optional<String> health(Collection<? extends SharedIndexInformer<?>> informers) {
    Instant now = clock.instant();
    List<String> problems =
        informers.stream()
            .map(informer -> Map.entry(informer, watched.get(informer)))
            .filter(entry -> entry.getValue() != null)
            .flatMap(entry -> problem(entry.getValue(), isWatching(entry.getKey()), now).stream())
            .toList();
    return problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
  }

  /** Notes which informers watch, and logs those that stall or recover. */
  void sample() {
    Instant now = clock.instant();
    watched.forEach(
        (informer, state) -> {
          Optional<String> problem = problem(state, isWatching(informer), now);
          if (problem.isPresent() && !state.reportedStalled) {
            state.reportedStalled = true;
            log.warn("{}", problem.get());
          } else if (problem.isEmpty() && state.reportedStalled && state.notWatchingSince == null) {
            state.reportedStalled = false;
            log.info("informer {} watches again", state.resource);
          }
        });
  }

  /** fabric8's answer; its {@code isWatching} can throw while a watch is being replaced. */
  private static boolean isWatching(SharedIndexInformer<?> informer) {
    try {
      return informer.isWatching();
    } catch (RuntimeException e) {
      return false;
    }
  }

  private Optional<String> problem(Watched state, boolean watching, Instant now) {
    if (watching) {
      state.notWatchingSince = null;
    } else if (state.notWatchingSince == null) {
      state.notWatchingSince = now;
    }
    Instant since = state.notWatchingSince;
    if (!isStalled(since, now, bound)) {
      return Optional.empty();
    }
    Throwable failure = state.lastFailure;
    return Optional.of(
        "informer %s has not been watching since %s (%s, more than %s)%s"
            .formatted(
                state.resource,
                since.truncatedTo(ChronoUnit.SECONDS),
                GoDurations.format(Duration.between(since, now).truncatedTo(ChronoUnit.SECONDS)),
                GoDurations.format(bound),
                failure == null ? "" : "; last failure: " + oneLine(failure)));
  }

  /**
   * Whether an informer without a watch since {@code since} (null: it watches) is stalled at {@code
   * now}: without one for longer than the bound.
   */
  static boolean isStalled(Instant since, Instant now, Duration bound) {
    return since != null && Duration.between(since, now).compareTo(bound) > 0;
  }

  /** The failure's first line, else its cause's: what a health reason or a log line can hold. */
  private static String oneLine(Throwable failure) {
    Throwable shown = failure;
    while (shown.getMessage() == null && shown.getCause() != null && shown.getCause() != shown) {
      shown = shown.getCause();
    }
    String message = String.valueOf(shown.getMessage()).lines().findFirst().orElse("");
    return shown.getClass().getSimpleName() + ": " + message;
  }

  /** Stops sampling; informers that stop from now on are not reported. */
  @Override
  public void close() {
    closed = true;
    sampler.shutdownNow();
  }
}
