package io.ccm4j.lab;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.cloudprovider.Routes;
import io.ccm4j.cloudprovider.Zones;
import io.ccm4j.provider.local.LocalCloud;
import io.ccm4j.provider.sim.SimCloud;
import java.util.Optional;

/**
 * The lab's cloud as one manager sees it: the sim cloud's instances (zones, instance types,
 * addresses on this machine's loopback) and routes (or the {@code local} cloud's), and the {@code
 * local} cloud's load balancers, which forward real connections to the nodes' kube-proxies.
 *
 * <p>Both clouds belong to the lab, not to a manager: like a real cloud they outlive a replica that
 * stops (its {@link #close()} does nothing), so a load balancer keeps serving while the next leader
 * takes over.
 */
public final class LabCloud implements CloudProvider {

  private final SimCloud sim;
  private final LocalCloud local;
  private final Routes routes;

  public LabCloud(SimCloud sim, LocalCloud local) {
    this(sim, local, sim.routes().orElseThrow());
  }

  private LabCloud(SimCloud sim, LocalCloud local, Routes routes) {
    this.sim = sim;
    this.local = local;
    this.routes = routes;
  }

  /**
   * The lab's cloud whose routes are the {@code local} cloud's table (which may live in a file the
   * lab programs into a real network), not the sim cloud's.
   */
  public static LabCloud routingWithLocal(SimCloud sim, LocalCloud local) {
    return new LabCloud(sim, local, local.routes().orElseThrow());
  }

  @Override
  public String providerName() {
    return sim.providerName();
  }

  @Override
  public void initialize(ProviderContext context) throws CloudException {
    sim.initialize(context);
    local.initialize(context);
  }

  @Override
  public Optional<InstancesV2> instancesV2() {
    return sim.instancesV2();
  }

  @Override
  public Optional<Zones> zones() {
    return sim.zones();
  }

  @Override
  public Optional<Routes> routes() {
    return Optional.of(routes);
  }

  @Override
  public Optional<LoadBalancer> loadBalancer() {
    return local.loadBalancer();
  }

  @Override
  public boolean hasClusterId() {
    return sim.hasClusterId();
  }

  @Override
  public void close() {}
}
