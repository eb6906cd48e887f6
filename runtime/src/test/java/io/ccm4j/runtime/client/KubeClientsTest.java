package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import org.junit.jupiter.api.Test;

class KubeClientsTest {

  private static final String NODE_WITH_MANAGED_FIELDS =
      """
      {"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","resourceVersion":"7",
        "labels":{"topology.kubernetes.io/zone":"z1"},
        "managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1",
          "fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{}}}}}]},
       "spec":{"providerID":"sim://n1"}}
      """;

  @Test
  void theSerializationReadsObjectsWithoutManagedFieldsAndKeepsTheRest() {
    Node node = KubeClients.SERIALIZATION.unmarshal(NODE_WITH_MANAGED_FIELDS, Node.class);

    assertThat(node.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(node.getMetadata().getAdditionalProperties()).doesNotContainKey("managedFields");
    assertThat(node.getMetadata().getName()).isEqualTo("n1");
    assertThat(node.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(node.getMetadata().getLabels()).containsEntry("topology.kubernetes.io/zone", "z1");
    assertThat(node.getSpec().getProviderID()).isEqualTo("sim://n1");
  }

  @Test
  void theSerializationWritesObjectsWithoutManagedFieldsSoTheServerKeepsItsOwn() {
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n1")
            .withManagedFields(new ManagedFieldsEntryBuilder().withManager("kubelet").build())
            .endMetadata()
            .build();

    String json = KubeClients.SERIALIZATION.asJson(node);

    assertThat(json).contains("\"name\":\"n1\"").doesNotContain("managedFields", "kubelet");
  }
}
