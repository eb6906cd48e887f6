package ${package};

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import java.util.Optional;

/**
 * The ${providerName} cloud's load balancers for {@code type: LoadBalancer} Services, named {@link
 * LoadBalancer#defaultName} (from the Service's UID) unless the cloud needs another name.
 */
final class ${classPrefix}LoadBalancers implements LoadBalancer {

  private final ${classPrefix}CloudConfig config;

  ${classPrefix}LoadBalancers(${classPrefix}CloudConfig config) {
    this.config = config;
  }

  @Override
  public Optional<LoadBalancerStatus> getLoadBalancer(String clusterName, Service service)
      throws CloudException {
    throw new UnsupportedOperationException(
        "LoadBalancer.getLoadBalancer: the status of the Service's load balancer, empty when it"
            + " does not exist; throw CloudException when the cloud cannot tell");
  }

  @Override
  public LoadBalancerStatus ensureLoadBalancer(
      String clusterName, Service service, List<Node> nodes) throws CloudException {
    throw new UnsupportedOperationException(
        "LoadBalancer.ensureLoadBalancer: create or update the Service's load balancer so that it"
            + " forwards its ports to the nodes' node ports; the same call again changes nothing;"
            + " throw RetryAfterException while the cloud is still provisioning it");
  }

  @Override
  public void updateLoadBalancer(String clusterName, Service service, List<Node> nodes)
      throws CloudException {
    throw new UnsupportedOperationException(
        "LoadBalancer.updateLoadBalancer: make the load balancer forward to exactly these nodes");
  }

  @Override
  public void ensureLoadBalancerDeleted(String clusterName, Service service) throws CloudException {
    throw new UnsupportedOperationException(
        "LoadBalancer.ensureLoadBalancerDeleted: delete the load balancer; succeed when there is"
            + " none");
  }

  /** What of the cloud config shapes load balancers: a change makes ccm4j ensure them all again. */
  @Override
  public String fingerprint() {
    return "${providerName}/v1/network=" + config.loadBalancerNetwork();
  }
}
