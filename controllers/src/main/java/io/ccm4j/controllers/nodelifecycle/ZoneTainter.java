package io.ccm4j.controllers.nodelifecycle;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * One zone's queue of nodes waiting for their first NoExecute taint, drained at the zone's rate
 * (node-lifecycle spec §3.5): a token bucket of burst 1 that starts full, a queue ordered by when
 * each node may be processed, and a set that keeps a processed node from being queued again until
 * it is removed. Two locks, as upstream's RateLimitedTimedQueue has: the queue's, held only for a
 * moment, and the limiter's, held while nodes are processed (a taint write, perhaps waiting for the
 * client's rate limit), so the health pass that queues and removes nodes never waits for a write.
 */
final class ZoneTainter {

  /** What processing a node decided. */
  record Outcome(boolean done, Duration retryAfter) {
    static final Outcome DONE = new Outcome(true, Duration.ZERO);

    /**
     * Not done, tried again as soon as the zone has a token: the node stays due (upstream's {@code
     * (false, 0)}), ahead of every node queued after it.
     */
    static final Outcome AT_NEXT_TOKEN = new Outcome(false, Duration.ZERO);

    static Outcome retry(Duration after) {
      return new Outcome(false, after);
    }
  }

  @FunctionalInterface
  interface Processor {
    Outcome process(String nodeName);
  }

  private record Entry(String node, Instant processAt) {}

  private final InstantSource clock;
  private final PriorityQueue<Entry> queue =
      new PriorityQueue<>((a, b) -> a.processAt().compareTo(b.processAt()));
  private final Set<String> set = new HashSet<>();

  /** Guards the rate and the bucket, and is held while nodes are processed. */
  private final Object limiterLock = new Object();

  private double qps;
  private double tokens;
  private Instant last;

  /** Stopped by a rate set to 0: upstream's never-limiter, which has no token at all. */
  private boolean stopped;

  /**
   * A new queue's bucket starts full whatever its rate, as upstream's {@code
   * NewTokenBucketRateLimiter(qps, 1)} (x/time's NewLimiter fills it): at a rate of 0 its one token
   * lets one node through, and no other follows until the rate changes.
   */
  ZoneTainter(double qps, InstantSource clock) {
    this.clock = clock;
    this.qps = qps;
    this.tokens = 1;
    this.last = clock.instant();
  }

  /** Queues the node unless it is queued or was processed and not removed since. */
  synchronized boolean add(String node) {
    if (!set.add(node)) {
      return false;
    }
    queue.add(new Entry(node, clock.instant()));
    return true;
  }

  /** Forgets the node entirely. */
  synchronized boolean remove(String node) {
    queue.removeIf(entry -> entry.node().equals(node));
    return set.remove(node);
  }

  /**
   * Processes nodes while the bucket has tokens and the head is due; the token is taken before the
   * time check, as upstream does. The queue is not locked while a node is processed: a node removed
   * meanwhile stays removed, one queued again is taken off the queue (kept in the set) when its
   * processing is done, as upstream's RemoveFromQueue and Replace do by name.
   */
  void tryProcess(Processor processor) {
    synchronized (limiterLock) {
      Optional<Entry> head = peek();
      while (head.isPresent()) {
        if (!tryAccept()) {
          return;
        }
        Instant now = clock.instant();
        Entry entry = head.get();
        if (now.isBefore(entry.processAt())) {
          return;
        }
        Outcome outcome = processor.process(entry.node());
        synchronized (this) {
          boolean queued = queue.removeIf(e -> e.node().equals(entry.node()));
          if (!outcome.done() && queued) {
            queue.add(new Entry(entry.node(), now.plus(outcome.retryAfter()).plusNanos(1)));
          }
        }
        head = peek();
      }
    }
  }

  private synchronized Optional<Entry> peek() {
    return Optional.ofNullable(queue.peek());
  }

  /**
   * Changes the rate, as upstream's SwapLimiter: nothing when it is the rate already (a new queue's
   * bucket at 0 keeps its token), 0 stops the zone, and no free token comes with a change: a new
   * bucket starts full only if the old one still had a token.
   */
  void setRate(double newQps) {
    synchronized (limiterLock) {
      if (newQps == qps) {
        return;
      }
      if (newQps <= 0) {
        stopped = true;
        qps = 0;
        tokens = 0;
        return;
      }
      boolean hadToken = tryAccept();
      stopped = false;
      qps = newQps;
      last = clock.instant();
      tokens = hadToken ? 1 : 0;
    }
  }

  /** Whether the node was queued and not removed since: it waits, or was processed. */
  synchronized boolean isMarked(String node) {
    return set.contains(node);
  }

  /** Whether the node waits in the queue. */
  synchronized boolean contains(String node) {
    return queue.stream().anyMatch(entry -> entry.node().equals(node));
  }

  double rate() {
    synchronized (limiterLock) {
      return qps;
    }
  }

  synchronized int size() {
    return queue.size();
  }

  synchronized Optional<String> head() {
    return Optional.ofNullable(queue.peek()).map(Entry::node);
  }

  /**
   * Takes a token if the bucket has one (at a rate of 0, only the one a new bucket starts with);
   * the caller holds {@link #limiterLock}.
   */
  private boolean tryAccept() {
    if (stopped) {
      return false;
    }
    Instant now = clock.instant();
    tokens = Math.min(1, tokens + Duration.between(last, now).toNanos() / 1e9 * qps);
    last = now;
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }
}
