package io.ccm4j.app;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

/**
 * A test's LoadBalancer Services gone for good once its managers are: the API server is shared by
 * every test class of the run, and each later manager watches every namespace. A Service left with
 * its cleanup finalizer (no manager to release it), or in a namespace that never ends terminating
 * (no kube-controller-manager here), would be ensured by the next test's manager, on that test's
 * cloud and before its own Services.
 */
final class LeftServices {

  private LeftServices() {}

  /** Deletes the Service, its finalizers released. */
  static void remove(KubernetesClient client, String namespace, String name) {
    Service service = client.services().inNamespace(namespace).withName(name).get();
    if (service != null) {
      removeForGood(client, service);
    }
  }

  /** Deletes every Service of the namespace, their finalizers released. */
  static void removeAll(KubernetesClient client, String namespace) {
    client
        .services()
        .inNamespace(namespace)
        .list()
        .getItems()
        .forEach(s -> removeForGood(client, s));
  }

  private static void removeForGood(KubernetesClient client, Service service) {
    var resource =
        client
            .services()
            .inNamespace(service.getMetadata().getNamespace())
            .withName(service.getMetadata().getName());
    if (service.getMetadata().getFinalizers() != null
        && !service.getMetadata().getFinalizers().isEmpty()) {
      resource.patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
    }
    resource.delete();
  }
}
