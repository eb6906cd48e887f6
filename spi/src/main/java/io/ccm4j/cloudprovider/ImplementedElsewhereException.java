package io.ccm4j.cloudprovider;

/**
 * Another component owns this resource (upstream's {@code ImplementedElsewhere}): the controller
 * treats the call as a no-op. Never to be thrown by {@link LoadBalancer#ensureLoadBalancerDeleted}.
 */
public class ImplementedElsewhereException extends CloudException {

  public ImplementedElsewhereException() {
    super("implemented by alternate to cloud provider");
  }
}
