package io.ccm4j.simulator.virt;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What KubeVirt's objects look like, as the simulated virt layer writes them: a VirtualMachine's
 * and a VMI's spec, the VMI's {@code default} interface, an object's status as a map to change, the
 * owner reference of a VM on its VMI and of a VMI on its launcher pod.
 */
final class VirtShapes {

  private VirtShapes() {}

  static Map<String, Object> vmSpec(VirtualMachineSpec spec, String runStrategy) {
    Map<String, Object> vmSpec = new LinkedHashMap<>();
    vmSpec.put("runStrategy", runStrategy);
    if (spec.instanceType() != null) {
      vmSpec.put(
          "instancetype",
          Map.of(
              "name",
              spec.instanceType(),
              "kind",
              spec.namespacedInstanceType()
                  ? "VirtualMachineInstancetype"
                  : "VirtualMachineClusterInstancetype"));
    }
    vmSpec.put(
        "template",
        Map.of(
            "metadata", Map.of("labels", spec.templateLabels()),
            "spec", vmiSpec(spec)));
    return vmSpec;
  }

  static Map<String, Object> vmiSpec(VirtualMachineSpec spec) {
    Map<String, Object> vmiSpec = new LinkedHashMap<>();
    vmiSpec.put(
        "domain",
        Map.of(
            "devices",
                Map.of("interfaces", List.of(Map.of("name", "default", "masquerade", Map.of()))),
            "resources", Map.of("requests", Map.of("memory", "1Gi"))));
    vmiSpec.put("networks", List.of(Map.of("name", "default", "pod", Map.of())));
    if (spec.hostname() != null) {
      vmiSpec.put("hostname", spec.hostname());
    }
    return vmiSpec;
  }

  static Map<String, Object> defaultInterface(List<String> ips) {
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("name", "default");
    entry.put("interfaceName", "eth0");
    entry.put("infoSource", "domain, guest-agent");
    if (!ips.isEmpty()) {
      entry.put("ipAddress", ips.get(0));
    }
    entry.put("ipAddresses", new ArrayList<>(ips));
    return entry;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> status(GenericKubernetesResource resource) {
    Object status = resource.getAdditionalProperties().get("status");
    return status instanceof Map<?, ?> map
        ? new LinkedHashMap<>((Map<String, Object>) map)
        : new LinkedHashMap<>();
  }

  static OwnerReference owner(HasMetadata owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
