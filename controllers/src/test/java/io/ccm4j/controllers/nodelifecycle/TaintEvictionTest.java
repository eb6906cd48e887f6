package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.PodDeletions;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.Cache;
import io.fabric8.kubernetes.client.informers.cache.Indexer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Which pods the taint manager schedules for deletion, and when (node-lifecycle spec §4), without
 * an API server: the informers are in-memory stores and deletions are only scheduled, never run.
 */
class TaintEvictionTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  /** The manager's clock. */
  private Instant now = NOW;

  private final Map<String, Node> nodes = new LinkedHashMap<>();
  private final Map<String, Pod> pods = new LinkedHashMap<>();
  private final List<String> events = new ArrayList<>();

  /** The events and the scheduled deletions, in the order they happened. */
  private final List<String> timeline = new ArrayList<>();

  /**
   * Deletions their timer handed over, not started yet: each starts once its timer's task has
   * ended, as on its own thread (see {@link RecordingTimers#deletions}).
   */
  private final List<Runnable> handedOver = new ArrayList<>();

  private final RecordingTimers timers = new RecordingTimers(timeline, handedOver);

  /** One try of a deletion, as the test wants it; each try is counted. */
  private TaintEviction.PodEvictor tries =
      pod -> {
        throw new KubernetesClientException("no API server here");
      };

  private int triesMade;

  private final TaintEviction manager =
      new TaintEviction(
          null,
          informer(nodes),
          informer(pods),
          new EventRecorder() {
            @Override
            public void normal(HasMetadata object, String reason, String message) {
              events.add(reason + ": " + message);
              timeline.add(reason + ": " + message);
            }

            @Override
            public void warning(HasMetadata object, String reason, String message) {
              events.add("Warning " + reason + ": " + message);
            }
          },
          () -> now,
          timers,
          handedOver::add,
          new NodeLifecycleControllerMetrics(new SimpleMeterRegistry()),
          pod -> {
            triesMade++;
            return tries.evict(pod);
          });

  @AfterEach
  void stopTimers() {
    timers.shutdownNow();
  }

  /**
   * Records each scheduled deletion's delay, what it would run and its future; nothing runs unless
   * a test runs it.
   */
  private static final class RecordingTimers extends ScheduledThreadPoolExecutor {
    final List<Duration> delays = new ArrayList<>();

    /**
     * Each deletion as its due time would run it: its timer fires (its future done, unless it was
     * cancelled), then what the timer handed over runs, in the test's thread.
     */
    final List<Runnable> deletions = new ArrayList<>();

    final List<ScheduledFuture<?>> futures = new ArrayList<>();
    private final List<String> timeline;
    private final List<Runnable> handedOver;

    RecordingTimers(List<String> timeline, List<Runnable> handedOver) {
      super(1);
      this.timeline = timeline;
      this.handedOver = handedOver;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      if (isShutdown()) {
        throw new RejectedExecutionException("the timers are shut down"); // as the JDK's
      }
      delays.add(Duration.ofMillis(unit.toMillis(delay)));
      timeline.add("deletion in " + Duration.ofMillis(unit.toMillis(delay)));
      RecordedTimer timer = new RecordedTimer(command, unit.toMillis(delay));
      futures.add(timer);
      deletions.add(
          () -> {
            timer.run();
            List<Runnable> started = List.copyOf(handedOver);
            handedOver.clear();
            started.forEach(Runnable::run);
          });
      return timer;
    }
  }

  /** A timer that fires only when a test runs it. */
  private static final class RecordedTimer extends FutureTask<Void>
      implements ScheduledFuture<Void> {
    private final long delayMs;

    RecordedTimer(Runnable command, long delayMs) {
      super(command, null);
      this.delayMs = delayMs;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(delayMs, TimeUnit.MILLISECONDS);
    }

    @Override
    public int compareTo(Delayed other) {
      return Long.compare(delayMs, other.getDelay(TimeUnit.MILLISECONDS));
    }
  }

  /** An informer that is only its store: keys as fabric8's, pods indexed by node name. */
  @SuppressWarnings("unchecked")
  private static <T extends HasMetadata> SharedIndexInformer<T> informer(Map<String, T> objects) {
    Indexer<T> store =
        (Indexer<T>)
            Proxy.newProxyInstance(
                Indexer.class.getClassLoader(),
                new Class<?>[] {Indexer.class},
                (proxy, method, args) ->
                    switch (method.getName()) {
                      case "getByKey" -> objects.get((String) args[0]);
                      case "list" -> List.copyOf(objects.values());
                      case "byIndex" ->
                          objects.values().stream()
                              .filter(o -> o instanceof Pod pod)
                              .filter(
                                  o ->
                                      Objects.equals(
                                          ((Pod) o).getSpec().getNodeName(), (String) args[1]))
                              .toList();
                      default -> throw new UnsupportedOperationException(method.getName());
                    });
    return (SharedIndexInformer<T>)
        Proxy.newProxyInstance(
            SharedIndexInformer.class.getClassLoader(),
            new Class<?>[] {SharedIndexInformer.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getStore", "getIndexer" -> store;
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  private void node(String name, String... noExecuteTaintKeys) {
    NodeBuilder builder = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
    builder.withNewSpec().endSpec();
    for (String key : noExecuteTaintKeys) {
      builder
          .editSpec()
          .addNewTaint()
          .withKey(key)
          .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
          .endTaint()
          .endSpec();
    }
    nodes.put(name, builder.build());
  }

  /**
   * A pod on {@code node}; {@code tolerationSeconds} null: tolerates forever; -1: no toleration.
   */
  private String pod(String name, String node, Long tolerationSeconds) {
    PodBuilder builder =
        new PodBuilder()
            .withNewMetadata()
            .withNamespace("default")
            .withName(name)
            .withUid("uid-" + name)
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .endSpec();
    if (tolerationSeconds == null || tolerationSeconds >= 0) {
      builder
          .editSpec()
          .addToTolerations(
              new TolerationBuilder()
                  .withKey(WellKnownTaints.NODE_UNREACHABLE)
                  .withOperator("Exists")
                  .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
                  .withTolerationSeconds(tolerationSeconds)
                  .build())
          .endSpec();
    }
    Pod pod = builder.build();
    String key = Cache.metaNamespaceKeyFunc(pod);
    pods.put(key, pod);
    return key;
  }

  @Test
  void aPodThatDoesNotTolerateTheTaintIsDeletedAtOnce() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", -1L);

    manager.handleNodeUpdate("n");

    assertThat(timers.delays).containsExactly(Duration.ZERO);
    assertThat(manager.isEvictionPending(key)).isTrue();
  }

  @Test
  void aPodThatToleratesForSecondsIsDeletedWhenTheyHavePassed() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", 300L);

    manager.handleNodeUpdate("n");

    assertThat(timers.delays).containsExactly(Duration.ofSeconds(300));
    assertThat(manager.isEvictionPending(key)).isTrue();
  }

  @Test
  void tolerationsLongerThanAnyClockCanAddNeitherFailNorHoldBackTheOtherPods() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    // The API server takes any int64; the maximum is upstream's "forever".
    String endless = pod("endless", "n", Long.MAX_VALUE);
    String patient = pod("patient", "n", Long.MAX_VALUE - 1);
    String untolerated = pod("untolerated", "n", -1L);

    manager.handleNodeUpdate("n");

    assertThat(manager.isEvictionPending(endless)).isFalse();
    assertThat(manager.isEvictionPending(patient)).isTrue();
    assertThat(manager.isEvictionPending(untolerated)).isTrue();
    assertThat(timers.delays)
        .containsExactly(Duration.ofSeconds(TaintEviction.MAX_TOLERATION_SECONDS), Duration.ZERO);
  }

  @Test
  void aPodThatToleratesForeverStays() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", null);

    manager.handleNodeUpdate("n");

    assertThat(timers.delays).isEmpty();
    assertThat(manager.isEvictionPending(key)).isFalse();
  }

  @Test
  void podsOnUntaintedNodesStay() {
    node("n");
    String key = pod("p", "n", -1L);

    manager.handleNodeUpdate("n");
    manager.handlePodUpdate(key);

    assertThat(timers.delays).isEmpty();
  }

  @Test
  void theTaintGoingAwayCancelsThePendingDeletionSayingSo() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", 300L);
    manager.handleNodeUpdate("n");

    node("n");
    manager.handleNodeUpdate("n");

    assertThat(manager.isEvictionPending(key)).isFalse();
    assertThat(events)
        .containsExactly("TaintManagerEviction: Cancelling deletion of Pod default/p");
  }

  @Test
  void aPodArrivingOnATaintedNodeIsScheduledToo() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    manager.handleNodeUpdate("n");
    String key = pod("late", "n", 30L);

    manager.handlePodUpdate(key);

    assertThat(timers.delays).containsExactly(Duration.ofSeconds(30));
  }

  @Test
  void aDeletedPodsPendingDeletionIsCancelledSayingSo() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", 300L);
    manager.handleNodeUpdate("n");

    pods.remove(key);
    manager.handlePodUpdate(key);

    assertThat(manager.isEvictionPending(key)).isFalse();
    assertThat(events)
        .containsExactly("TaintManagerEviction: Cancelling deletion of Pod default/p");
  }

  @Test
  void anUntoleratedTaintCancelsThePendingDeletionSayingSoBeforeDeletingAtOnce() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", 300L);
    manager.handleNodeUpdate("n");

    node("n", WellKnownTaints.NODE_UNREACHABLE, "example.com/untolerated");
    manager.handleNodeUpdate("n");

    assertThat(timeline)
        .containsExactly(
            "deletion in PT5M",
            "TaintManagerEviction: Cancelling deletion of Pod default/p",
            "deletion in PT0S");
    assertThat(manager.isEvictionPending(key)).isTrue();
  }

  @Test
  void aPodNoLongerToleratingTheTaintsIsCancelledSayingSoBeforeDeletingAtOnce() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", 300L);
    manager.handleNodeUpdate("n");

    pods.get(key).getSpec().setTolerations(List.of());
    manager.handlePodUpdate(key);

    assertThat(timeline)
        .containsExactly(
            "deletion in PT5M",
            "TaintManagerEviction: Cancelling deletion of Pod default/p",
            "deletion in PT0S");
  }

  @Test
  void aPodNowToleratingForeverHasItsDeletionCancelledSayingSo() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", 300L);
    manager.handleNodeUpdate("n");

    pods.get(key).getSpec().getTolerations().getFirst().setTolerationSeconds(null);
    manager.handlePodUpdate(key);

    assertThat(manager.isEvictionPending(key)).isFalse();
    assertThat(events)
        .containsExactly("TaintManagerEviction: Cancelling deletion of Pod default/p");
  }

  /**
   * Upstream starts a deletion due at once (an untolerated taint, or tolerated for 0 s) without a
   * timer, so its CancelWork finds nothing to cancel and records no event; ccm4j's, not started
   * yet, is cancelled all the same, silently.
   */
  @Test
  void aDeletionDueAtOnceIsCancelledWithoutAnEventAsUpstreamHasNoTimerToCancel() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String untolerated = pod("untolerated", "n", -1L);
    String zeroSeconds = pod("zero-seconds", "n", 0L);
    manager.handleNodeUpdate("n");
    tries = pod -> PodDeletions.Outcome.DELETED;
    assertThat(timers.delays).containsExactly(Duration.ZERO, Duration.ZERO);

    // The node is Ready again before either deletion's thread has started.
    node("n");
    manager.handleNodeUpdate("n");
    timers.deletions.forEach(Runnable::run);

    assertThat(events).isEmpty();
    assertThat(triesMade).isZero();
    assertThat(manager.isEvictionPending(untolerated)).isFalse();
    assertThat(manager.isEvictionPending(zeroSeconds)).isFalse();
  }

  /**
   * A deletion with a timer stays in upstream's queue while it runs, so a cancellation then records
   * the event too; its tries stop in ccm4j (node-lifecycle spec §4.5).
   */
  @Test
  void aTimedDeletionCancelledWhileItRunsIsCancelledSayingSo() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    pod("p", "n", 300L);
    manager.handleNodeUpdate("n");
    tries =
        pod -> {
          // The node is Ready again while the first try fails.
          node("n");
          manager.handleNodeUpdate("n");
          throw new KubernetesClientException("the API server refused it");
        };

    timers.deletions.getFirst().run();

    assertThat(triesMade).isEqualTo(1);
    assertThat(events)
        .containsExactly(
            "TaintManagerEviction: Marking for deletion Pod default/p",
            "TaintManagerEviction: Cancelling deletion of Pod default/p");
  }

  /**
   * Upstream's timed worker queue runs each due deletion in a goroutine of its own: one stuck on a
   * slow API server holds up no other pod's, however many are stuck.
   */
  @Test
  void deletionsStuckOnASlowApiServerHoldUpNoOtherPodsDeletion() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    for (int i = 0; i < 16; i++) {
      pod("stuck-" + i, "n", -1L);
    }
    pod("free", "n", -1L);
    CountDownLatch slowApiServer = new CountDownLatch(1);
    Set<String> deleted = ConcurrentHashMap.newKeySet();
    ScheduledThreadPoolExecutor realTimers = NodeLifecycleController.evictionTimers();
    ExecutorService threads = NodeLifecycleController.evictionThreads();
    TaintEviction eviction =
        new TaintEviction(
            null,
            informer(nodes),
            informer(pods),
            new EventRecorder() {
              @Override
              public void normal(HasMetadata object, String reason, String message) {}

              @Override
              public void warning(HasMetadata object, String reason, String message) {}
            },
            InstantSource.system(),
            realTimers,
            threads,
            new NodeLifecycleControllerMetrics(new SimpleMeterRegistry()),
            pod -> {
              if (pod.getMetadata().getName().startsWith("stuck-")) {
                try {
                  slowApiServer.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new KubernetesClientException("interrupted");
                }
              }
              deleted.add(pod.getMetadata().getName());
              return PodDeletions.Outcome.DELETED;
            });
    try {
      eviction.handleNodeUpdate("n");

      await().atMost(10, TimeUnit.SECONDS).until(() -> deleted.contains("free"));
      assertThat(deleted).containsExactly("free");
    } finally {
      slowApiServer.countDown();
      realTimers.shutdownNow();
      threads.shutdownNow();
    }
  }

  @Test
  void aDeletionThatGivesUpLeavesTheDeletionScheduledSinceInItsPlaceCancellable() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", -1L);
    manager.handleNodeUpdate("n");
    // While the deletion due at once runs (and fails), the pod comes to tolerate the taint for
    // 300 s: its deletion is replaced by one 300 s from now.
    tries =
        pod -> {
          if (triesMade == 1) {
            pods.get(key).getSpec().setTolerations(List.of(unreachableFor(300L)));
            manager.handlePodUpdate(key);
          }
          throw new KubernetesClientException("the API server refused it");
        };
    timers.deletions.getFirst().run();
    assertThat(timers.delays).containsExactly(Duration.ZERO, Duration.ofSeconds(300));
    assertThat(manager.isEvictionPending(key)).isTrue();

    // The node is Ready again: the deletion 300 s away must be cancelled, not left to fire.
    node("n");
    manager.handleNodeUpdate("n");

    assertThat(timers.futures.get(1).isCancelled()).isTrue();
    assertThat(manager.isEvictionPending(key)).isFalse();
  }

  /**
   * A try cut short by the manager's stop (the timers shut down, the thread interrupted, which
   * fabric8 reports as an exception with the interrupt flag set again) is no failure: no WARN line
   * for an operator stopping the manager, and no further try.
   */
  @Test
  void aTryCutShortByTheShutdownLogsNoWarningAndTriesNoMore() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    pod("p", "n", -1L);
    manager.handleNodeUpdate("n");
    tries =
        pod -> {
          timers.shutdownNow();
          Thread.currentThread().interrupt();
          throw new KubernetesClientException("An error has occurred.", new InterruptedException());
        };
    Logger logger = (Logger) LoggerFactory.getLogger(TaintEviction.class);
    ListAppender<ILoggingEvent> logged = new ListAppender<>();
    logged.start();
    logger.addAppender(logged);
    Level level = logger.getLevel();
    logger.setLevel(Level.DEBUG);
    try {
      timers.deletions.getFirst().run();
    } finally {
      Thread.interrupted();
      logger.detachAppender(logged);
      logger.setLevel(level);
    }

    assertThat(triesMade).isEqualTo(1);
    assertThat(logged.list)
        .extracting(event -> event.getLevel() + " " + event.getFormattedMessage())
        .containsExactly(
            "DEBUG pod default/p: eviction stopped by the shutdown:"
                + " io.fabric8.kubernetes.client.KubernetesClientException: An error has occurred.");
  }

  /**
   * A pod's key handled after the manager's stop has shut the timers (they stop before the queue's
   * worker) schedules nothing and throws nothing: the worker would log the refusal as a failed
   * sync.
   */
  @Test
  void aDeletionDueWhileTheManagerStopsIsNotScheduledAndFailsNothing() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", 30L);
    timers.shutdownNow();

    manager.handleNodeUpdate("n");

    assertThat(manager.isEvictionPending(key)).isFalse();
  }

  /**
   * A try that fails other than by the client (ccm4j's own reading of an odd pod, say) is a failed
   * try like any other, retried and then given up, not an exception escaping its thread with the
   * pod's entry kept for ever.
   */
  @Test
  void aTryFailingOtherwiseThanByTheClientIsAFailedTry() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", -1L);
    manager.handleNodeUpdate("n");
    tries =
        pod -> {
          throw new IllegalStateException("a field the code did not expect");
        };

    timers.deletions.getFirst().run();

    assertThat(triesMade).isEqualTo(TaintEviction.TRIES);
    assertThat(manager.isEvictionPending(key)).isFalse();
  }

  @Test
  void aDeletionCancelledBetweenItsTriesTriesNoMore() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", -1L);
    manager.handleNodeUpdate("n");
    List<Pod> deleted = new ArrayList<>();
    tries =
        pod -> {
          if (triesMade == 1) {
            // The node is Ready again while the first try fails.
            node("n");
            manager.handleNodeUpdate("n");
            throw new KubernetesClientException("the API server refused it");
          }
          deleted.add(pod);
          return PodDeletions.Outcome.DELETED;
        };

    timers.deletions.getFirst().run();

    assertThat(triesMade).isEqualTo(1);
    assertThat(deleted).isEmpty();
    assertThat(manager.isEvictionPending(key)).isFalse();
  }

  @Test
  void aDeletionDueAfterItsNodesTaintsWereLiftedButBeforeTheCancellationDeletesNothing() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", -1L);
    manager.handleNodeUpdate("n");
    tries = pod -> PodDeletions.Outcome.DELETED;

    // The node is Ready again and its taint lifted: the cache shows it, the cancellation still
    // waits in the queue (handleNodeUpdate not called yet) when the deletion comes due.
    node("n");
    timers.deletions.getFirst().run();

    assertThat(triesMade).isZero();
    assertThat(events).doesNotContain("TaintManagerEviction: Marking for deletion Pod default/p");
    manager.handleNodeUpdate("n");
    assertThat(manager.isEvictionPending(key)).isFalse();
  }

  @Test
  void aDeletionThatSucceedsLeavesTheDeletionScheduledSinceInItsPlaceCancellable() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", -1L);
    manager.handleNodeUpdate("n");
    tries =
        pod -> {
          pods.get(key).getSpec().setTolerations(List.of(unreachableFor(300L)));
          manager.handlePodUpdate(key);
          return PodDeletions.Outcome.DELETED;
        };
    timers.deletions.getFirst().run();
    assertThat(manager.isEvictionPending(key)).isTrue();

    node("n");
    manager.handleNodeUpdate("n");

    assertThat(timers.futures.get(1).isCancelled()).isTrue();
  }

  @Test
  void aPodCreatedAgainUnderTheNameOfAnEvictedOneIsScheduledForItself() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", 300L);
    manager.handleNodeUpdate("n");
    tries = pod -> PodDeletions.Outcome.DELETED;
    timers.deletions.getFirst().run(); // the 300 s have passed: deleted
    assertThat(manager.isEvictionPending(key)).isFalse();

    // Gone and created again under its name on the same node; the informer's delete and add are
    // one update of the queue's key by the time it is handled.
    now = NOW.plusSeconds(301);
    pods.put(
        key,
        new PodBuilder(pods.get(key)).editMetadata().withUid("uid-p-again").endMetadata().build());
    manager.handlePodUpdate(key);

    assertThat(timers.delays).containsExactly(Duration.ofSeconds(300), Duration.ofSeconds(300));
    assertThat(manager.isEvictionPending(key)).isTrue();
  }

  @Test
  void aPodCreatedAgainUnderTheNameOfOneWaitingForItsDeletionGetsItsOwnCountdown() {
    node("n", WellKnownTaints.NODE_UNREACHABLE);
    String key = pod("p", "n", 300L);
    manager.handleNodeUpdate("n");

    now = NOW.plusSeconds(200);
    pods.put(
        key,
        new PodBuilder(pods.get(key)).editMetadata().withUid("uid-p-again").endMetadata().build());
    manager.handlePodUpdate(key);

    // Its own 300 s from now, not what was left of its predecessor's (whose deletion would then
    // find another pod, delete nothing, and leave this one never scheduled).
    assertThat(timers.delays).containsExactly(Duration.ofSeconds(300), Duration.ofSeconds(300));
    assertThat(timers.futures.getFirst().isCancelled()).isTrue();
    assertThat(manager.isEvictionPending(key)).isTrue();
  }

  private static io.fabric8.kubernetes.api.model.Toleration unreachableFor(long seconds) {
    return new TolerationBuilder()
        .withKey(WellKnownTaints.NODE_UNREACHABLE)
        .withOperator("Exists")
        .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
        .withTolerationSeconds(seconds)
        .build();
  }

  @Test
  void onlyNoExecuteTaintsAndTheFieldsThatMatterCountAsChanges() {
    Node plain = new NodeBuilder().withNewSpec().endSpec().build();
    Node noSchedule =
        new NodeBuilder()
            .withNewSpec()
            .addNewTaint()
            .withKey("k")
            .withEffect(WellKnownTaints.EFFECT_NO_SCHEDULE)
            .endTaint()
            .endSpec()
            .build();
    Node noExecute =
        new NodeBuilder()
            .withNewSpec()
            .addNewTaint()
            .withKey("k")
            .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
            .endTaint()
            .endSpec()
            .build();
    assertThat(TaintEviction.noExecuteTaintsChanged(plain, noSchedule)).isFalse();
    assertThat(TaintEviction.noExecuteTaintsChanged(plain, noExecute)).isTrue();

    Pod pod = new PodBuilder().withNewSpec().withNodeName("a").endSpec().build();
    Pod relabelled =
        new PodBuilder(pod).withNewMetadata().addToLabels("x", "y").endMetadata().build();
    Pod moved = new PodBuilder(pod).editSpec().withNodeName("b").endSpec().build();
    assertThat(TaintEviction.podChanged(pod, relabelled)).isFalse();
    assertThat(TaintEviction.podChanged(pod, moved)).isTrue();
  }

  private static Pod podWith(PodCondition... conditions) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p")
        .withGeneration(3L)
        .endMetadata()
        .withNewStatus()
        .withConditions(conditions)
        .endStatus()
        .build();
  }

  private static PodCondition disruptionTarget(String status, String message, String since) {
    return new PodConditionBuilder()
        .withType("DisruptionTarget")
        .withStatus(status)
        .withReason("DeletionByTaintManager")
        .withMessage(message)
        .withLastTransitionTime(since)
        .build();
  }

  @Test
  void aPodIsMarkedAsADisruptionTargetOfItsGenerationUnlessItIsAlready() {
    String message = "Taint manager: deleting due to NoExecute taint";
    PodCondition ready = new PodConditionBuilder().withType("Ready").withStatus("True").build();
    Instant later = NOW.plusMillis(1500);

    assertThat(TaintEviction.disruptionTarget(podWith(ready), later))
        .as("none yet: stamped now, to the second, with the pod's generation")
        .hasValueSatisfying(
            c -> {
              assertThat(c.getType()).isEqualTo("DisruptionTarget");
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getReason()).isEqualTo("DeletionByTaintManager");
              assertThat(c.getMessage()).isEqualTo(message);
              assertThat(c.getObservedGeneration()).isEqualTo(3L);
              assertThat(c.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:01Z");
            });
    assertThat(
            TaintEviction.disruptionTarget(
                podWith(ready, disruptionTarget("True", message, "2025-01-01T00:00:00Z")), later))
        .as("there already: nothing to write, whatever its generation")
        .isEmpty();
    assertThat(
            TaintEviction.disruptionTarget(
                podWith(disruptionTarget("True", "another's", "2025-01-01T00:00:00Z")), later))
        .as("another message: rewritten, its transition time kept")
        .hasValueSatisfying(
            c -> {
              assertThat(c.getMessage()).isEqualTo(message);
              assertThat(c.getLastTransitionTime()).isEqualTo("2025-01-01T00:00:00Z");
            });
    assertThat(
            TaintEviction.disruptionTarget(
                podWith(disruptionTarget("False", message, "2025-01-01T00:00:00Z")), later))
        .as("False until now: True from now")
        .hasValueSatisfying(
            c -> {
              assertThat(c.getStatus()).isEqualTo("True");
              assertThat(c.getLastTransitionTime()).isEqualTo("2026-01-01T00:00:01Z");
            });
  }
}
