package io.ccm4j.provider.kubevirt;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The fields of a {@code kubevirt.io/v1} VirtualMachineInstance this provider reads (K100).
 *
 * @param name the VMI's name, the instance id of {@code kubevirt://<name>} (K21)
 * @param instanceType the {@code kubevirt.io/instancetype-name} annotation, else the {@code
 *     kubevirt.io/cluster-instancetype-name} one, else empty (K29 and its Quirk)
 * @param hostname {@code spec.hostname}, or empty (K26)
 * @param phase {@code status.phase}, or empty
 * @param nodeName {@code status.nodeName}: the infrastructure node it runs on, or empty
 * @param interfaces {@code status.interfaces}, in order
 */
record VirtualMachineInstance(
    String name,
    String instanceType,
    String hostname,
    String phase,
    String nodeName,
    List<Interface> interfaces) {

  /** One entry of {@code status.interfaces}. */
  record Interface(String name, List<String> ipAddresses) {}

  /** The non-empty IPs of the first {@code default} interface, in order (K27, K74). */
  List<String> defaultInterfaceIps() {
    return interfaces.stream()
        .filter(i -> KubeVirtApi.DEFAULT_INTERFACE.equals(i.name()))
        .findFirst()
        .map(i -> i.ipAddresses().stream().filter(ip -> !ip.isBlank()).toList())
        .orElse(List.of());
  }

  static VirtualMachineInstance of(GenericKubernetesResource vmi) {
    Map<String, String> annotations = vmi.getMetadata().getAnnotations();
    Map<String, Object> spec = map(vmi.getAdditionalProperties().get("spec"));
    Map<String, Object> status = map(vmi.getAdditionalProperties().get("status"));
    List<Interface> interfaces = new ArrayList<>();
    if (status.get("interfaces") instanceof List<?> list) {
      for (Object item : list) {
        Map<String, Object> entry = map(item);
        List<String> ips = new ArrayList<>();
        if (entry.get("ipAddresses") instanceof List<?> addresses) {
          for (Object ip : addresses) {
            if (ip instanceof String text) {
              ips.add(text);
            }
          }
        }
        interfaces.add(new Interface(string(entry.get("name")), List.copyOf(ips)));
      }
    }
    return new VirtualMachineInstance(
        vmi.getMetadata().getName(),
        instanceType(annotations),
        string(spec.get("hostname")),
        string(status.get("phase")),
        string(status.get("nodeName")),
        List.copyOf(interfaces));
  }

  private static String instanceType(Map<String, String> annotations) {
    if (annotations == null) {
      return "";
    }
    String namespaced = annotations.get(KubeVirtApi.INSTANCETYPE_ANNOTATION);
    if (namespaced != null && !namespaced.isEmpty()) {
      return namespaced;
    }
    return Objects.requireNonNullElse(
        annotations.get(KubeVirtApi.CLUSTER_INSTANCETYPE_ANNOTATION), "");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> map ? (Map<String, Object>) map : Map.of();
  }

  private static String string(Object value) {
    return value instanceof String text ? text : "";
  }
}
