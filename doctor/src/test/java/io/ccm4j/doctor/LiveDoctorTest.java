package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LiveDoctorTest {

  private static final Taint UNINITIALIZED =
      new Taint("NoSchedule", "node.cloudprovider.kubernetes.io/uninitialized", null, "true");
  private static final Taint NOT_READY =
      new Taint("NoSchedule", "node.kubernetes.io/not-ready", null, null);
  private static final Taint CONTROL_PLANE =
      new Taint("NoSchedule", "node-role.kubernetes.io/control-plane", null, null);
  private static final Taint PREFERRED =
      new Taint("PreferNoSchedule", "example.com/soft", null, null);

  private static Node node(Taint... taints) {
    return new NodeBuilder().withNewSpec().withTaints(taints).endSpec().build();
  }

  private static Node controlPlaneNode(Taint... taints) {
    return new NodeBuilder()
        .withNewMetadata()
        .addToLabels("node-role.kubernetes.io/control-plane", "")
        .endMetadata()
        .withNewSpec()
        .withTaints(taints)
        .endSpec()
        .build();
  }

  private static Pod tolerating(String keys) {
    List<Toleration> tolerations =
        keys.isEmpty()
            ? List.of()
            : Arrays.stream(keys.split(" "))
                .map(k -> new Toleration(null, k, "Exists", null, null))
                .toList();
    return new PodBuilder().withNewSpec().withTolerations(tolerations).endSpec().build();
  }

  // The current scheduler says only "node(s) had untolerated taint(s)": the doctor names them.
  @ParameterizedTest(name = "tolerating [{0}] -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "|; it does not tolerate the taint(s) node-role.kubernetes.io/control-plane (1 node),"
            + " node.cloudprovider.kubernetes.io/uninitialized (3 nodes), node.kubernetes.io/not-ready (2 nodes)",
        "node.cloudprovider.kubernetes.io/uninitialized|; it does not tolerate the taint(s)"
            + " node-role.kubernetes.io/control-plane (1 node), node.kubernetes.io/not-ready (2 nodes)",
        "node.cloudprovider.kubernetes.io/uninitialized node.kubernetes.io/not-ready"
            + " node-role.kubernetes.io/control-plane|",
      })
  void namesTheTaintsAPodDoesNotTolerateWithTheirNodeCounts(String keys, String expected) {
    List<Node> nodes =
        List.of(
            node(UNINITIALIZED, NOT_READY, CONTROL_PLANE),
            node(UNINITIALIZED, NOT_READY, PREFERRED),
            node(UNINITIALIZED));

    assertThat(LiveDoctor.untoleratedTaints(tolerating(keys == null ? "" : keys), nodes))
        .isEqualTo(expected == null ? "" : expected);
  }

  @org.junit.jupiter.api.Test
  void countsOnlyTheNodesThePodsSelectorAllows() {
    Pod pod = tolerating("node.cloudprovider.kubernetes.io/uninitialized");
    pod.getSpec().setNodeSelector(java.util.Map.of("node-role.kubernetes.io/control-plane", ""));
    List<Node> nodes =
        List.of(
            controlPlaneNode(UNINITIALIZED, CONTROL_PLANE),
            node(UNINITIALIZED, NOT_READY),
            node(UNINITIALIZED, NOT_READY));

    assertThat(LiveDoctor.untoleratedTaints(pod, nodes))
        .isEqualTo(
            "; on the 1 node its placement allows, it does not tolerate the taint(s)"
                + " node-role.kubernetes.io/control-plane (1 node)");
  }
}
