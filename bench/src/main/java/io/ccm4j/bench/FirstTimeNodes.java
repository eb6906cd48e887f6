package io.ccm4j.bench;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.Map;
import java.util.function.Predicate;

/** Records, per node, the first moment (System.nanoTime) a condition on it was seen to hold. */
final class FirstTimeNodes implements ResourceEventHandler<Node> {

  private final Predicate<Node> condition;
  private final Map<String, Long> seenAt;

  FirstTimeNodes(Predicate<Node> condition, Map<String, Long> seenAt) {
    this.condition = condition;
    this.seenAt = seenAt;
  }

  @Override
  public void onAdd(Node node) {
    record(node);
  }

  @Override
  public void onUpdate(Node previous, Node node) {
    record(node);
  }

  @Override
  public void onDelete(Node node, boolean deletedFinalStateUnknown) {}

  private void record(Node node) {
    if (!seenAt.containsKey(node.getMetadata().getName()) && condition.test(node)) {
      seenAt.putIfAbsent(node.getMetadata().getName(), System.nanoTime());
    }
  }
}
