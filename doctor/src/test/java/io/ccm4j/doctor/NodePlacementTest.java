package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodePlacementTest {

  private static final Node CONTROL_PLANE =
      new NodeBuilder()
          .withNewMetadata()
          .withName("cp-1")
          .addToLabels("node-role.kubernetes.io/control-plane", "")
          .addToLabels("cores", "8")
          .endMetadata()
          .build();

  private static PodSpec requiring(String key, String operator, String values) {
    List<String> list = values.isEmpty() ? List.of() : Arrays.asList(values.split(" "));
    return new PodSpecBuilder()
        .withNewAffinity()
        .withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .addNewNodeSelectorTerm()
        .withMatchExpressions(new NodeSelectorRequirement(key, operator, list))
        .endNodeSelectorTerm()
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity()
        .endAffinity()
        .build();
  }

  @ParameterizedTest(name = "{0} {1} [{2}] -> {3}")
  @CsvSource({
    "node-role.kubernetes.io/control-plane, Exists, '', true",
    "node-role.kubernetes.io/control-plane, DoesNotExist, '', false",
    "node-role.kubernetes.io/master, Exists, '', false",
    "node-role.kubernetes.io/control-plane, In, '' , false",
    "cores, Gt, 4, true",
    "cores, Lt, 4, false",
    "cores, In, 4 8, true",
    "cores, NotIn, 4 8, false",
    "zone, NotIn, a, true",
  })
  void requiredNodeAffinity(String key, String operator, String values, boolean allowed) {
    assertThat(NodePlacement.allows(requiring(key, operator, values), CONTROL_PLANE))
        .isEqualTo(allowed);
  }

  @ParameterizedTest(name = "nodeSelector {0}={1} -> {2}")
  @CsvSource({
    "node-role.kubernetes.io/control-plane, '', true",
    "node-role.kubernetes.io/master, '', false",
    "cores, 4, false",
  })
  void nodeSelector(String key, String value, boolean allowed) {
    PodSpec pod = new PodSpecBuilder().withNodeSelector(Map.of(key, value)).build();

    assertThat(NodePlacement.allows(pod, CONTROL_PLANE)).isEqualTo(allowed);
  }
}
