package io.ccm4j.controllers.service;

import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownServices;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServiceSpec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** Which Services the controller acts on, and which changes matter to a load balancer (S4–S6). */
final class LoadBalancerServices {

  private LoadBalancerServices() {}

  /** S4: a LoadBalancer Service with no {@code loadBalancerClass} (a class means "not mine"). */
  static boolean wantsLoadBalancer(Service service) {
    ServiceSpec spec = service.getSpec();
    return spec != null
        && WellKnownServices.TYPE_LOAD_BALANCER.equals(spec.getType())
        && spec.getLoadBalancerClass() == null;
  }

  /** S5: holds the cleanup finalizer and is being deleted or no longer of type LoadBalancer. */
  static boolean needsCleanup(Service service) {
    if (!hasCleanupFinalizer(service)) {
      return false;
    }
    ServiceSpec spec = service.getSpec();
    return service.getMetadata().getDeletionTimestamp() != null
        || spec == null
        || !WellKnownServices.TYPE_LOAD_BALANCER.equals(spec.getType());
  }

  static boolean hasCleanupFinalizer(Service service) {
    List<String> finalizers = service.getMetadata().getFinalizers();
    return finalizers != null
        && finalizers.contains(WellKnownAnnotations.LOAD_BALANCER_CLEANUP_FINALIZER);
  }

  /**
   * S6: whether an update changes what the load balancer is built from. Labels, selector,
   * finalizers, status and ccm4j's own {@value WellKnownAnnotations#LOAD_BALANCER_APPLIED}
   * annotation do not (the latter is written by the controller itself and would loop).
   */
  static boolean needsUpdate(Service old, Service current) {
    boolean oldWants = wantsLoadBalancer(old);
    boolean currentWants = wantsLoadBalancer(current);
    if (!oldWants && !currentWants) {
      return false;
    }
    if (oldWants != currentWants) {
      return true;
    }
    ServiceSpec a = spec(old);
    ServiceSpec b = spec(current);
    return !sameList(a.getLoadBalancerSourceRanges(), b.getLoadBalancerSourceRanges())
        || !portsEqualForLoadBalancer(a.getPorts(), b.getPorts())
        || !Objects.equals(a.getSessionAffinity(), b.getSessionAffinity())
        || !Objects.equals(a.getSessionAffinityConfig(), b.getSessionAffinityConfig())
        || !Objects.equals(a.getLoadBalancerIP(), b.getLoadBalancerIP())
        || !sameList(a.getExternalIPs(), b.getExternalIPs())
        || !relevantAnnotations(old).equals(relevantAnnotations(current))
        || !Objects.equals(old.getMetadata().getUid(), current.getMetadata().getUid())
        || !Objects.equals(a.getExternalTrafficPolicy(), b.getExternalTrafficPolicy())
        || !Objects.equals(a.getHealthCheckNodePort(), b.getHealthCheckNodePort())
        || size(a.getIpFamilies()) != size(b.getIpFamilies());
  }

  /** S6: same length and, element-wise, the same name, protocol, ports and app protocol. */
  static boolean portsEqualForLoadBalancer(List<ServicePort> a, List<ServicePort> b) {
    if (size(a) != size(b)) {
      return false;
    }
    for (int i = 0; i < size(a); i++) {
      ServicePort x = a.get(i);
      ServicePort y = b.get(i);
      if (!Objects.equals(x.getName(), y.getName())
          || !Objects.equals(x.getProtocol(), y.getProtocol())
          || !Objects.equals(x.getPort(), y.getPort())
          || !Objects.equals(x.getNodePort(), y.getNodePort())
          || !Objects.equals(x.getTargetPort(), y.getTargetPort())
          || !Objects.equals(x.getAppProtocol(), y.getAppProtocol())) {
        return false;
      }
    }
    return true;
  }

  /** Every annotation but ccm4j's own, sorted; what S6 and the applied digest compare. */
  static Map<String, String> relevantAnnotations(Service service) {
    Map<String, String> annotations = new TreeMap<>();
    Map<String, String> all = service.getMetadata().getAnnotations();
    if (all != null) {
      annotations.putAll(all);
    }
    annotations.remove(WellKnownAnnotations.LOAD_BALANCER_APPLIED);
    return annotations;
  }

  private static ServiceSpec spec(Service service) {
    return service.getSpec() == null ? new ServiceSpec() : service.getSpec();
  }

  /** Ordered comparison where absent and empty are the same (fabric8 reads both as empty). */
  private static <T> boolean sameList(List<T> a, List<T> b) {
    return (size(a) == 0 && size(b) == 0) || Objects.equals(a, b);
  }

  private static int size(List<?> list) {
    return list == null ? 0 : list.size();
  }
}
