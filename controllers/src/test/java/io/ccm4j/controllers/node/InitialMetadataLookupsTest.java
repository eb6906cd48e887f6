package io.ccm4j.controllers.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.ThrottledException;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class InitialMetadataLookupsTest {

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  /** Bulk calls of at most {@code max}; "broken-*" fail alone, "quiet-*" are left unanswered. */
  private static class Cloud implements InstancesV2 {
    final int max;
    final List<List<String>> bulkCalls = new ArrayList<>();
    int singleCalls;
    CloudException wholeCallError;

    Cloud(int max) {
      this.max = max;
    }

    @Override
    public boolean instanceExists(Node node) {
      return true;
    }

    @Override
    public boolean instanceShutdown(Node node) {
      return false;
    }

    @Override
    public Optional<InstanceMetadata> instanceMetadata(Node node) {
      singleCalls++;
      return Optional.of(metadata(node));
    }

    @Override
    public int maxNodesPerCall() {
      return max;
    }

    @Override
    public BulkAnswers<Optional<InstanceMetadata>> instancesMetadata(Collection<Node> nodes)
        throws CloudException {
      bulkCalls.add(nodes.stream().map(InstancesV2::nodeName).toList());
      if (wholeCallError != null) {
        throw wholeCallError;
      }
      Map<String, Optional<InstanceMetadata>> values = new HashMap<>();
      Map<String, CloudException> errors = new HashMap<>();
      for (Node node : nodes) {
        String name = InstancesV2.nodeName(node);
        if (name.startsWith("broken")) {
          errors.put(name, new CloudException("no answer for " + name));
        } else if (!name.startsWith("quiet")) {
          values.put(name, Optional.of(metadata(node)));
        }
      }
      return new BulkAnswers<>(values, errors);
    }

    /** The instance type says which Node object (by UID) the answer was asked for. */
    private static InstanceMetadata metadata(Node node) {
      String uid = node.getMetadata().getUid();
      return new InstanceMetadata(
          "sim://" + InstancesV2.nodeName(node),
          uid == null ? "" : uid,
          List.of(),
          "",
          "",
          Map.of());
    }
  }

  private final AtomicLong clock = new AtomicLong();

  private static Node node(String name, String uid) {
    return new NodeBuilder().withNewMetadata().withName(name).withUid(uid).endMetadata().build();
  }

  /**
   * A Node deleted and registered again under its name (an instance replaced by one of the same
   * hostname) is not given the answer fetched for the Node it replaced: that was about another
   * instance, and its provider ID would be set for good.
   */
  @Test
  void anAnswerFetchedForANodeIsNotUsedForTheNodeRegisteredAgainUnderItsName() throws Exception {
    Cloud cloud = new Cloud(1000);
    List<Node> cache = List.of(node("a", "a-1"), node("x", "x-old"));
    InitialMetadataLookups lookups = new InitialMetadataLookups(cloud, () -> cache, clock::get);
    lookups.metadata(node("a", "a-1")); // asks for x too
    assertThat(cloud.bulkCalls).containsExactly(List.of("a", "x"));

    InstanceMetadata answer = lookups.metadata(node("x", "x-new")).orElseThrow();

    assertThat(answer.instanceType()).isEqualTo("x-new");
    assertThat(cloud.bulkCalls).hasSize(2);
    assertThat(cloud.bulkCalls.get(1)).first().isEqualTo("x");
  }

  private static List<Node> waiting(int n) {
    return IntStream.range(0, n).mapToObj(i -> node("n" + i)).toList();
  }

  @Test
  void aBurstOfWaitingNodesIsAnsweredByOneBulkCallPerProviderSize() throws Exception {
    Cloud cloud = new Cloud(1000);
    List<Node> burst = waiting(2500);
    InitialMetadataLookups lookups = new InitialMetadataLookups(cloud, () -> burst, clock::get);

    for (Node node : burst) {
      assertThat(lookups.metadata(node).orElseThrow().providerId())
          .isEqualTo("sim://" + node.getMetadata().getName());
    }

    // ceil(2500 / 1000) calls, each led by the node whose sync needed it.
    assertThat(cloud.bulkCalls).extracting(List::size).containsExactly(1000, 1000, 500);
    assertThat(cloud.bulkCalls)
        .extracting(call -> call.get(0))
        .containsExactly("n0", "n1000", "n2000");
    assertThat(lookups.prefetchedCount()).isZero();
  }

  @Test
  void aLoneNodeIsAskedAtOnceAndAnAnswerIsUsedOnce() throws Exception {
    Cloud cloud = new Cloud(1000);
    List<Node> cache = List.of(node("alone"));
    InitialMetadataLookups lookups = new InitialMetadataLookups(cloud, () -> cache, clock::get);

    lookups.metadata(node("alone"));
    lookups.metadata(node("alone")); // its next sync asks again

    assertThat(cloud.bulkCalls).containsExactly(List.of("alone"), List.of("alone"));
  }

  @Test
  void anErrorOrAMissingAnswerFailsThatNodeOnly() throws Exception {
    Cloud cloud = new Cloud(1000);
    List<Node> cache = List.of(node("ok-1"), node("broken-1"), node("quiet-1"), node("ok-2"));
    InitialMetadataLookups lookups = new InitialMetadataLookups(cloud, () -> cache, clock::get);

    assertThat(lookups.metadata(node("ok-1"))).isPresent();
    assertThatThrownBy(() -> lookups.metadata(node("broken-1")))
        .hasMessage("no answer for broken-1");
    assertThatThrownBy(() -> lookups.metadata(node("quiet-1")))
        .hasMessage("quiet-1: not answered by the bulk call");
    assertThat(lookups.metadata(node("ok-2"))).isPresent();
    assertThat(cloud.bulkCalls).hasSize(1);
  }

  @Test
  void aThrottledBulkCallFailsEachOfItsNodesWithTheThrottle() throws Exception {
    Cloud cloud = new Cloud(1000);
    cloud.wholeCallError = new ThrottledException("RequestLimitExceeded", Duration.ofSeconds(3));
    List<Node> cache = waiting(3);
    InitialMetadataLookups lookups = new InitialMetadataLookups(cloud, () -> cache, clock::get);

    for (Node node : cache) {
      assertThatThrownBy(() -> lookups.metadata(node)).isSameAs(cloud.wholeCallError);
    }
    assertThat(cloud.bulkCalls).hasSize(1);
  }

  @Test
  void aBulkCallEndedByAnErrorStillAnswersTheNodesWaitingForIt() {
    Cloud cloud =
        new Cloud(1000) {
          @Override
          public BulkAnswers<Optional<InstanceMetadata>> instancesMetadata(Collection<Node> nodes) {
            throw new StackOverflowError("provider bug");
          }
        };
    List<Node> cache = waiting(2);
    InitialMetadataLookups lookups = new InitialMetadataLookups(cloud, () -> cache, clock::get);

    assertThatThrownBy(() -> lookups.metadata(cache.get(0))).isInstanceOf(StackOverflowError.class);
    // n1 was in that call: it gets a failure at once instead of waiting for ever.
    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () ->
            assertThatThrownBy(() -> lookups.metadata(cache.get(1)))
                .isInstanceOf(CloudException.class)
                .hasMessageContaining("did not end"));
  }

  @Test
  void anAnswerOlderThanItsMaximumAgeIsAskedAgain() throws Exception {
    Cloud cloud = new Cloud(1000);
    List<Node> cache = waiting(2);
    InitialMetadataLookups lookups = new InitialMetadataLookups(cloud, () -> cache, clock::get);

    lookups.metadata(cache.get(0));
    clock.addAndGet(InitialMetadataLookups.MAX_AGE.toNanos() - 1);
    lookups.metadata(cache.get(0)); // used lately: its own sync asks for it alone
    assertThat(cloud.bulkCalls).containsExactly(List.of("n0", "n1"), List.of("n0"));
    clock.addAndGet(InitialMetadataLookups.MAX_AGE.toNanos() + 1);
    lookups.metadata(cache.get(1));

    // n0's answer was used too long ago to keep it out: still uninitialised, it is asked again.
    assertThat(cloud.bulkCalls)
        .containsExactly(List.of("n0", "n1"), List.of("n0"), List.of("n1", "n0"));
  }

  @Test
  void aProviderWithoutBulkCallsIsAskedNodeByNode() throws Exception {
    Cloud cloud = new Cloud(1);
    List<Node> cache = waiting(3);
    InitialMetadataLookups lookups = new InitialMetadataLookups(cloud, () -> cache, clock::get);

    for (Node node : cache) {
      lookups.metadata(node);
    }

    assertThat(cloud.singleCalls).isEqualTo(3);
    assertThat(cloud.bulkCalls).isEmpty();
  }
}
