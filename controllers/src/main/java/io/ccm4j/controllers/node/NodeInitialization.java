package io.ccm4j.controllers.node;

import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.Taints;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeSpecBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What initialising a node changes (N8), as a pure function of the node and the cloud's metadata:
 * the provider ID (only if empty), the GA and beta instance-type, zone and region labels, the
 * provider's additional labels (never in the kubernetes.io/k8s.io namespaces, never overwriting),
 * and the removal of every uninitialized taint.
 */
final class NodeInitialization {

  /** Additional labels may not use these namespaces (spec §1). */
  static final Pattern FORBIDDEN_LABEL = Pattern.compile("(^|\\.)(kubernetes|k8s)\\.io/");

  /** The initialised node, and why some additional labels were not applied. */
  record Result(Node node, List<String> warnings) {}

  private NodeInitialization() {}

  static Result apply(Node node, InstanceMetadata metadata) {
    // Metadata and spec copied, the status shared: nothing here changes it, and an update keeps the
    // stored status whatever it carries (copying a kubelet's status was half of this).
    Node copy = new Node();
    copy.setApiVersion(node.getApiVersion());
    copy.setKind(node.getKind());
    copy.setMetadata(
        node.getMetadata() == null
            ? new ObjectMeta()
            : new ObjectMetaBuilder(node.getMetadata()).build());
    copy.setSpec(
        node.getSpec() == null ? new NodeSpec() : new NodeSpecBuilder(node.getSpec()).build());
    copy.setStatus(node.getStatus());
    List<String> warnings = new ArrayList<>();
    if (isEmpty(copy.getSpec().getProviderID()) && !metadata.providerId().isEmpty()) {
      copy.getSpec().setProviderID(metadata.providerId());
    }
    Map<String, String> labels =
        new LinkedHashMap<>(
            copy.getMetadata().getLabels() == null ? Map.of() : copy.getMetadata().getLabels());
    if (!metadata.instanceType().isEmpty()) {
      labels.put(WellKnownLabels.INSTANCE_TYPE_BETA, metadata.instanceType());
      labels.put(WellKnownLabels.INSTANCE_TYPE, metadata.instanceType());
    }
    if (!metadata.zone().isEmpty()) {
      labels.put(WellKnownLabels.ZONE_BETA, metadata.zone());
      labels.put(WellKnownLabels.ZONE, metadata.zone());
    }
    if (!metadata.region().isEmpty()) {
      labels.put(WellKnownLabels.REGION_BETA, metadata.region());
      labels.put(WellKnownLabels.REGION, metadata.region());
    }
    metadata.additionalLabels().entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            entry -> {
              String key = entry.getKey();
              if (FORBIDDEN_LABEL.matcher(key).find()) {
                warnings.add(
                    "additional label %s is in a reserved namespace (kubernetes.io, k8s.io); skipped"
                        .formatted(key));
              } else if (labels.containsKey(key)) {
                if (!labels.get(key).equals(entry.getValue())) {
                  warnings.add(
                      "additional label %s=%s not applied: the node already has %s=%s"
                          .formatted(key, entry.getValue(), key, labels.get(key)));
                }
              } else {
                labels.put(key, entry.getValue());
              }
            });
    copy.getMetadata().setLabels(labels);
    copy.getSpec()
        .setTaints(
            new ArrayList<>(Taints.withoutKey(Taints.of(copy), WellKnownTaints.UNINITIALIZED)));
    return new Result(copy, warnings);
  }

  private static boolean isEmpty(String value) {
    return value == null || value.isEmpty();
  }
}
