package io.ccm4j.cloudprovider;

import java.util.Optional;

/**
 * A cloud, as ccm4j's controllers see it (spec §2). Each facet is optional: a controller whose
 * facet a provider does not offer is not started, and the manager says so in its log.
 *
 * <p>Instances are reached through {@link InstancesV2} only; the deprecated name-keyed Instances v1
 * API of upstream is not part of ccm4j's SPI.
 */
public interface CloudProvider extends AutoCloseable {

  /** The name users select with {@code --cloud-provider}; also the scheme of its provider IDs. */
  String providerName();

  /**
   * Called once, when this replica has become the leader and before any controller starts, with the
   * settings the manager was given (a standby replica never calls it, as upstream's manager
   * initialises its cloud only when it leads). Providers that start clients or threads do it here,
   * not in their factory. A {@link CloudException} ends the manager with its message (exit code 1),
   * so a standby takes over.
   */
  default void initialize(ProviderContext context) throws CloudException {}

  default Optional<InstancesV2> instancesV2() {
    return Optional.empty();
  }

  default Optional<LoadBalancer> loadBalancer() {
    return Optional.empty();
  }

  default Optional<Routes> routes() {
    return Optional.empty();
  }

  default Optional<Zones> zones() {
    return Optional.empty();
  }

  /**
   * Whether the provider knows which cluster owns its resources. The manager refuses to start a
   * provider that does not, unless the user allows an untagged cloud.
   */
  default boolean hasClusterId() {
    return true;
  }

  /** Releases what {@link #initialize} started. Called once, when the manager stops. */
  @Override
  default void close() {}
}
