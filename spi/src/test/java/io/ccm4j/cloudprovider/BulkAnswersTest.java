package io.ccm4j.cloudprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BulkAnswersTest {

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
  }

  /** A provider with per-node methods only: gone-a is gone, broken-b fails, the rest exist. */
  private static final class PerNodeOnly implements InstancesV2 {
    final List<String> asked = new ArrayList<>();

    @Override
    public boolean instanceExists(Node node) throws CloudException {
      String name = node.getMetadata().getName();
      asked.add(name);
      if (name.startsWith("broken")) {
        throw new CloudException("cloud unavailable for " + name);
      }
      if (name.startsWith("lost")) {
        throw new IllegalStateException("provider bug");
      }
      return !name.startsWith("gone");
    }

    @Override
    public boolean instanceShutdown(Node node) {
      return node.getMetadata().getName().startsWith("off");
    }

    @Override
    public Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException {
      if (node.getMetadata().getName().startsWith("new")) {
        return Optional.empty();
      }
      throw new InstanceNotFoundException();
    }
  }

  @Test
  void theDefaultsAskNodeByNodeAndAnErrorFailsThatNodeOnly() throws Exception {
    PerNodeOnly cloud = new PerNodeOnly();

    BulkAnswers<Boolean> exist =
        cloud.instancesExist(
            List.of(node("up-1"), node("gone-a"), node("broken-b"), node("lost-c"), node("up-2")));

    assertThat(cloud.maxNodesPerCall()).isEqualTo(1);
    assertThat(cloud.asked).containsExactly("up-1", "gone-a", "broken-b", "lost-c", "up-2");
    assertThat(exist.values()).isEqualTo(Map.of("up-1", true, "gone-a", false, "up-2", true));
    assertThat(exist.errors()).containsOnlyKeys("broken-b", "lost-c");
    assertThat(exist.failure("broken-b").orElseThrow()).hasMessageContaining("unavailable");
    assertThat(exist.failure("lost-c").orElseThrow()).hasMessageContaining("provider bug");
    assertThat(exist.failure("up-1")).isEmpty();
    assertThat(exist.value("gone-a")).contains(false);
  }

  @Test
  void emptyMetadataIsAnAnswerAndNotFoundIsAnError() throws Exception {
    BulkAnswers<Optional<InstanceMetadata>> metadata =
        new PerNodeOnly().instancesMetadata(List.of(node("new-1"), node("old-1")));

    assertThat(metadata.value("new-1")).contains(Optional.empty());
    assertThat(metadata.failure("old-1").orElseThrow())
        .isInstanceOf(InstanceNotFoundException.class);
  }

  @Test
  void aKeyMissingFromTheAnswersIsAFailureNeverANegativeAnswer() {
    BulkAnswers<Boolean> partial = new BulkAnswers<>(Map.of("a", true), Map.of());

    assertThat(partial.value("b")).isEmpty();
    assertThat(partial.failure("b").orElseThrow()).hasMessageContaining("b: not answered");
  }

  @Test
  void aKeyCannotBeBothAnsweredAndFailed() {
    assertThatThrownBy(
            () -> new BulkAnswers<>(Map.of("a", true), Map.of("a", new CloudException("x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("a is both answered and failed");
  }

  @Test
  void aWholeCallsFailureFailsEveryKey() {
    ThrottledException throttled = new ThrottledException("quota", java.time.Duration.ofSeconds(2));
    BulkAnswers<Boolean> answers = BulkAnswers.allFailed(List.of("a", "b"), throttled);

    assertThat(answers.failure("a")).contains(throttled);
    assertThat(answers.failure("b")).contains(throttled);
    assertThat(answers.values()).isEmpty();
  }
}
