package io.ccm4j.controllers.nodelifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodelifecycle.NoExecuteTainting.Action;
import io.ccm4j.runtime.events.EventRecorder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The NoExecute tainting decisions (node-lifecycle spec §2.5 B) on their own: which taint a node
 * gets, when it is queued, swapped or lifted, and the zone queues it waits in. The taint writes
 * that succeed are NodeLifecycleControllerIT's; here a write either is not needed or fails at once
 * (an API server address nothing listens on), to show where a failure leaves the node.
 */
class NoExecuteTaintingTest {

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final String ZONE = "r:\u0000:z";

  private static final EventRecorder NO_EVENTS =
      new EventRecorder() {
        @Override
        public void normal(HasMetadata object, String reason, String message) {}

        @Override
        public void warning(HasMetadata object, String reason, String message) {}
      };

  private final NoExecuteTainting tainting =
      new NoExecuteTainting(
          null,
          null,
          NO_EVENTS,
          () -> NOW,
          new NodeLifecycleControllerMetrics(new SimpleMeterRegistry()),
          new ZoneStates(),
          0.1);

  /** Taint writes sent: each fails, nothing listening at the API server's address. */
  private final AtomicInteger taintWrites = new AtomicInteger();

  private final AtomicReference<Instant> now = new AtomicReference<>(NOW);

  /** The nodes the tainting finds in its cache, by name. */
  private final Map<String, Node> cache = new HashMap<>();

