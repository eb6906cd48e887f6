package io.ccm4j.cloudprovider;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What the manager tells a provider when it initialises it.
 *
 * @param clusterName the value of {@code --cluster-name}, the prefix of the cloud resources this
 *     cluster owns
 * @param cluster the served cluster's client with the manager's credentials, for a provider's own
 *     controllers (upstream's {@code Initialize} is given a client builder); empty where the caller
 *     has none to give
 * @param controllerEnabled whether {@code --controllers} enables a controller of the provider's
 *     own, by the name {@code io.ccm4j.controllers.Controllers.PROVIDER_CONTROLLERS} lists it under
 *     ({@code *} enables it, {@code -name} disables it, as upstream's table entries a cloud's
 *     binary adds)
 * @param metrics the registry the manager serves on {@code /metrics}, for the metrics of a
 *     provider's own controllers (their work queues', say) and its cloud calls
 */
public record ProviderContext(
    String clusterName,
    Optional<KubernetesClient> cluster,
    Predicate<String> controllerEnabled,
    MeterRegistry metrics) {

  /** A context whose metrics go to a registry of their own, which nothing serves. */
  public ProviderContext(
      String clusterName, Optional<KubernetesClient> cluster, Predicate<String> controllerEnabled) {
    this(clusterName, cluster, controllerEnabled, new SimpleMeterRegistry());
  }

  /** A context without a cluster client, in which no provider controller is enabled. */
  public ProviderContext(String clusterName) {
    this(clusterName, Optional.empty(), name -> false);
  }
}
