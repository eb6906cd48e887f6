package io.ccm4j.runtime.workqueue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A rate-limited work queue with client-go's guarantees:
 *
 * <ul>
 *   <li>an item is queued at most once, however often it is added (keys, not events);
 *   <li>an item is processed by one worker at a time; added while in process, it is queued again
 *       when the worker calls {@link #done};
 *   <li>{@link #addAfter} waits before adding, keeping only the earliest of several pending delays;
 *   <li>{@link #addRateLimited} asks the {@link RateLimiter} how long to wait.
 * </ul>
 *
 * <p>Workers loop on {@link #take()} until it returns empty, which it does once the queue is shut
 * down.
 */
public final class WorkQueue<T> implements AutoCloseable {

  private final String name;
  private final RateLimiter<T> rateLimiter;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition itemAvailable = lock.newCondition();
  private final Condition delayChanged = lock.newCondition();

  private final ArrayDeque<T> queue = new ArrayDeque<>();
  private final Set<T> dirty = new HashSet<>();
  private final Set<T> processing = new HashSet<>();
  private final Map<T, Long> addedAtNanos = new HashMap<>();
  private final Map<T, Long> startedAtNanos = new HashMap<>();

  private final Map<T, Long> waitingUntil = new HashMap<>();
  private final PriorityQueue<Delayed<T>> waiting = new PriorityQueue<>();
  private final Thread delayThread;

  private final QueueGauges gauges;
  private final Counter adds;
  private final Counter retries;
  private final Timer queueDuration;
  private final Timer workDuration;
  private boolean shuttingDown;

  private record Delayed<T>(T item, long readyAtNanos) implements Comparable<Delayed<T>> {
    @Override
    public int compareTo(Delayed<T> other) {
      return Long.compare(readyAtNanos, other.readyAtNanos);
    }
  }

  /**
   * client-go's buckets for the queue latency and work duration histograms, 1e-8·10^k s for k =
   * 0..9 ({@code ExponentialBuckets(10e-9, 10, 10)}).
   */
  private static final Duration[] DURATION_BUCKETS = {
    Duration.ofNanos(10),
    Duration.ofNanos(100),
    Duration.ofNanos(1_000),
    Duration.ofNanos(10_000),
    Duration.ofNanos(100_000),
    Duration.ofMillis(1),
    Duration.ofMillis(10),
    Duration.ofMillis(100),
    Duration.ofSeconds(1),
    Duration.ofSeconds(10)
  };

  /**
   * @param name the queue's name, as upstream names it ({@code Nodes}, {@code service}, ...): the
   *     {@code name} tag of the {@code workqueue_*} metrics
   */
  public WorkQueue(String name, RateLimiter<T> rateLimiter, MeterRegistry registry) {
    this.name = name;
    this.rateLimiter = rateLimiter;
    this.adds =
        Counter.builder("workqueue.adds")
            .tag("name", name)
            .description("[BETA] Total number of adds handled by workqueue")
            .register(registry);
    this.retries =
        Counter.builder("workqueue.retries")
            .tag("name", name)
            .description("[BETA] Total number of retries handled by workqueue")
            .register(registry);
    this.queueDuration =
        Timer.builder("workqueue.queue.duration")
            .tag("name", name)
            .description(
                "[BETA] How long in seconds an item stays in workqueue before being requested.")
            .serviceLevelObjectives(DURATION_BUCKETS)
            .register(registry);
    this.workDuration =
        Timer.builder("workqueue.work.duration")
            .tag("name", name)
            .description("[BETA] How long in seconds processing an item from workqueue takes.")
            .serviceLevelObjectives(DURATION_BUCKETS)
            .register(registry);
    this.delayThread =
        Thread.ofPlatform()
            .daemon()
            .name("workqueue-" + name + "-delay")
            .start(this::releaseDelayed);
    // Last: a scrape may read this queue from here on.
    this.gauges = QueueGauges.join(registry, name, this);
  }

  public String name() {
    return name;
  }

  /** Queues the item unless it is already queued. Ignored after shutdown. */
  public void add(T item) {
    lock.lock();
    try {
      addLocked(item);
    } finally {
      lock.unlock();
    }
  }

  private void addLocked(T item) {
    if (shuttingDown || dirty.contains(item)) {
      return;
    }
    adds.increment();
    dirty.add(item);
    addedAtNanos.putIfAbsent(item, System.nanoTime());
    if (processing.contains(item)) {
      return;
    }
    queue.addLast(item);
    itemAvailable.signal();
  }

  /** Queues the item once {@code delay} has passed; an earlier pending delay for it wins. */
  public void addAfter(T item, Duration delay) {
    if (delay.isNegative() || delay.isZero()) {
      add(item);
      return;
    }
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      long readyAt = System.nanoTime() + delay.toNanos();
      Long current = waitingUntil.get(item);
      if (current != null && current <= readyAt) {
        return;
      }
      waitingUntil.put(item, readyAt);
      waiting.add(new Delayed<>(item, readyAt));
      delayChanged.signal();
    } finally {
      lock.unlock();
    }
  }

  /** Queues the item after the delay the rate limiter gives it. */
  public void addRateLimited(T item) {
    retries.increment();
    addAfter(item, rateLimiter.when(item));
  }

  /** Resets the item's backoff; call it when the item was processed successfully. */
  public void forget(T item) {
    rateLimiter.forget(item);
  }

  public int numRequeues(T item) {
    return rateLimiter.numRequeues(item);
  }

  /**
   * Blocks until an item is available and marks it as being processed; the caller must call {@link
   * #done} with it. Returns empty once the queue is shut down.
   */
  public Optional<T> take() throws InterruptedException {
    lock.lock();
    try {
      while (queue.isEmpty() && !shuttingDown) {
        itemAvailable.await();
      }
      if (queue.isEmpty()) {
        return Optional.empty();
      }
      T item = queue.removeFirst();
      dirty.remove(item);
      processing.add(item);
      long now = System.nanoTime();
      Long addedAt = addedAtNanos.remove(item);
      if (addedAt != null) {
        queueDuration.record(now - addedAt, TimeUnit.NANOSECONDS);
      }
      startedAtNanos.put(item, now);
      return Optional.of(item);
    } finally {
      lock.unlock();
    }
  }

  /** Marks the item as processed; if it was added meanwhile, it is queued again. */
  public void done(T item) {
    lock.lock();
    try {
      processing.remove(item);
      Long startedAt = startedAtNanos.remove(item);
      if (startedAt != null) {
        workDuration.record(System.nanoTime() - startedAt, TimeUnit.NANOSECONDS);
      }
      if (dirty.contains(item) && !shuttingDown) {
        queue.addLast(item);
        itemAvailable.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /** The seconds the items in process have been processed: summed, or the longest. */
  double inProgressSeconds(boolean longest) {
    lock.lock();
    try {
      long now = System.nanoTime();
      long total = 0;
      long max = 0;
      for (long startedAt : startedAtNanos.values()) {
        total += now - startedAt;
        max = Math.max(max, now - startedAt);
      }
      return (longest ? max : total) / 1e9;
    } finally {
      lock.unlock();
    }
  }

  /** The number of items waiting for a worker (not counting delayed ones). */
  public int length() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Stops accepting items, drops delayed ones and wakes every waiting worker, which then exits. */
  public void shutDown() {
    lock.lock();
    try {
      shuttingDown = true;
      queue.clear();
      dirty.clear();
      waiting.clear();
      waitingUntil.clear();
      itemAvailable.signalAll();
      delayChanged.signalAll();
    } finally {
      lock.unlock();
    }
    delayThread.interrupt();
  }

  public boolean isShuttingDown() {
    lock.lock();
    try {
      return shuttingDown;
    } finally {
      lock.unlock();
    }
  }

  /** Shuts down and waits for the delay thread to end. */
  @Override
  public void close() throws InterruptedException {
    shutDown();
    gauges.leave(this);
    delayThread.join();
  }

  private void releaseDelayed() {
    lock.lock();
    try {
      while (!shuttingDown) {
        Delayed<T> next = waiting.peek();
        if (next == null) {
          delayChanged.await();
          continue;
        }
        long wait = next.readyAtNanos() - System.nanoTime();
        if (wait > 0) {
          delayChanged.awaitNanos(wait);
          continue;
        }
        waiting.poll();
        // A later entry superseded by an earlier addAfter is stale: only the recorded time counts.
        if (waitingUntil.remove(next.item(), next.readyAtNanos())) {
          addLocked(next.item());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
  }
}
