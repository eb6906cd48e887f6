package io.ccm4j.runtime.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.ccm4j.runtime.workqueue.RateLimiters;
import io.ccm4j.runtime.workqueue.WorkQueue;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class QueueWorkersTest {

  private final WorkQueue<String> queue =
      new WorkQueue<>(
          "workers-test",
          RateLimiters.exponential(Duration.ofMillis(10), Duration.ofSeconds(1)),
          new SimpleMeterRegistry());

  @Test
  void aFailingKeyIsRetriedWithBackoffAndForgottenOnSuccess() throws InterruptedException {
    AtomicInteger attempts = new AtomicInteger();
    QueueWorkers<String> workers =
        new QueueWorkers<>(
            "test",
            queue,
            key -> {
              if (attempts.incrementAndGet() < 3) {
                throw new CloudException("cloud unavailable");
              }
            },
            2);
    workers.start();
    queue.add("node-1");

    await().atMost(5, TimeUnit.SECONDS).until(() -> attempts.get() == 3);
    await().atMost(5, TimeUnit.SECONDS).until(() -> queue.numRequeues("node-1") == 0);
    workers.close();
  }

  /**
   * A sync that failed is logged by what says why: a transport failure by its cause, not fabric8's
   * "An error has occurred."; anything else by its own message.
   */
  @Test
  void aFailedSyncIsLoggedByItsReason() throws InterruptedException {
    Logger logger = (Logger) LoggerFactory.getLogger(QueueWorkers.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    QueueWorkers<String> workers =
        new QueueWorkers<>(
            "test",
            queue,
            key -> {
              if (key.equals("unreachable")) {
                throw new KubernetesClientException(
                    "An error has occurred.", new ConnectException("Connection refused"));
              }
              throw new CloudException("node " + key + ": cloud unavailable");
            },
            1);
    try {
      workers.start();
      queue.add("unreachable");
      queue.add("node-1");
      await()
          .atMost(5, TimeUnit.SECONDS)
          .untilAsserted(
              () ->
                  assertThat(logged.list)
                      .extracting(ILoggingEvent::getFormattedMessage)
                      .contains(
                          "test: error syncing unreachable, requeuing: ConnectException: Connection"
                              + " refused",
                          "test: error syncing node-1, requeuing: node node-1: cloud unavailable"));
    } finally {
      workers.close();
      logger.detachAppender(logged);
    }
  }

  /**
   * A retry after a fixed delay is logged as upstream's service controller logs it: a warning,
   * "error processing … (retrying in …): …", not an INFO line that reads as progress.
   */
  @Test
  void aRetryAfterItsDelayIsAWarningInUpstreamsWords() throws InterruptedException {
    Logger logger = (Logger) LoggerFactory.getLogger(QueueWorkers.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    AtomicInteger attempts = new AtomicInteger();
    QueueWorkers<String> workers =
        new QueueWorkers<>(
            "test",
            queue,
            key -> {
              if (attempts.incrementAndGet() == 1) {
                throw new CloudException(
                    "failed to ensure load balancer",
                    RetryAfterException.inProgress(
                        "load balancer is being provisioned", Duration.ofMillis(50)));
              }
            },
            1);
    try {
      workers.start();
      queue.add("default/web");
      await().atMost(5, TimeUnit.SECONDS).until(() -> attempts.get() == 2);
      assertThat(logged.list)
          .singleElement()
          .satisfies(
              e -> {
                assertThat(e.getLevel()).isEqualTo(Level.WARN);
                assertThat(e.getFormattedMessage())
                    .isEqualTo(
                        "test: error processing default/web (retrying in 50ms):"
                            + " failed to ensure load balancer");
              });
    } finally {
      workers.close();
      logger.detachAppender(logged);
    }
  }

  @Test
  void aKeyThatHitsABugBacksOffWhileTheWorkerGoesOnWithOthers() throws InterruptedException {
    List<String> synced = new CopyOnWriteArrayList<>();
    AtomicInteger badAttempts = new AtomicInteger();
    QueueWorkers<String> workers =
        new QueueWorkers<>(
            "test",
            queue,
            key -> {
              if (key.equals("bad")) {
                badAttempts.incrementAndGet();
                throw new StackOverflowError("recursion in a decision function");
              }
              synced.add(key);
            },
            1);
    workers.start();
    queue.add("bad");
    queue.add("good-1");

    await().atMost(5, TimeUnit.SECONDS).until(() -> badAttempts.get() >= 2);
    queue.add("good-2");
    await()
        .atMost(5, TimeUnit.SECONDS)
        .until(() -> synced.containsAll(List.of("good-1", "good-2")));
    assertThat(queue.numRequeues("bad")).isPositive();
    workers.close();
  }

  @Test
  void anErrorOfTheJvmEndsItsWorkerTurnsHealthRedAndReachesTheUncaughtHandler()
      throws InterruptedException {
    List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
    Thread.setDefaultUncaughtExceptionHandler((thread, error) -> uncaught.add(error));
    List<String> synced = new CopyOnWriteArrayList<>();
    QueueWorkers<String> workers =
        new QueueWorkers<>(
            "fatal",
            queue,
            key -> {
              if (key.equals("oom")) {
                throw new InternalError(
                    "the JVM's own"); // as OutOfMemoryError, which surefire dislikes
              }
              if (key.equals("linkage")) {
                throw new NoClassDefFoundError("io/ccm4j/Missing"); // a bug, not the JVM's own
              }
              synced.add(key);
            },
            2);
    try {
      workers.start();
      assertThat(workers.health()).isEmpty();
      queue.add("linkage");
      queue.add("oom");

      await() // not Awaitility's own handler: the test's must see the error
          .dontCatchUncaughtExceptions()
          .atMost(5, TimeUnit.SECONDS)
          .until(() -> workers.health().isPresent());
      assertThat(workers.health().orElseThrow())
          .startsWith("fatal-worker-")
          .contains("stopped: java.lang.InternalError: the JVM's own");
      assertThat(uncaught).singleElement().isInstanceOf(InternalError.class);
      // The other worker goes on, and the bug's key only backs off.
      queue.add("good");
      await()
          .dontCatchUncaughtExceptions()
          .atMost(5, TimeUnit.SECONDS)
          .until(() -> synced.contains("good"));
      assertThat(queue.numRequeues("linkage")).isPositive();
    } finally {
      Thread.setDefaultUncaughtExceptionHandler(before);
      workers.close();
    }
    assertThat(workers.health()).as("closed workers are not reported").isEmpty();
  }

  @Test
  void aRetryAfterErrorRequeuesAfterItsFixedDelay() throws InterruptedException {
    List<Long> attemptsAt = new CopyOnWriteArrayList<>();
    QueueWorkers<String> workers =
        new QueueWorkers<>(
            "test",
            queue,
            key -> {
              attemptsAt.add(System.nanoTime());
              if (attemptsAt.size() == 1) {
                throw new IllegalStateException(
                    "wrapped", new RetryAfterException("busy", Duration.ofMillis(400)));
              }
            },
            1);
    workers.start();
    queue.add("svc");

    await().atMost(5, TimeUnit.SECONDS).until(() -> attemptsAt.size() == 2);
    assertThat(Duration.ofNanos(attemptsAt.get(1) - attemptsAt.get(0)))
        .isGreaterThanOrEqualTo(Duration.ofMillis(400));
    workers.close();
  }

  @Test
  void closeStopsEveryWorkerThread() throws InterruptedException {
    QueueWorkers<String> workers = new QueueWorkers<>("closing", queue, key -> {}, 3);
    workers.start();

    workers.close();

    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(thread -> thread.getName().startsWith("closing-worker-"))
        .noneMatch(thread -> thread.getName().equals("workqueue-workers-test-delay"));
  }
}
