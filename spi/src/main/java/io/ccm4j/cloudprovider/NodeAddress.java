package io.ccm4j.cloudprovider;

import java.util.Objects;

/** One address of a node, as in {@code status.addresses}. */
public record NodeAddress(Type type, String address) {

  /** The address types of the Kubernetes API, spelled as it spells them. */
  public enum Type {
    Hostname,
    ExternalIP,
    InternalIP,
    ExternalDNS,
    InternalDNS
  }

  public NodeAddress {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(address, "address");
  }

  public static NodeAddress internalIp(String address) {
    return new NodeAddress(Type.InternalIP, address);
  }

  public static NodeAddress externalIp(String address) {
    return new NodeAddress(Type.ExternalIP, address);
  }

  public static NodeAddress hostname(String address) {
    return new NodeAddress(Type.Hostname, address);
  }
}
