package io.ccm4j.controllers.nodeutil;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.function.UnaryOperator;

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
   * on the resource version just read, so a pod deleted and created again in between is not deleted
   * either: the API server answers 409, thrown as a {@code KubernetesClientException} for the
   * caller to try again. Upstream deletes by name only.
   */
  public static Outcome deleteExactly(KubernetesClient client, Pod pod) {
    return deleteExactly(client, pod, UnaryOperator.identity());
  }

  /**
   * {@link #deleteExactly(KubernetesClient, Pod)}, with {@code beforeDelete} run on the pod as just
   * read (this very pod): it returns the pod as it left it (the resource version the deletion is
   * conditional on), and an exception it throws leaves the pod undeleted.
   */
  public static Outcome deleteExactly(
      KubernetesClient client, Pod pod, UnaryOperator<Pod> beforeDelete) {
    String namespace = pod.getMetadata().getNamespace();
    String name = pod.getMetadata().getName();
    Pod current = client.pods().inNamespace(namespace).withName(name).get();
    if (current == null) {
      return Outcome.GONE;
    }
    if (!current.getMetadata().getUid().equals(pod.getMetadata().getUid())) {
      return Outcome.REPLACED;
    }
    Pod toDelete = beforeDelete.apply(current);
    boolean deleted =
        !client
            .pods()
            .inNamespace(namespace)
            .resource(toDelete)
            .lockResourceVersion(toDelete.getMetadata().getResourceVersion())
            .delete()
            .isEmpty();
    return deleted ? Outcome.DELETED : Outcome.GONE;
  }
}
