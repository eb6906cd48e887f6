package io.ccm4j.controllers.nodeutil;

import io.ccm4j.runtime.client.protobuf.ApiWrites;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Consumer;

/** Deletes a pod, that very pod: not another one created since under its name. */
public final class PodDeletions {

  /** What became of a deletion. */
  public enum Outcome {
    /** This pod is being deleted. */
    DELETED,
    /** No pod of that name is left. */
    GONE,
    /** A pod of that name exists, but it is another one (another UID): it was left alone. */
    REPLACED
  }

  private PodDeletions() {}

  /**
   * Deletes the pod if the one of its name is still this one (its UID). The deletion is conditional
   * on that UID, so a pod deleted and created again in between is not deleted either; it is not
   * conditional on the resource version, so a write to the pod meanwhile (the kubelet's status, a
   * readiness gate's controller) does not fail it, as it does not fail upstream's deletion by name.
   */
  public static Outcome deleteExactly(KubernetesClient client, Pod pod) {
    return deleteExactly(client, pod, current -> {});
  }

  /**
   * {@link #deleteExactly(KubernetesClient, Pod)}, with {@code beforeDelete} run on the pod as just
   * read (this very pod); an exception it throws leaves the pod undeleted.
   */
  public static Outcome deleteExactly(
      KubernetesClient client, Pod pod, Consumer<Pod> beforeDelete) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    String uid = pod.getMetadata().getUid();
    Pod current = client.pods().inNamespace(namespace).withName(name).get();
    if (current == null) {
      return Outcome.GONE;
    }
    if (!current.getMetadata().getUid().equals(uid)) {
      return Outcome.REPLACED;
    }
    beforeDelete.accept(current);
    // fabric8 offers only a resource-version precondition; the UID one is sent as upstream's
    // clients send DeleteOptions.
    ApiWrites writes = new ApiWrites(client);
    byte[] options =
        client
            .getKubernetesSerialization()
            .asJson(
                Map.of(
                    "apiVersion", "v1",
                    "kind", "DeleteOptions",
                    "preconditions", Map.of("uid", uid)))
            .getBytes(StandardCharsets.UTF_8);
    try {
      writes.send(
          "DELETE",
          writes.core("namespaces/" + namespace + "/pods/" + name),
          ApiWrites.JSON,
          options);
      return Outcome.DELETED;
    } catch (KubernetesClientException e) {
      return switch (e.getCode()) {
        case 404 -> Outcome.GONE;
        case 409 -> Outcome.REPLACED; // the UID precondition: deleted and created again since
        default -> throw e;
      };
    }
  }
}
