package ${package};

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The {@code --cloud-config} of the ${providerName} provider, as written (see cloud-config.yaml). Add
 * the fields your cloud needs; {@link ${classPrefix}CloudConfigLoader} checks them.
 *
 * @param region the region the cluster's instances run in; required
 * @param endpoint the cloud API's URL; optional
 * @param loadBalancer how load balancers are made
 */
public record ${classPrefix}CloudConfig(
    @JsonProperty("region") String region,
    @JsonProperty("endpoint") String endpoint,
    @JsonProperty("loadBalancer") LoadBalancerConfig loadBalancer) {

  /** @param network the network load balancers are made in */
  public record LoadBalancerConfig(@JsonProperty("network") String network) {}

  /** The network load balancers are made in: {@code default} unless configured. */
  public String loadBalancerNetwork() {
    return loadBalancer == null || loadBalancer.network() == null
        ? "default"
        : loadBalancer.network();
  }
}
