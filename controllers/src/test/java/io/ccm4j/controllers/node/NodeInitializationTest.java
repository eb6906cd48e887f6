package io.ccm4j.controllers.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeInitializationTest {

  private static Node taintedNode(String providerId, Map<String, String> labels) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("n")
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withProviderID(providerId)
        .addNewTaint()
        .withKey(WellKnownTaints.UNINITIALIZED)
        .withValue("true")
        .withEffect("NoSchedule")
        .endTaint()
        .addNewTaint()
        .withKey("dedicated")
        .withValue("infra")
        .withEffect("NoSchedule")
        .endTaint()
        .endSpec()
        .build();
  }

  @Test
  void N8_setsProviderIdLabelsAndRemovesOnlyTheUninitializedTaint() {
    InstanceMetadata metadata =
        new InstanceMetadata("sim://n", "m.large", List.of(), "z1", "r1", Map.of("team", "blue"));

    Node result = NodeInitialization.apply(taintedNode(null, Map.of()), metadata).node();

    assertThat(result.getSpec().getProviderID()).isEqualTo("sim://n");
    assertThat(result.getMetadata().getLabels())
        .containsEntry(WellKnownLabels.INSTANCE_TYPE, "m.large")
        .containsEntry(WellKnownLabels.INSTANCE_TYPE_BETA, "m.large")
        .containsEntry(WellKnownLabels.ZONE, "z1")
        .containsEntry(WellKnownLabels.ZONE_BETA, "z1")
        .containsEntry(WellKnownLabels.REGION, "r1")
        .containsEntry(WellKnownLabels.REGION_BETA, "r1")
        .containsEntry("team", "blue");
    assertThat(result.getSpec().getTaints())
        .extracting(t -> t.getKey())
        .containsExactly("dedicated");
  }

  @Test
  void N8_theCachedNodeIsNotChangedAndItsStatusIsSharedNotCopied() {
    Node cached = taintedNode(null, Map.of("kubernetes.io/hostname", "n"));
    cached.setStatus(new NodeStatusBuilder().addNewAddress("10.0.0.7", "InternalIP").build());
    Node before = new NodeBuilder(cached).build();

    Node result =
        NodeInitialization.apply(
                cached, new InstanceMetadata("sim://n", "m.large", List.of(), "z1", "r1", Map.of()))
            .node();

    assertThat(cached).as("the informer's object, unchanged").isEqualTo(before);
    assertThat(result.getMetadata()).isNotSameAs(cached.getMetadata());
    assertThat(result.getSpec()).isNotSameAs(cached.getSpec());
    assertThat(result.getStatus())
        .as("an update keeps the stored status: not copied")
        .isSameAs(cached.getStatus());
  }

  @Test
  void N8_anExistingProviderIdIsNeverReplacedAndEmptyFieldsChangeNothing() {
    Node node = taintedNode("other://x", Map.of(WellKnownLabels.ZONE, "keep"));

    Node result =
        NodeInitialization.apply(
                node, new InstanceMetadata("sim://n", "", List.of(), "", "", Map.of()))
            .node();

    assertThat(result.getSpec().getProviderID()).isEqualTo("other://x");
    assertThat(result.getMetadata().getLabels())
        .containsOnly(Map.entry(WellKnownLabels.ZONE, "keep"));
  }

  @Test
  void N8_additionalLabelsNeverUseReservedNamespacesNorOverwrite() {
    Node node = taintedNode(null, Map.of("team", "red"));
    InstanceMetadata metadata =
        new InstanceMetadata(
            "sim://n",
            "",
            List.of(),
            "",
            "",
            Map.of(
                "team", "blue",
                "node.kubernetes.io/evil", "x",
                "sub.k8s.io/evil", "x",
                "example.com/ok", "yes"));

    NodeInitialization.Result result = NodeInitialization.apply(node, metadata);

    assertThat(result.node().getMetadata().getLabels())
        .containsEntry("team", "red")
        .containsEntry("example.com/ok", "yes")
        .doesNotContainKeys("node.kubernetes.io/evil", "sub.k8s.io/evil");
    assertThat(result.warnings()).hasSize(3);
  }

  @Test
  void N14_gaLabelsFollowTheBetaOnes() {
    assertThat(
            LabelReconciliation.missing(
                Map.of(
                    WellKnownLabels.ZONE_BETA, "z",
                    WellKnownLabels.REGION_BETA, "r",
                    WellKnownLabels.REGION, "r",
                    WellKnownLabels.INSTANCE_TYPE, "only-ga")))
        .containsOnly(Map.entry(WellKnownLabels.ZONE, "z"));
  }
}
