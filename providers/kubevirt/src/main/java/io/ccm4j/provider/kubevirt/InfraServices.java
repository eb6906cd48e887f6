package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The infrastructure Service that mirrors a tenant Service of type LoadBalancer (K40–K46), and what
 * of it follows the tenant Service later. Pure: no API calls.
 *
 * @param namespace the infrastructure namespace
 * @param clusterName the tenant cluster's {@code --cluster-name} (K8)
 * @param infraLabels extra labels, winning over the built-in ones (K42)
 * @param selectorless whether the infrastructure Service gets no selector (K46)
 * @param epsController whether the EndpointSlice controller runs: then a Service with {@code
 *     externalTrafficPolicy: Local} gets no selector, and the controller its endpoints (K46, §4)
 * @param tenantFields which of the tenant's annotations, externalIPs and loadBalancerIP are copied
 *     (none by default, unlike K43 and K44)
 */
record InfraServices(
    String namespace,
    String clusterName,
    Map<String, String> infraLabels,
    boolean selectorless,
    boolean epsController,
    TenantFieldAllowList tenantFields) {

  static final String LOCAL_TRAFFIC_POLICY = "Local";

  static final String CLUSTER_TRAFFIC_POLICY = "Cluster";

  /** K41: upstream's default name, from the tenant Service's UID only. */
  static String name(Service tenant) {
    return LoadBalancer.defaultName(tenant);
  }

  /** The infrastructure Service to create for {@code tenant} (K41–K46). */
  Service desired(Service tenant) throws CloudException {
    ServiceBuilder builder =
        new ServiceBuilder()
            .withNewMetadata()
            .withName(name(tenant))
            .withNamespace(namespace)
            .withLabels(labels(tenant))
            // K43: copied once, at creation, as upstream does, but only the allowed ones.
            .withAnnotations(tenantFields.annotations(tenant))
            .endMetadata()
            .withNewSpec()
            .withType("LoadBalancer")
            .withPorts(ports(tenant))
            .withExternalTrafficPolicy(externalTrafficPolicy(tenant))
            .withSelector(selector(tenant))
            .endSpec();
    // K44: externalIPs and loadBalancerIP only when the cloud config allows them.
    // healthCheckNodePort never: it is the tenant cluster's port number and means nothing to (or
    // collides in) the infrastructure cluster, which allocates its own for externalTrafficPolicy
    // Local (K44 Quirk).
    List<String> externalIps = tenantFields.externalIps(tenant);
    if (!externalIps.isEmpty()) {
      builder.editSpec().withExternalIPs(externalIps).endSpec();
    }
    String loadBalancerIp = tenantFields.loadBalancerIp(tenant);
    if (loadBalancerIp != null) {
      builder.editSpec().withLoadBalancerIP(loadBalancerIp).endSpec();
    }
    return builder.build();
  }

  /** K42: the built-in labels, then {@code infraLabels} over them. */
  Map<String, String> labels(Service tenant) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(KubeVirtApi.TENANT_SERVICE_NAME_LABEL, tenant.getMetadata().getName());
    labels.put(KubeVirtApi.TENANT_SERVICE_NAMESPACE_LABEL, tenant.getMetadata().getNamespace());
    labels.put(KubeVirtApi.CLUSTER_NAME_LABEL, clusterName);
    labels.putAll(infraLabels);
    return labels;
  }

  /**
   * K45: one port per tenant port, to the tenant node port. A port without a node port ({@code
   * allocateLoadBalancerNodePorts: false}) is an error naming it, where upstream sends a targetPort
   * of 0 that the infrastructure API rejects.
   */
  static List<ServicePort> ports(Service tenant) throws CloudException {
    List<ServicePort> ports = new ArrayList<>();
    for (ServicePort port : tenant.getSpec().getPorts()) {
      if (port.getNodePort() == null || port.getNodePort() <= 0) {
        throw new CloudException(
            ("port %s(%s/%d) of Service %s/%s has no node port; the kubevirt provider forwards"
                    + " to node ports, so allocateLoadBalancerNodePorts must not be false")
                .formatted(
                    port.getName() == null || port.getName().isEmpty() ? "" : port.getName() + " ",
                    Objects.requireNonNullElse(port.getProtocol(), "TCP"),
                    port.getPort(),
                    tenant.getMetadata().getNamespace(),
                    tenant.getMetadata().getName()));
      }
      ports.add(
          new ServicePortBuilder()
              .withName(port.getName())
              .withProtocol(Objects.requireNonNullElse(port.getProtocol(), "TCP"))
              .withPort(port.getPort())
              .withTargetPort(new IntOrString(port.getNodePort()))
              .build());
    }
    return ports;
  }

  /**
   * K46: none for a Service with {@code externalTrafficPolicy: Local} when the EndpointSlice
   * controller runs (it writes the endpoints: the VMIs of the nodes that have the Service's pods),
   * none when selectorless, else the cluster's worker VMIs.
   */
  Map<String, String> selector(Service tenant) {
    if (selectorless
        || (epsController && LOCAL_TRAFFIC_POLICY.equals(externalTrafficPolicy(tenant)))) {
      return null;
    }
    Map<String, String> selector = new LinkedHashMap<>();
    selector.put(KubeVirtApi.ROLE_LABEL, KubeVirtApi.ROLE_WORKER);
    selector.put(KubeVirtApi.CLUSTER_NAME_LABEL, clusterName);
    return selector;
  }

  static String externalTrafficPolicy(Service tenant) {
    String policy = tenant.getSpec().getExternalTrafficPolicy();
    return policy == null || policy.isEmpty() ? CLUSTER_TRAFFIC_POLICY : policy;
  }

  /**
   * Whether the existing infrastructure Service must follow the tenant Service. Upstream follows
   * the ports only, comparing whole structs, so it writes on every call (K47 Quirk); ccm4j compares
   * name, protocol, port and targetPort, and follows the K42 labels (a changed cluster name or
   * {@code infraLabels}: a Service without a selector has only its label to say which cluster's it
   * is, and the EndpointSlice controller serves only its own cluster's), the selector (a changed
   * {@code selectorless} or cluster name), {@code externalTrafficPolicy}, {@code externalIPs} and
   * {@code loadBalancerIP} too: an address copied before the allow-list forbade it (by upstream, or
   * an earlier ccm4j) is taken away. Labels someone else put on the Service stay.
   */
  boolean needsUpdate(Service infra, Service tenant) throws CloudException {
    Map<String, String> infraLabels =
        Objects.requireNonNullElse(infra.getMetadata().getLabels(), Map.of());
    return !portKeys(infra.getSpec().getPorts()).equals(portKeys(ports(tenant)))
        || !infraLabels.entrySet().containsAll(labels(tenant).entrySet())
        || !Objects.equals(emptyToNull(infra.getSpec().getSelector()), selector(tenant))
        || !Objects.equals(
            infra.getSpec().getExternalTrafficPolicy(), externalTrafficPolicy(tenant))
        || !Objects.equals(
            Objects.requireNonNullElse(infra.getSpec().getExternalIPs(), List.of()),
            tenantFields.externalIps(tenant))
        || !Objects.equals(
            emptyToNull(infra.getSpec().getLoadBalancerIP()), tenantFields.loadBalancerIp(tenant));
  }

  /**
   * Changes {@code infra} in place to follow {@code tenant}; the node ports the infrastructure
   * cluster allocated stay with their ports.
   */
  void update(Service infra, Service tenant) throws CloudException {
    List<ServicePort> ports = ports(tenant);
    for (ServicePort port : ports) {
      for (ServicePort old : infra.getSpec().getPorts()) {
        if (Objects.equals(old.getPort(), port.getPort())
            && Objects.equals(old.getProtocol(), port.getProtocol())) {
          port.setNodePort(old.getNodePort());
        }
      }
    }
    infra.getSpec().setPorts(ports);
    Map<String, String> labels = new LinkedHashMap<>();
    if (infra.getMetadata().getLabels() != null) {
      labels.putAll(infra.getMetadata().getLabels());
    }
    labels.putAll(labels(tenant));
    infra.getMetadata().setLabels(labels);
    infra.getSpec().setSelector(selector(tenant));
    infra.getSpec().setExternalTrafficPolicy(externalTrafficPolicy(tenant));
    infra.getSpec().setExternalIPs(tenantFields.externalIps(tenant));
    infra.getSpec().setLoadBalancerIP(tenantFields.loadBalancerIp(tenant));
  }

  private static List<String> portKeys(List<ServicePort> ports) {
    List<String> keys = new ArrayList<>();
    for (ServicePort port : ports == null ? List.<ServicePort>of() : ports) {
      keys.add(
          "%s/%s/%s/%s"
              .formatted(
                  Objects.requireNonNullElse(port.getName(), ""),
                  Objects.requireNonNullElse(port.getProtocol(), "TCP"),
                  port.getPort(),
                  port.getTargetPort() == null ? "" : port.getTargetPort().getValue()));
    }
    return keys;
  }

  private static Map<String, String> emptyToNull(Map<String, String> map) {
    return map == null || map.isEmpty() ? null : map;
  }

  private static String emptyToNull(String text) {
    return text == null || text.isEmpty() ? null : text;
  }
}
