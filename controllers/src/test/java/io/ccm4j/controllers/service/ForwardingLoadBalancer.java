package io.ccm4j.controllers.service;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import java.util.Optional;

/** A load balancer that hands every call to another; a test overrides the calls it changes. */
class ForwardingLoadBalancer implements LoadBalancer {

  private final LoadBalancer delegate;

  ForwardingLoadBalancer(LoadBalancer delegate) {
    this.delegate = delegate;
  }

  @Override
  public Optional<LoadBalancerStatus> getLoadBalancer(String cluster, Service service)
      throws CloudException {
    return delegate.getLoadBalancer(cluster, service);
  }

  @Override
  public String fingerprint() {
    return delegate.fingerprint();
  }

  @Override
  public String loadBalancerName(String cluster, Service service) {
    return delegate.loadBalancerName(cluster, service);
  }

  @Override
  public LoadBalancerStatus ensureLoadBalancer(String cluster, Service service, List<Node> nodes)
      throws CloudException {
    return delegate.ensureLoadBalancer(cluster, service, nodes);
  }

  @Override
  public void updateLoadBalancer(String cluster, Service service, List<Node> nodes)
      throws CloudException {
    delegate.updateLoadBalancer(cluster, service, nodes);
  }

  @Override
  public void ensureLoadBalancerDeleted(String cluster, Service service) throws CloudException {
    delegate.ensureLoadBalancerDeleted(cluster, service);
  }
}
