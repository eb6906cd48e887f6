package io.ccm4j.controllers.nodeutil;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.Map;

/** Writes to a pod's status subresource. */
public final class PodStatusPatches {

  private PodStatusPatches() {}

  /**
   * Adds or replaces one condition of the pod's status (a strategic merge by type: the others
   * stay), on the condition that the pod is still the one with its UID; the pod as patched.
   */
  public static Pod patchCondition(KubernetesClient client, Pod pod, PodCondition condition) {
    return client
        .pods()
        .inNamespace(pod.getMetadata().getNamespace())
        .resource(pod) // not withName(): fabric8 would GET the pod before patching
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.STRATEGIC_MERGE),
            client
                .getKubernetesSerialization()
                .asJson(
                    Map.of(
                        "metadata",
                        Map.of("uid", pod.getMetadata().getUid()),
                        "status",
                        Map.of("conditions", List.of(condition)))));
  }
}
