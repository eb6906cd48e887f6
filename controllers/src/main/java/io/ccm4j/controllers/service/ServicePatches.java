package io.ccm4j.controllers.service;

import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.api.WellKnownServices;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.PortStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The controller's writes to a Service, each one strategic-merge patch through the {@code status}
 * subresource (S13): finalizers and ccm4j's annotation ride along as metadata, the spec is never
 * touched. Patches name only what changes, so no resource version is needed.
 */
final class ServicePatches {

  private static final PatchContext STRATEGIC = PatchContext.of(PatchType.STRATEGIC_MERGE);

  private ServicePatches() {}

  /** S12: adds the cleanup finalizer (finalizers merge as a set). */
  static void addFinalizer(KubernetesClient client, Service service) {
    patch(
        client,
        service,
        Map.of(
            "metadata",
            Map.of("finalizers", List.of(WellKnownAnnotations.LOAD_BALANCER_CLEANUP_FINALIZER))));
  }

  /** S11: removes the cleanup finalizer, leaving any other finalizer alone. */
  static void removeFinalizer(KubernetesClient client, Service service) {
    patch(
        client,
        service,
        Map.of(
            "metadata",
            Map.of(
                "$deleteFromPrimitiveList/finalizers",
                List.of(WellKnownAnnotations.LOAD_BALANCER_CLEANUP_FINALIZER))));
  }

  /** Rewrites only ccm4j's applied annotation (through the status subresource, as S13's). */
  static void patchApplied(KubernetesClient client, Service service, String applied) {
    patch(
        client,
        service,
        Map.of(
            "metadata",
            Map.of("annotations", Map.of(WellKnownAnnotations.LOAD_BALANCER_APPLIED, applied))));
  }

  /**
   * The ingress entries as the status patch carries them. An {@code ipMode} goes only with an
   * {@code ip}: the API server refuses it on a hostname-only entry ("may not be specified when `ip`
   * is not set"), which would fail every status write of that Service.
   */
  static List<Map<String, Object>> ingress(LoadBalancerStatus status) {
    List<Map<String, Object>> ingress = new ArrayList<>();
    for (LoadBalancerStatus.Ingress point : status.ingress()) {
      Map<String, Object> entry = new LinkedHashMap<>();
      if (!point.ip().isEmpty()) {
        entry.put("ip", point.ip());
        if (!point.ipMode().isEmpty()) {
          entry.put("ipMode", point.ipMode());
        }
      }
      if (!point.hostname().isEmpty()) {
        entry.put("hostname", point.hostname());
      }
      if (!point.ports().isEmpty()) {
        List<Map<String, Object>> ports = new ArrayList<>();
        for (LoadBalancerStatus.PortStatus port : point.ports()) {
          Map<String, Object> portEntry = new LinkedHashMap<>();
          portEntry.put("port", port.port());
          portEntry.put("protocol", port.protocol());
          if (!port.error().isEmpty()) {
            portEntry.put("error", port.error());
          }
          ports.add(portEntry);
        }
        entry.put("ports", ports);
      }
      ingress.add(entry);
    }
    return ingress;
  }

  /**
   * S13: writes {@code status.loadBalancer} and, with it, ccm4j's applied annotation ({@code null}
   * removes it).
   */
  static void patchStatus(
      KubernetesClient client, Service service, LoadBalancerStatus status, String applied) {
    List<Map<String, Object>> ingress = ingress(status);
    Map<String, Object> annotations = new HashMap<>();
    annotations.put(WellKnownAnnotations.LOAD_BALANCER_APPLIED, applied);
    Map<String, Object> loadBalancer = new HashMap<>();
    loadBalancer.put("ingress", ingress.isEmpty() ? null : ingress);
    patch(
        client,
        service,
        Map.of(
            "metadata",
            Map.of("annotations", annotations),
            "status",
            Map.of("loadBalancer", loadBalancer)));
  }

  /**
   * S13: whether the Service's {@code status.loadBalancer.ingress} already is {@code status}'s
   * (only the ingress is compared, ports included; absent and empty strings are the same).
   */
  static boolean ingressEquals(Service service, LoadBalancerStatus status) {
    List<LoadBalancerIngress> current =
        service.getStatus() == null || service.getStatus().getLoadBalancer() == null
            ? null
            : service.getStatus().getLoadBalancer().getIngress();
    List<List<Object>> have = new ArrayList<>();
    if (current != null) {
      for (LoadBalancerIngress point : current) {
        String ip = orEmpty(point.getIp());
        List<LoadBalancerStatus.PortStatus> ports = new ArrayList<>();
        if (point.getPorts() != null) {
          for (PortStatus port : point.getPorts()) {
            ports.add(
                new LoadBalancerStatus.PortStatus(
                    port.getPort() == null ? 0 : port.getPort(),
                    port.getProtocol(),
                    port.getError()));
          }
        }
        have.add(
            List.of(
                ip, orEmpty(point.getHostname()), ipMode(ip, orEmpty(point.getIpMode())), ports));
      }
    }
    List<List<Object>> want = new ArrayList<>();
    for (LoadBalancerStatus.Ingress point : status.ingress()) {
      want.add(
          List.of(point.ip(), point.hostname(), ipMode(point.ip(), point.ipMode()), point.ports()));
    }
    return have.equals(want);
  }

  /**
   * Since Kubernetes 1.30 the API server defaults {@code ipMode} to {@code VIP} on every IP
   * ingress; a provider that leaves it unset means the same. A hostname-only entry has none: the
   * server refuses one there, so it is never written ({@link #ingress}).
   */
  private static String ipMode(String ip, String ipMode) {
    if (ip.isEmpty()) {
      return "";
    }
    return ipMode.isEmpty() ? WellKnownServices.IP_MODE_VIP : ipMode;
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }

  private static void patch(KubernetesClient client, Service service, Map<String, Object> patch) {
    // Through resource(): fabric8 GETs the object first when the operation has none (an extra
    // request, and a verb the documented ClusterRole does not grant); the item only names it.
    client
        .services()
        .resource(service)
        .subresource(WellKnownServices.STATUS_SUBRESOURCE)
        .patch(STRATEGIC, client.getKubernetesSerialization().asJson(patch));
  }
}
