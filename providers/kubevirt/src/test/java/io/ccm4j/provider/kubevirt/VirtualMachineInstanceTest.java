package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VirtualMachineInstanceTest {

  private static GenericKubernetesResource vmi(Map<String, String> annotations) {
    GenericKubernetesResource vmi = new GenericKubernetesResource();
    vmi.setMetadata(new ObjectMetaBuilder().withName("vm-1").withAnnotations(annotations).build());
    return vmi;
  }

  @ParameterizedTest(name = "namespaced={0} cluster={1} -> {2}")
  @CsvSource({
    "u1.small, , u1.small",
    ", u1.large, u1.large",
    "u1.small, u1.large, u1.small",
    ", , ''",
  })
  void k29_theInstanceTypeOfEitherKind(String namespaced, String cluster, String expected) {
    Map<String, String> annotations = new LinkedHashMap<>();
    if (namespaced != null) {
      annotations.put(KubeVirtApi.INSTANCETYPE_ANNOTATION, namespaced);
    }
    if (cluster != null) {
      annotations.put(KubeVirtApi.CLUSTER_INSTANCETYPE_ANNOTATION, cluster);
    }
    assertThat(VirtualMachineInstance.of(vmi(annotations)).instanceType()).isEqualTo(expected);
  }
}
