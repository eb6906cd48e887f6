package io.ccm4j.cloudprovider;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Cloud load balancers for {@code type: LoadBalancer} Services (spec §2, LoadBalancer).
 *
 * <p>The Services and Nodes passed in are the service controller's cached objects: read them, never
 * change them (upstream's interface asks the same).
 */
public interface LoadBalancer {

  /** The load balancer's status, or empty when it does not exist. */
  Optional<LoadBalancerStatus> getLoadBalancer(String clusterName, Service service)
      throws CloudException;

  /**
   * The cloud name of the service's load balancer; {@link #defaultName} unless the cloud needs
   * another.
   */
  default String loadBalancerName(String clusterName, Service service) {
    return defaultName(service);
  }

  /**
   * Creates or updates the load balancer so that it forwards to {@code nodes}. May throw {@link
   * RetryAfterException} to be called again after a fixed delay, or {@link
   * ImplementedElsewhereException}. The status's {@link LoadBalancerStatus#warnings()} name fields
   * of the Service the load balancer was built without; the controller records each as a Warning
   * event on the Service.
   */
  LoadBalancerStatus ensureLoadBalancer(String clusterName, Service service, List<Node> nodes)
      throws CloudException;

  /** Changes only the set of backend nodes. */
  void updateLoadBalancer(String clusterName, Service service, List<Node> nodes)
      throws CloudException;

  /**
   * How many Services one {@link #updateLoadBalancers} call may carry. 1, the default, means the
   * provider has no bulk update: callers then count each Service as a request of its own.
   */
  default int maxServicesPerCall() {
    return 1;
  }

  /**
   * {@link #updateLoadBalancer} for many Services with one backend set, as the service controller
   * needs when the nodes change: a provider that must resolve the nodes to cloud instances (an
   * instance lookup per update) can do it once for all of them. The default updates Service by
   * Service. The contract is {@link InstancesV2}'s for bulk calls, keyed by {@link #serviceKey}: at
   * most {@link #maxServicesPerCall()} Services, {@code true} for each one updated, a Service's
   * error ({@link ImplementedElsewhereException} included) for that Service only, and a Service
   * missing from the answer not updated (it gets a full ensure).
   */
  default BulkAnswers<Boolean> updateLoadBalancers(
      String clusterName, Collection<Service> services, List<Node> nodes) throws CloudException {
    return BulkAnswers.oneByOne(
        services,
        LoadBalancer::serviceKey,
        service -> {
          updateLoadBalancer(clusterName, service, nodes);
          return true;
        });
  }

  /**
   * Deletes the load balancer if it exists; succeeds if it does not. Must not throw {@link
   * ImplementedElsewhereException}.
   */
  void ensureLoadBalancerDeleted(String clusterName, Service service) throws CloudException;

  /**
   * What, besides the Service, its nodes and the cluster name (which ccm4j records itself), decides
   * how this provider ensures a load balancer: its version and the parts of its cloud-config that
   * shape load balancers, as a short string (a digest, a version). ccm4j records it with each
   * ensure; a new leader that finds another value recorded ensures the load balancer again instead
   * of trusting the record, so an upgrade or a changed cloud-config reaches every existing load
   * balancer. Empty (the default) means "nothing but the Service and the nodes"; the periodic
   * re-ensure still corrects drift in the cloud.
   */
  default String fingerprint() {
    return "";
  }

  /**
   * {@code "a"} followed by the service UID without dashes, at most 32 characters (upstream's
   * default).
   */
  static String defaultName(Service service) {
    String name = "a" + service.getMetadata().getUid().replace("-", "");
    return name.length() > 32 ? name.substring(0, 32) : name;
  }

  /**
   * {@code namespace/name}: how the controller's queue and logs (fabric8's {@code
   * Cache.metaNamespaceKeyFunc}) name a Service, for a provider's own bookkeeping and messages.
   */
  static String serviceKey(Service service) {
    return service.getMetadata().getNamespace() + "/" + service.getMetadata().getName();
  }
}
