package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.LoadBalancerStatus.FieldWarning;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Service;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which fields of a tenant Service may reach its infrastructure Service. Upstream copies the
 * annotations, {@code externalIPs} and {@code loadBalancerIP} unfiltered (K43, K44), so any tenant
 * user who can create a LoadBalancer Service can claim an address of the infrastructure cluster or
 * drive its load balancer through annotations (the CVE-2020-8554 pattern, now across clusters).
 * ccm4j copies none of them unless the infrastructure operator allows them in the cloud config's
 * {@code loadBalancer} block; what it leaves out is reported as a {@link FieldWarning}.
 *
 * @param allowedAnnotations annotation keys that are copied: an exact key, or a prefix ending in
 *     {@code *} ({@code metallb.universe.tf/*})
 * @param allowExternalIps whether {@code spec.externalIPs} is copied
 * @param allowLoadBalancerIp whether {@code spec.loadBalancerIP} is copied
 */
public record TenantFieldAllowList(
    List<String> allowedAnnotations, boolean allowExternalIps, boolean allowLoadBalancerIp) {

  /** The default: nothing of the tenant's choosing reaches the infrastructure cluster. */
  public static final TenantFieldAllowList NONE = new TenantFieldAllowList(List.of(), false, false);

  static final String PREFIX_WILDCARD = "*";

  /**
   * Annotations that are the tenant cluster's own bookkeeping: left out like any other, but without
   * a warning, since no user asked for them to reach the infrastructure cluster.
   */
  private static final List<String> BOOKKEEPING =
      List.of(WellKnownAnnotations.LOAD_BALANCER_APPLIED, "kubectl.kubernetes.io/");

  public TenantFieldAllowList {
    allowedAnnotations = List.copyOf(allowedAnnotations);
  }

  boolean annotationAllowed(String key) {
    for (String allowed : allowedAnnotations) {
      if (allowed.endsWith(PREFIX_WILDCARD)
          ? key.startsWith(allowed.substring(0, allowed.length() - 1))
          : key.equals(allowed)) {
        return true;
      }
    }
    return false;
  }

  /** The tenant's annotations that are copied, in key order. */
  Map<String, String> annotations(Service tenant) {
    Map<String, String> copied = new TreeMap<>();
    Map<String, String> annotations = tenant.getMetadata().getAnnotations();
    if (annotations != null) {
      annotations.forEach(
          (key, value) -> {
            if (annotationAllowed(key)) {
              copied.put(key, value);
            }
          });
    }
    return copied;
  }

  /** The tenant's {@code externalIPs} if allowed and set, else none. */
  List<String> externalIps(Service tenant) {
    List<String> ips = tenant.getSpec().getExternalIPs();
    return allowExternalIps && ips != null ? List.copyOf(ips) : List.of();
  }

  /** The tenant's {@code loadBalancerIP} if allowed and set, else null. */
  String loadBalancerIp(Service tenant) {
    String ip = tenant.getSpec().getLoadBalancerIP();
    return allowLoadBalancerIp && ip != null && !ip.isEmpty() ? ip : null;
  }

  /** One warning per field the tenant set and this allow-list leaves out. */
  List<FieldWarning> dropped(Service tenant) {
    List<FieldWarning> warnings = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    Map<String, String> annotations = tenant.getMetadata().getAnnotations();
    if (annotations != null) {
      new TreeMap<>(annotations)
          .keySet()
          .forEach(
              key -> {
                if (!annotationAllowed(key) && !bookkeeping(key)) {
                  keys.add(key);
                }
              });
    }
    if (!keys.isEmpty()) {
      warnings.add(
          new FieldWarning(
              "metadata.annotations",
              ("%s not copied to the infrastructure Service; the infrastructure operator can allow"
                      + " keys with loadBalancer.allowedAnnotations in the kubevirt cloud config")
                  .formatted(String.join(", ", keys))));
    }
    List<String> externalIps = tenant.getSpec().getExternalIPs();
    if (!allowExternalIps && externalIps != null && !externalIps.isEmpty()) {
      warnings.add(
          new FieldWarning(
              "spec.externalIPs",
              "not copied to the infrastructure Service; the infrastructure operator can allow it"
                  + " with loadBalancer.allowExternalIPs in the kubevirt cloud config"));
    }
    String loadBalancerIp = tenant.getSpec().getLoadBalancerIP();
    if (!allowLoadBalancerIp && loadBalancerIp != null && !loadBalancerIp.isEmpty()) {
      warnings.add(
          new FieldWarning(
              "spec.loadBalancerIP",
              "not copied to the infrastructure Service; the infrastructure operator can allow it"
                  + " with loadBalancer.allowLoadBalancerIP in the kubevirt cloud config"));
    }
    return warnings;
  }

  private static boolean bookkeeping(String key) {
    return BOOKKEEPING.stream().anyMatch(prefix -> key.startsWith(prefix));
  }
}
