package io.ccm4j.provider.kubevirt;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The {@code --cloud-config} of the {@code kubevirt} provider, as written (K5). Every field is
 * optional but the infrastructure namespace must be known (K6). Example with the defaults:
 *
 * <pre>
 * kubeconfig: /etc/kubernetes/infra/kubeconfig  # the infrastructure cluster; empty: in-cluster
 * namespace: tenant-a                # where the VMIs live; default: the kubeconfig context's
 * infraLabels: {}                    # extra labels on every infrastructure Service
 * loadBalancer:
 *   enabled: true
 *   creationPollInterval: 5          # seconds between checks for the infrastructure ingress
 *   creationPollTimeout: 300         # seconds before ccm4j stops asking again quickly
 *   selectorless: false              # true: infrastructure Services get no selector
 *   enableEPSController: false       # true: the EndpointSlice controller for Local traffic
 *   allowedAnnotations: []           # tenant annotations copied: exact keys, or prefixes ending in *
 *   allowExternalIPs: false          # true: a tenant's spec.externalIPs is copied
 *   allowLoadBalancerIP: false       # true: a tenant's spec.loadBalancerIP is copied
 * instancesV2:
 *   enabled: true
 *   zoneAndRegionEnabled: true       # false: no infrastructure Node is read (no ClusterRole)
 * </pre>
 *
 * <p>Unlike upstream (K5), an unknown key is an error naming it, as for every ccm4j provider: a
 * misspelt {@code namspace} must not silently fall back to a default.
 */
public record KubeVirtCloudConfig(
    @JsonProperty("kubeconfig") String kubeconfig,
    @JsonProperty("namespace") String namespace,
    @JsonProperty("infraLabels") Map<String, String> infraLabels,
    @JsonProperty("loadBalancer") LoadBalancer loadBalancer,
    @JsonProperty("instancesV2") InstancesV2 instancesV2) {

  /** The {@code loadBalancer} block. */
  public record LoadBalancer(
      @JsonProperty("enabled") Boolean enabled,
      @JsonProperty("creationPollInterval") Integer creationPollInterval,
      @JsonProperty("creationPollTimeout") Integer creationPollTimeout,
      @JsonProperty("selectorless") Boolean selectorless,
      @JsonProperty("enableEPSController") Boolean enableEpsController,
      @JsonProperty("allowedAnnotations") List<String> allowedAnnotations,
      @JsonProperty("allowExternalIPs") Boolean allowExternalIps,
      @JsonProperty("allowLoadBalancerIP") Boolean allowLoadBalancerIp) {}

  /** The {@code instancesV2} block. */
  public record InstancesV2(
      @JsonProperty("enabled") Boolean enabled,
      @JsonProperty("zoneAndRegionEnabled") Boolean zoneAndRegionEnabled) {}
}
