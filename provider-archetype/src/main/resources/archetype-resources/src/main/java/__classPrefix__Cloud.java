package ${package};

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.cloudprovider.Routes;
import java.util.Optional;

/**
 * The ${providerName} cloud. Each facet it returns starts one of ccm4j's controllers; return {@code
 * Optional.empty()} for a facet your cloud does not offer (no routes when the pod network routes
 * itself, for example), and that controller is not started.
 */
public final class ${classPrefix}Cloud implements CloudProvider {

  private final ${classPrefix}CloudConfig config;
  private final ${classPrefix}Instances instances;
  private final ${classPrefix}LoadBalancers loadBalancers;
  private final ${classPrefix}Routes routes;

  public ${classPrefix}Cloud(${classPrefix}CloudConfig config) {
    this.config = config;
    this.instances = new ${classPrefix}Instances(config);
    this.loadBalancers = new ${classPrefix}LoadBalancers(config);
    this.routes = new ${classPrefix}Routes(config);
  }

  @Override
  public String providerName() {
    return ${classPrefix}CloudProviderFactory.NAME;
  }

  /**
   * Fill in: start the cloud API's client here (not in the factory). {@code
   * context.clusterName()} is {@code --cluster-name}, the prefix of the cloud resources this
   * cluster owns; {@code context.cluster()} the served cluster's client, for a controller of your
   * own.
   */
  @Override
  public void initialize(ProviderContext context) throws CloudException {}

  @Override
  public Optional<InstancesV2> instancesV2() {
    return Optional.of(instances);
  }

  @Override
  public Optional<LoadBalancer> loadBalancer() {
    return Optional.of(loadBalancers);
  }

  @Override
  public Optional<Routes> routes() {
    return Optional.of(routes);
  }

  public ${classPrefix}CloudConfig config() {
    return config;
  }

  /** Fill in: close what initialize started; the manager waits for it when it stops. */
  @Override
  public void close() {}
}
