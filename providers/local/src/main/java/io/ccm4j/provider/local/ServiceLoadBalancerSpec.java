package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.cloudprovider.net.IpAddresses;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a load balancer must do for a Service, read and checked from the Service alone: its
 * listeners, who may connect, the address asked for and how backends are health-checked. Every
 * error names the Service field at fault.
 *
 * @param ports one listener each, in the Service's order
 * @param sourceRanges allowed client networks; empty means everyone (spec §1: default {@code
 *     0.0.0.0/0})
 * @param requestedAddress {@code spec.loadBalancerIP}, or null
 * @param healthCheckPort the node port that answers {@code /healthz}: {@code
 *     spec.healthCheckNodePort} for {@code externalTrafficPolicy: Local}, kube-proxy's port for
 *     {@code Cluster}
 */
record ServiceLoadBalancerSpec(
    List<Port> ports,
    List<Cidr> sourceRanges,
    InetAddress requestedAddress,
    boolean localTrafficPolicy,
    int healthCheckPort) {

  /** The path both kinds of health check use (spec §1). */
  static final String HEALTH_CHECK_PATH = "/healthz";

  /** One listener: clients reach {@code port}; the backend nodes serve it on {@code nodePort}. */
  record Port(String name, Protocol protocol, int port, int nodePort) {}

  enum Protocol {
    TCP,
    UDP
  }

  static ServiceLoadBalancerSpec of(Service service, int kubeProxyHealthPort)
      throws CloudException {
    String who = key(service);
    var spec = service.getSpec();
    if (spec == null) {
      throw new CloudException(who + ": the Service has no spec");
    }
    List<Port> ports = new ArrayList<>();
    List<ServicePort> servicePorts = spec.getPorts() == null ? List.of() : spec.getPorts();
    for (int i = 0; i < servicePorts.size(); i++) {
      ServicePort p = servicePorts.get(i);
      String field = "spec.ports[" + i + "]";
      String protocolName = p.getProtocol() == null ? "TCP" : p.getProtocol();
      Protocol protocol;
      try {
        protocol = Protocol.valueOf(protocolName);
      } catch (IllegalArgumentException e) {
        throw new CloudException(
            "%s: %s.protocol: %s is not supported by the local load balancer (TCP and UDP are)"
                .formatted(who, field, protocolName));
      }
      int port = p.getPort() == null ? 0 : p.getPort();
      if (port < 1 || port > 65535) {
        throw new CloudException(
            "%s: %s.port: must be between 1 and 65535, got %d".formatted(who, field, port));
      }
      int nodePort = p.getNodePort() == null ? 0 : p.getNodePort();
      if (nodePort < 1 || nodePort > 65535) {
        throw new CloudException(
            "%s: %s.nodePort: the local load balancer forwards to node ports, but none is allocated"
                .formatted(who, field));
      }
      for (Port other : ports) {
        if (other.port() == port && other.protocol() == protocol) {
          throw new CloudException(
              "%s: %s.port: %d/%s is listed twice".formatted(who, field, port, protocol));
        }
      }
      ports.add(new Port(p.getName(), protocol, port, nodePort));
    }
    boolean local = "Local".equals(spec.getExternalTrafficPolicy());
    int healthPort = kubeProxyHealthPort;
    if (local) {
      healthPort = spec.getHealthCheckNodePort() == null ? 0 : spec.getHealthCheckNodePort();
      if (healthPort < 1 || healthPort > 65535) {
        throw new CloudException(
            "%s: spec.healthCheckNodePort: externalTrafficPolicy Local needs one, got %d"
                .formatted(who, healthPort));
      }
    }
    return new ServiceLoadBalancerSpec(
        List.copyOf(ports), sourceRanges(service), requestedAddress(service), local, healthPort);
  }

  /**
   * {@code spec.loadBalancerSourceRanges} when set, else the annotation {@value
   * WellKnownAnnotations#LOAD_BALANCER_SOURCE_RANGES} (comma separated), as upstream's {@code
   * GetLoadBalancerSourceRanges} reads them.
   */
  static List<Cidr> sourceRanges(Service service) throws CloudException {
    List<String> fromSpec = service.getSpec().getLoadBalancerSourceRanges();
    List<Cidr> ranges = new ArrayList<>();
    if (fromSpec != null && !fromSpec.isEmpty()) {
      for (int i = 0; i < fromSpec.size(); i++) {
        ranges.add(range(service, fromSpec.get(i), "spec.loadBalancerSourceRanges[" + i + "]"));
      }
      return List.copyOf(ranges);
    }
    Map<String, String> annotations = service.getMetadata().getAnnotations();
    String annotation =
        annotations == null
            ? null
            : annotations.get(WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES);
    if (annotation == null || annotation.isBlank()) {
      return List.of();
    }
    for (String part : annotation.split(",")) {
      ranges.add(
          range(
              service,
              part,
              "metadata.annotations[" + WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES + "]"));
    }
    return List.copyOf(ranges);
  }

  private static Cidr range(Service service, String text, String field) throws CloudException {
    try {
      return Cidr.parse(text);
    } catch (IllegalArgumentException e) {
      throw new CloudException("%s: %s: %s".formatted(key(service), field, e.getMessage()));
    }
  }

  private static InetAddress requestedAddress(Service service) throws CloudException {
    String ip = service.getSpec().getLoadBalancerIP();
    if (ip == null || ip.isBlank()) {
      return null;
    }
    Optional<InetAddress> address = IpAddresses.tryParse(ip.trim());
    if (address.isEmpty()) {
      throw new CloudException(
          "%s: spec.loadBalancerIP: \"%s\" is not an IP address".formatted(key(service), ip));
    }
    return address.get();
  }

  /** Whether a client may connect; no ranges means everyone. */
  boolean allows(InetAddress client) {
    return allows(sourceRanges, client);
  }

  static boolean allows(List<Cidr> ranges, InetAddress client) {
    if (ranges.isEmpty()) {
      return true;
    }
    for (Cidr range : ranges) {
      if (range.contains(client)) {
        return true;
      }
    }
    return false;
  }

  static String key(Service service) {
    return "service " + LoadBalancer.serviceKey(service);
  }
}
