package io.ccm4j.runtime.workqueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkQueueTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final WorkQueue<String> queue =
      new WorkQueue<>(
          "test", RateLimiters.exponential(Duration.ofMillis(20), Duration.ofSeconds(1)), registry);

  @AfterEach
  void closeQueue() throws InterruptedException {
    queue.close();
  }

  @Test
  void addingAQueuedKeyAgainQueuesItOnce() throws InterruptedException {
    queue.add("a");
    queue.add("b");
    queue.add("a");

    assertThat(queue.length()).isEqualTo(2);
    assertThat(queue.take()).contains("a");
    assertThat(queue.take()).contains("b");
    assertThat(queue.length()).isZero();
  }

  @Test
  void aKeyAddedWhileInProcessIsQueuedAgainOnlyWhenDone() throws InterruptedException {
    queue.add("a");
    assertThat(queue.take()).contains("a");

    queue.add("a");
    queue.add("a");
    assertThat(queue.length()).as("not handed to a second worker while in process").isZero();

    queue.done("a");
    assertThat(queue.length()).isEqualTo(1);
    assertThat(queue.take()).contains("a");
    queue.done("a");
    assertThat(queue.length()).isZero();
  }

  @Test
  void addAfterQueuesTheKeyOnlyOnceTheDelayHasPassed() throws InterruptedException {
    long start = System.nanoTime();
    queue.addAfter("late", Duration.ofMillis(300));
    assertThat(queue.length()).isZero();

    Optional<String> taken = queue.take();

    assertThat(taken).contains("late");
    assertThat(Duration.ofNanos(System.nanoTime() - start))
        .isGreaterThanOrEqualTo(Duration.ofMillis(300));
  }

  @Test
  void addAfterKeepsTheEarliestOfSeveralPendingDelays() throws InterruptedException {
    queue.addAfter("k", Duration.ofSeconds(30));
    queue.addAfter("k", Duration.ofMillis(50));

    await().atMost(2, TimeUnit.SECONDS).until(() -> queue.length() == 1);
    assertThat(queue.take()).contains("k");
    queue.done("k");
    queue.addAfter("k", Duration.ofMillis(100));
    queue.addAfter("k", Duration.ofSeconds(30));
    await().atMost(2, TimeUnit.SECONDS).until(() -> queue.length() == 1);
  }

  @Test
  void addRateLimitedWaitsLongerAfterEachFailureAndForgetResets() {
    RateLimiter<String> limiter =
        RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(1000));

    assertThat(limiter.when("x")).isEqualTo(Duration.ofMillis(5));
    assertThat(limiter.when("x")).isEqualTo(Duration.ofMillis(10));
    assertThat(limiter.when("x")).isEqualTo(Duration.ofMillis(20));
    assertThat(limiter.when("y")).as("per item").isEqualTo(Duration.ofMillis(5));
    assertThat(limiter.numRequeues("x")).isEqualTo(3);

    limiter.forget("x");
    assertThat(limiter.numRequeues("x")).isZero();
    assertThat(limiter.when("x")).isEqualTo(Duration.ofMillis(5));
  }

  @Test
  void backoffIsCappedAndNeverOverflows() {
    RateLimiter<String> limiter =
        RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(1000));
    Duration last = Duration.ZERO;
    for (int i = 0; i < 200; i++) {
      last = limiter.when("x");
      assertThat(last).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(1000));
    }
    assertThat(last).isEqualTo(Duration.ofSeconds(1000));
  }

  @Test
  void tokenBucketAllowsTheBurstThenOneItemPerTokenInterval() {
    long[] now = {0};
    TokenBucketRateLimiter<String> bucket = new TokenBucketRateLimiter<>(10, 3, () -> now[0]);

    assertThat(bucket.when("a")).isZero();
    assertThat(bucket.when("b")).isZero();
    assertThat(bucket.when("c")).isZero();
    assertThat(bucket.when("d")).isEqualTo(Duration.ofMillis(100));
    assertThat(bucket.when("e")).isEqualTo(Duration.ofMillis(200));

    now[0] = TimeUnit.SECONDS.toNanos(10);
    assertThat(bucket.when("f")).as("refilled, but never beyond the burst").isZero();
    assertThat(bucket.when("g")).isZero();
    assertThat(bucket.when("h")).isZero();
    assertThat(bucket.when("i")).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void tryAcquireTakesOnlyTokensSavedUpNeverBorrowing() {
    long[] now = {0};
    TokenBucketRateLimiter<String> bucket = new TokenBucketRateLimiter<>(10, 2, () -> now[0]);

    assertThat(bucket.tryAcquire()).isTrue();
    assertThat(bucket.tryAcquire()).isTrue();
    assertThat(bucket.tryAcquire()).as("empty").isFalse();
    assertThat(bucket.tryAcquire()).as("a refusal borrows nothing").isFalse();
    now[0] = TimeUnit.MILLISECONDS.toNanos(100);
    assertThat(bucket.tryAcquire()).as("one token earned").isTrue();
    assertThat(bucket.tryAcquire()).isFalse();
    assertThat(bucket.when("x")).as("nothing was borrowed").isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void controllerDefaultIsTheLongerOfBackoffAndTheGlobalBucket() {
    RateLimiter<String> limiter = RateLimiters.controllerDefault();
    // The first 100 retries fit the burst, so only the per-item backoff counts.
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(10));
    for (int i = 0; i < 98; i++) {
      limiter.when("other-" + i);
    }
    // Bucket exhausted: a fresh item now waits for a token (about 100 ms at 10 qps), not 5 ms.
    assertThat(limiter.when("fresh")).isGreaterThan(Duration.ofMillis(50));
  }

  @Test
  void shutDownWakesBlockedWorkersAndDropsPendingWork() throws Exception {
    CompletableFuture<Optional<String>> blocked =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return queue.take();
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    queue.addAfter("never", Duration.ofMillis(100));

    queue.shutDown();

    assertThat(blocked.get(5, TimeUnit.SECONDS)).isEmpty();
    queue.add("ignored");
    assertThat(queue.length()).isZero();
    assertThat(queue.take()).isEmpty();
    assertThat(queue.isShuttingDown()).isTrue();
  }

  @Test
  void metricsCountAddsRetriesAndDepth() throws InterruptedException {
    // A retry delay no test run outlasts, so "b" is still waiting when depth is read.
    try (WorkQueue<String> slow =
        new WorkQueue<>(
            "slow", RateLimiters.exponential(Duration.ofHours(1), Duration.ofHours(1)), registry)) {
      slow.add("a");
      slow.add("a");
      slow.addRateLimited("b");

      assertThat(registry.get("workqueue.adds").tag("name", "slow").counter().count()).isEqualTo(1);
      assertThat(registry.get("workqueue.retries").tag("name", "slow").counter().count())
          .isEqualTo(1);
      assertThat(registry.get("workqueue.depth").tag("name", "slow").gauge().value()).isEqualTo(1);
    }
  }

  /**
   * Upstream's client-go queue latency and work duration are histograms with buckets 1e-8·10^k s, k
   * = 0..9: dashboards take quantiles from their buckets.
   */
  @Test
  void durationsAreHistogramsWithUpstreamsBuckets() throws InterruptedException {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (WorkQueue<String> nodes = nodesQueue(prometheus)) {
      nodes.add("a");
      String item = nodes.take().orElseThrow();
      nodes.done(item);

      String scrape = prometheus.scrape();
      assertThat(scrape)
          .contains(
              "# TYPE workqueue_queue_duration_seconds histogram",
              "# TYPE workqueue_work_duration_seconds histogram",
              "workqueue_queue_duration_seconds_bucket{name=\"Nodes\",le=\"10.0\"} 1",
              "workqueue_work_duration_seconds_bucket{name=\"Nodes\",le=\"10.0\"} 1");
      assertThat(scrape.lines().filter(l -> l.startsWith("workqueue_work_duration_seconds_bucket")))
          .extracting(l -> l.substring(l.indexOf("le=\"") + 4, l.lastIndexOf('"')))
          .containsExactly(
              "1.0E-8", "1.0E-7", "1.0E-6", "1.0E-5", "1.0E-4", "0.001", "0.01", "0.1", "1.0",
              "10.0", "+Inf");
    }
  }

  @Test
  void workInProgressIsServedAsClientGosTwoGauges() throws InterruptedException {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (WorkQueue<String> nodes = nodesQueue(prometheus)) {
      nodes.add("a");
      nodes.add("b");
      String first = nodes.take().orElseThrow();
      Thread.sleep(200);
      String second = nodes.take().orElseThrow();
      Thread.sleep(100);

      double unfinished =
          prometheus.get("workqueue.unfinished.work").tag("name", "Nodes").gauge().value();
      double longest =
          prometheus
              .get("workqueue.longest.running.processor")
              .tag("name", "Nodes")
              .gauge()
              .value();
      assertThat(longest).isBetween(0.3, 5.0);
      assertThat(unfinished).isGreaterThanOrEqualTo(longest + 0.1);
      assertThat(prometheus.scrape())
          .contains(
              "workqueue_unfinished_work_seconds{name=\"Nodes\"}",
              "workqueue_longest_running_processor_seconds{name=\"Nodes\"}");

      nodes.done(first);
      nodes.done(second);
      assertThat(prometheus.get("workqueue.unfinished.work").gauge().value()).isZero();
      assertThat(prometheus.get("workqueue.longest.running.processor").gauge().value()).isZero();
    }
  }

  /**
   * Two queues of one name on one registry (two kubevirt EndpointSlice controllers, say) share
   * their series, as client-go's do: the depth is the sum of both. The second queue's gauges were
   * ignored, with a warning, and the depth read the first queue alone.
   */
  @Test
  void queuesOfOneNameShareTheirGauges() throws InterruptedException {
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (WorkQueue<String> first = nodesQueue(prometheus);
        WorkQueue<String> second = nodesQueue(prometheus)) {
      first.add("a");
      second.add("b");
      second.add("c");
      assertThat(prometheus.get("workqueue.depth").tag("name", "Nodes").gauge().value())
          .isEqualTo(3);
      assertThat(prometheus.get("workqueue.adds").tag("name", "Nodes").counter().count())
          .isEqualTo(3);

      first.close();
      assertThat(prometheus.get("workqueue.depth").tag("name", "Nodes").gauge().value())
          .as("a closed queue no longer counts")
          .isEqualTo(2);
    }
  }

  /** The node controller's queue, as Prometheus scrapes it. */
  private static WorkQueue<String> nodesQueue(PrometheusMeterRegistry prometheus) {
    return new WorkQueue<>(
        "Nodes",
        RateLimiters.exponential(Duration.ofMillis(20), Duration.ofSeconds(1)),
        prometheus);
  }
}