  /** A client whose every request fails at once, its PATCHes counted in {@link #taintWrites}. */
  private KubernetesClient failingClient() {
    Interceptor counter =
        new Interceptor() {
          @Override
          public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
            if (request.method().equals("PATCH")) {
              taintWrites.incrementAndGet();
            }
          }
        };
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder()
                .withMasterUrl("https://127.0.0.1:1")
                .withRequestRetryBackoffLimit(0)
                .build())
        .withHttpClientBuilderConsumer(http -> http.addOrReplaceInterceptor("count", counter))
        .build();
  }

  /** Tainting on {@code client} at the test's clock, finding nodes in {@link #cache}. */
  private NoExecuteTainting taintingOn(KubernetesClient client) {
    return new NoExecuteTainting(
        client,
        cache::get,
        NO_EVENTS,
        now::get,
        new NodeLifecycleControllerMetrics(new SimpleMeterRegistry()),
        new ZoneStates(),
        0.1);
  }

  /** The node, with its Ready condition {@code ready}, as the cache shows it. */
  private Node cached(Node node, String ready) {
    Node shown =
        new NodeBuilder(node)
            .withNewStatus()
            .addToConditions(new NodeConditionBuilder().withType("Ready").withStatus(ready).build())
            .endStatus()
            .build();
    cache.put(node.getMetadata().getName(), shown);
    return shown;
  }

  private static Taint noExecute(String key) {
    return new TaintBuilder()
        .withKey(key)
        .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
        .withTimeAdded("2025-12-31T00:00:00Z")
        .build();
  }

  /** A node in {@link #ZONE} with the NoExecute taints named ("not-ready", "unreachable"). */
  private static Node node(String name, String... taints) {
    List<Taint> list =
        Arrays.stream(taints)
            .map(
                t ->
                    noExecute(
                        t.equals("not-ready")
                            ? WellKnownTaints.NODE_NOT_READY
                            : WellKnownTaints.NODE_UNREACHABLE))
            .toList();
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToLabels(WellKnownLabels.REGION, "r")
        .addToLabels(WellKnownLabels.ZONE, "z")
        .endMetadata()
        .withNewSpec()
        .withTaints(list)
        .endSpec()
        .build();
  }

  @ParameterizedTest(name = "Ready {0}, taints [{1}] -> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "False   |                       | QUEUE_NOT_READY",
        "False   | not-ready             | QUEUE_NOT_READY",
        "False   | unreachable           | SWAP_TO_NOT_READY",
        "False   | not-ready unreachable | SWAP_TO_NOT_READY",
        "Unknown |                       | QUEUE_UNREACHABLE",
        "Unknown | unreachable           | QUEUE_UNREACHABLE",
        "Unknown | not-ready             | SWAP_TO_UNREACHABLE",
        "Unknown | not-ready unreachable | SWAP_TO_UNREACHABLE",
        "True    |                       | LIFT",
        "True    | not-ready unreachable | LIFT",
        "Bogus   | unreachable           | NONE",
        "Bogus   |                       | NONE",
      })
  void theNodesReadyAndTaintsDecideWhatThePassDoes(String ready, String taints, Action action) {
    String[] names = taints == null ? new String[0] : taints.split(" ");

    assertThat(NoExecuteTainting.decide(ready, node("n", names))).isEqualTo(action);
  }

  @ParameterizedTest(name = "Ready {0} when due -> {1}")
  @CsvSource(
      nullValues = "none",
      value = {
        "False, SWAP_TO_NOT_READY",
        "Unknown, SWAP_TO_UNREACHABLE",
        "True, none",
      })
  void aQueuedNodeGetsTheTaintItsReadyCallsForWhenItsTurnComes(String ready, Action action) {
    assertThat(NoExecuteTainting.dueTaint(ready)).isEqualTo(Optional.ofNullable(action));
  }

  @Test
  void aSwapStampsTheAddedTaintAndDropsTheOther() {
    Taint other = new TaintBuilder().withKey("example.com/keep").withEffect("NoSchedule").build();
    List<Taint> before = List.of(other, noExecute(WellKnownTaints.NODE_UNREACHABLE));

    List<Taint> after = NoExecuteTainting.swapped(before, Action.SWAP_TO_NOT_READY, NOW);

    assertThat(after)
        .containsExactly(
            other,
            new TaintBuilder()
                .withKey(WellKnownTaints.NODE_NOT_READY)
                .withEffect(WellKnownTaints.EFFECT_NO_EXECUTE)
                .withTimeAdded(NOW.toString())
                .build());
  }

  @Test
  void aSwapThatFindsTheTaintAlreadyThereChangesNothing() {
    List<Taint> before = List.of(noExecute(WellKnownTaints.NODE_UNREACHABLE));

    assertThat(NoExecuteTainting.swapped(before, Action.SWAP_TO_UNREACHABLE, NOW)).isSameAs(before);
    assertThat(
            NoExecuteTainting.swapped(
                List.of(
                    noExecute(WellKnownTaints.NODE_UNREACHABLE),
                    noExecute(WellKnownTaints.NODE_NOT_READY)),
                Action.SWAP_TO_UNREACHABLE,
                NOW))
        .as("the other one still goes, the added one keeps its time")
        .containsExactly(noExecute(WellKnownTaints.NODE_UNREACHABLE));
  }

  @Test
  void aNodeNotReadyWaitsInItsZonesQueueOnceAndLeavesItWhenReadyAgain() {
    tainting.startZone(ZONE, 0.1);

    tainting.process(node("a"), "False");
    tainting.process(node("a"), "Unknown");

    assertThat(tainting.tainter(ZONE).size()).as("a re-queued, not twice").isEqualTo(1);
    assertThat(tainting.tainter(ZONE).head()).contains("a");

    tainting.process(node("a"), "True");

    assertThat(tainting.tainter(ZONE).size()).isZero();
  }

  @Test
  void aNodeShowingItsTaintIsQueuedUnlessItsZonesQueueHasProcessedIt() {
    // Upstream's markNodeForTainting adds the node whatever its taints: a taint the cache still
    // shows after the controller lifted it (a node first seen after a restart or a change of
    // leader) must not keep the node out of the queue until the next monitor pass.
    tainting.startZone(ZONE, 0.1);

    tainting.process(node("restarted", "unreachable"), "Unknown");

    assertThat(tainting.tainter(ZONE).contains("restarted")).isTrue();

    tainting.tainter(ZONE).tryProcess(name -> ZoneTainter.Outcome.DONE);
    tainting.process(node("restarted", "unreachable"), "Unknown");

    assertThat(tainting.tainter(ZONE).contains("restarted"))
        .as("processed and still tainted: not queued again")
        .isFalse();

    tainting.process(node("restarted"), "Unknown");

    assertThat(tainting.tainter(ZONE).contains("restarted"))
        .as("processed but its taint gone: queued again")
        .isTrue();
  }

  @Test
  void aZonesRateIsSetAndAZoneStartedAgainGetsTheRateItIsGiven() {
    tainting.startZone(ZONE, 0.1);

    tainting.setRate(ZONE, 0);
    assertThat(tainting.tainter(ZONE).rate()).isZero();

    tainting.startZone(ZONE, 0.1);
    assertThat(tainting.tainter(ZONE).rate()).isEqualTo(0.1);
  }

  /**
   * §3.5: a zone a pass forgot (no node of it counted) and then sees again gets a new queue, as
   * upstream's addPodEvictorForNewZone makes one: the nodes the old queue held, those it remembered
   * as processed and the tokens it had spent are gone with it.
   */
  @Test
  void aZoneStartedAgainGetsANewQueueWithAFullBucket() {
    tainting.startZone(ZONE, 0.1);
    tainting.process(node("deleted"), "Unknown");
    tainting.process(node("tainted", "unreachable"), "Unknown");
    tainting.tainter(ZONE).tryProcess(name -> ZoneTainter.Outcome.DONE); // the token goes
    tainting.setRate(ZONE, 0); // stopped, say by a partial disruption

    tainting.startZone(ZONE, 0.1);

    assertThat(tainting.tainter(ZONE).size()).as("nothing of the old queue").isZero();
    tainting.process(node("tainted", "unreachable"), "Unknown");
    assertThat(tainting.tainter(ZONE).contains("tainted"))
        .as("no memory of the nodes the old queue processed")
        .isTrue();
    List<String> processed = new ArrayList<>();
    tainting
        .tainter(ZONE)
        .tryProcess(
            name -> {
              processed.add(name);
              return ZoneTainter.Outcome.DONE;
            });
    assertThat(processed).as("a full bucket: the first node at once").containsExactly("tainted");
  }

  @Test
  void aTaintWriteThatFailsIsTriedAgainAtTheZonesNextTokenNotAfterADelayOfItsOwn() {
    try (KubernetesClient client = failingClient()) {
      NoExecuteTainting tainting = taintingOn(client);
      tainting.startZone(ZONE, 100); // a token every 10 ms
      tainting.process(cached(node("a"), "Unknown"), "Unknown");

      tainting.runPass();
      assertThat(taintWrites).hasValue(1);
      assertThat(tainting.tainter(ZONE).contains("a")).as("kept in its zone's queue").isTrue();

      // Upstream's Try puts it back due at once (false, 0): the zone's next token, 10 ms later,
      // tries it again.
      now.set(NOW.plusMillis(20));
      tainting.runPass();
      assertThat(taintWrites).hasValue(2);
      assertThat(tainting.tainter(ZONE).contains("a")).isTrue();
    }
  }

  @Test
  void aNodeWhoseTaintWriteFailedKeepsItsPlaceAheadOfNodesQueuedAfterIt() {
    try (KubernetesClient client = failingClient()) {
      NoExecuteTainting tainting = taintingOn(client);
      tainting.startZone(ZONE, 1); // a token a second
      tainting.process(cached(node("a"), "Unknown"), "Unknown");
      tainting.runPass(); // a's write fails, the token spent on it
      now.set(NOW.plusMillis(10));
      // b is not in the cache (deleted meanwhile): whenever its turn comes it leaves the queue.
      tainting.process(node("b"), "Unknown");

      now.set(NOW.plusSeconds(1));
      tainting.runPass();

      assertThat(taintWrites).as("the next token went to a").hasValue(2);
      assertThat(tainting.tainter(ZONE).contains("b")).as("b still waits for one").isTrue();
    }
  }

  @Test
  void aLiftThatFailsLeavesTheNodeInItsZonesQueue() {
    try (KubernetesClient client = failingClient()) {
      NoExecuteTainting tainting = taintingOn(client);
      tainting.startZone(ZONE, 0.1); // no tainting pass runs: the node stays queued
      tainting.process(node("a", "unreachable"), "Unknown");
      assertThat(tainting.tainter(ZONE).contains("a")).isTrue();

      // Upstream's markNodeAsReachable removes the taints first and returns their error before
      // the node leaves its queue.
      assertThatThrownBy(() -> tainting.process(node("a", "unreachable"), "True"))
          .isInstanceOf(KubernetesClientException.class);

      assertThat(taintWrites).hasValue(1);
      assertThat(tainting.tainter(ZONE).contains("a")).isTrue();
    }
  }

  @Test
  void aLiftThatFailsLeavesAProcessedNodeRememberedByItsZonesQueue() {
    try (KubernetesClient client = failingClient()) {
      NoExecuteTainting tainting = taintingOn(client);
      tainting.startZone(ZONE, 0.1);
      tainting.process(node("a", "unreachable"), "Unknown");
      tainting.tainter(ZONE).tryProcess(name -> ZoneTainter.Outcome.DONE);

      tainting.markNodeAsReachableLogged(node("a", "unreachable")); // logged, not thrown
      assertThat(taintWrites).hasValue(1);
      // Still remembered as processed: its taint, still there, is not queued and written again
      // (nor counted as an eviction) when it stops being Ready once more.
      tainting.process(node("a", "unreachable"), "Unknown");

      assertThat(tainting.tainter(ZONE).contains("a")).isFalse();
    }
  }
}
