package io.ccm4j.tck;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import io.ccm4j.cloudprovider.Zones;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the kit needs from a provider's test: how to make the provider, and hooks that put its cloud
 * into the states the contracts are about. One harness serves one check; {@link #close()} then
 * cleans up what it made.
 *
 * <p>Every hook that returns an {@link Optional} is optional: empty (the default) means "this cloud
 * cannot be put in that state", and the checks that need it are skipped, saying which hook would
 * enable them. A hook that throws {@link UnsupportedOperationException} is reported as not
 * implemented.
 *
 * <p>The {@link CloudProvider} passed to the hooks is the instance under test, made by the kit from
 * {@link #factory()} and {@link #cloudConfig()} and initialised with {@link #clusterName()}; a
 * harness may cast it to its own class to change its state directly.
 */
public interface ProviderHarness extends AutoCloseable {

  /** The provider's factory, as META-INF/services lists it. */
  CloudProviderFactory factory();

  /** The {@code --cloud-config} the provider under test is made from (YAML), if it takes one. */
  default Optional<String> cloudConfig() {
    return Optional.empty();
  }

  /** The {@code --cluster-name} the provider is initialised with. */
  default String clusterName() {
    return "kubernetes";
  }

  /**
   * A Node (as its kubelet registered it, {@code spec.providerID} set or not) whose instance exists
   * and runs. Annotate it {@value WellKnownAnnotations#PROVIDED_NODE_IP} with the instance's IP (an
   * IPv4 and an IPv6 one, comma-separated, for a dual-stack instance), as a kubelet started with
   * {@code --node-ip} does: without the annotation the node-IP check (N7) is skipped.
   */
  Node runningInstance(CloudProvider cloud) throws Exception;

  /**
   * Where the instance of {@code node}, a node {@link #runningInstance} gave, runs: its zone (as
   * {@link Zones.Zone#failureDomain()}) and region as the cloud names them, {@code new Zone("",
   * "")} for a cloud without zones or regions. Empty (the default) skips the check that the
   * instance metadata names them.
   */
  default Optional<Zones.Zone> runningInstanceZone(CloudProvider cloud, Node node)
      throws Exception {
    return Optional.empty();
  }

  /** A Node whose instance existed and is gone (deleted in the cloud). */
  default Optional<Node> goneInstance(CloudProvider cloud) throws Exception {
    return Optional.empty();
  }

  /** A Node whose instance exists and is shut down (stopped). */
  default Optional<Node> shutDownInstance(CloudProvider cloud) throws Exception {
    return Optional.empty();
  }

  /**
   * A provider of the same cloud whose API fails every call (an error answer, an unreachable or
   * refusing endpoint), not initialised: the kit initialises and closes it. Its cloud knows the
   * instance of {@link #runningInstance}.
   */
  default Optional<CloudProvider> failingCloud(CloudProvider cloud) throws Exception {
    return Optional.empty();
  }

  /** As {@link #failingCloud}, with an API that throttles every call (rate limit exceeded). */
  default Optional<CloudProvider> throttledCloud(CloudProvider cloud) throws Exception {
    return Optional.empty();
  }

  /**
   * A Service of {@code type: LoadBalancer} the provider can build a load balancer for; the kit's
   * default ({@link ContractObjects#loadBalancerService}) has one TCP port with a node port.
   */
  default Service loadBalancerService(CloudProvider cloud) throws Exception {
    return ContractObjects.loadBalancerService();
  }

  /** Nodes a load balancer may forward to; the kit's default has loopback addresses. */
  default Node backendNode(CloudProvider cloud, int index) throws Exception {
    return ContractObjects.backendNode(cloud.providerName(), index);
  }

  /**
   * Called when {@code ensureLoadBalancer} answered {@link
   * io.ccm4j.cloudprovider.RetryAfterException}: make the cloud finish provisioning the Service's
   * load balancer (what the cloud would do on its own while the controller waits). The default does
   * nothing; the kit asks again a few times.
   */
  default void finishProvisioning(CloudProvider cloud, Service service) throws Exception {}

  /**
   * The names of the nodes the Service's load balancer forwards to, as the cloud sees them; empty
   * when the harness cannot observe it (or the cloud chooses backends itself).
   */
  default Optional<Set<String>> backendNodes(CloudProvider cloud, Service service)
      throws Exception {
    return Optional.empty();
  }

  /**
   * Another cloud config (YAML) for the same cloud under which load balancers come out differently,
   * to check that {@link io.ccm4j.cloudprovider.LoadBalancer#fingerprint()} follows it.
   */
  default Optional<String> cloudConfigChangingLoadBalancers() {
    return Optional.empty();
  }

  /**
   * Invalid cloud configs, each by the field its error must name ({@code loadBalancer.pool} →
   * YAML). The kit adds one of its own: the valid config with an unknown field.
   */
  default Map<String, String> invalidCloudConfigs() {
    return Map.of();
  }

  /** How long {@link CloudProvider#close()} may take. */
  default Duration closeWithin() {
    return Duration.ofSeconds(10);
  }

  /** Removes what the hooks made in the cloud. */
  @Override
  default void close() throws Exception {}
}
