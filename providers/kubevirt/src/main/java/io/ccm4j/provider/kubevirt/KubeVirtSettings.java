package io.ccm4j.provider.kubevirt;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A checked {@link KubeVirtCloudConfig} with its defaults filled in (K5) and the namespace resolved
 * (K6).
 *
 * @param kubeconfig the infrastructure cluster's kubeconfig, read once at startup (K9); empty: the
 *     in-cluster service account
 * @param namespace the infrastructure namespace of the VMIs and infrastructure Services
 * @param infraLabels extra labels for infrastructure Services; they win over the built-in ones
 *     (K42)
 * @param loadBalancerEnabled whether the LoadBalancer facet is offered
 * @param creationPollInterval how soon to look again for an infrastructure ingress (K48)
 * @param creationPollTimeout how long after creation to keep looking that soon (K48)
 * @param selectorless whether infrastructure Services get no selector (K46)
 * @param epsController whether the EndpointSlice controller runs and a Service with {@code
 *     externalTrafficPolicy: Local} gets no selector ({@code enableEPSController}, K4, K46, §4)
 * @param tenantFields which tenant Service fields reach the infrastructure Service
 * @param instancesEnabled whether the InstancesV2 facet is offered (K20)
 * @param zoneAndRegionEnabled whether the infrastructure Node is read for zone and region (K30)
 */
public record KubeVirtSettings(
    Optional<String> kubeconfig,
    String namespace,
    Map<String, String> infraLabels,
    boolean loadBalancerEnabled,
    Duration creationPollInterval,
    Duration creationPollTimeout,
    boolean selectorless,
    boolean epsController,
    TenantFieldAllowList tenantFields,
    boolean instancesEnabled,
    boolean zoneAndRegionEnabled) {

  public KubeVirtSettings {
    infraLabels = Map.copyOf(infraLabels);
  }

  /** Without the kubeconfig's content: it holds the infrastructure cluster's credentials. */
  @Override
  public String toString() {
    return ("KubeVirtSettings[kubeconfig=%s, namespace=%s, infraLabels=%s, loadBalancerEnabled=%s,"
            + " creationPollInterval=%s, creationPollTimeout=%s, selectorless=%s, epsController=%s,"
            + " tenantFields=%s, instancesEnabled=%s, zoneAndRegionEnabled=%s]")
        .formatted(
            kubeconfig.isPresent() ? "(redacted)" : "(in cluster)",
            namespace,
            infraLabels,
            loadBalancerEnabled,
            creationPollInterval,
            creationPollTimeout,
            selectorless,
            epsController,
            tenantFields,
            instancesEnabled,
            zoneAndRegionEnabled);
  }
}
