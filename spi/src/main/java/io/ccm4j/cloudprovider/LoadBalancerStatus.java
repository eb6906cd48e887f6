package io.ccm4j.cloudprovider;

import java.util.List;
import java.util.Objects;

/**
 * The addresses a load balancer is reachable at, written to the Service's {@code
 * status.loadBalancer}, and what the provider left out of the Service while building it.
 *
 * @param ingress the ingress points, in order
 * @param warnings fields of the Service the provider did not apply (not written to the status: the
 *     service controller records each as a Warning event on the Service)
 */
public record LoadBalancerStatus(List<Ingress> ingress, List<FieldWarning> warnings) {

  public LoadBalancerStatus {
    ingress = List.copyOf(Objects.requireNonNullElse(ingress, List.of()));
    warnings = List.copyOf(Objects.requireNonNullElse(warnings, List.of()));
  }

  public LoadBalancerStatus(List<Ingress> ingress) {
    this(ingress, List.of());
  }

  /**
   * A field of the Service the load balancer was built without (the Service itself is fine, so the
   * ensure goes on; compare {@link InvalidServiceFieldException}, which stops it).
   *
   * @param field the field or annotation, as a user finds it in the Service ({@code
   *     spec.externalIPs}, {@code metadata.annotations[example.com/x]})
   * @param problem why it was left out, and how to allow it where the operator can
   */
  public record FieldWarning(String field, String problem) {

    public FieldWarning {
      Objects.requireNonNull(field, "field");
      Objects.requireNonNull(problem, "problem");
    }

    /** {@code field: problem}, the event message. */
    public String message() {
      return field + ": " + problem;
    }
  }

  /**
   * One ingress point, as the Service's {@code status.loadBalancer.ingress[]} holds it.
   *
   * @param ip the address, or empty
   * @param hostname the DNS name, or empty; at least one of {@code ip} and {@code hostname} is set,
   *     and both may be (a load balancer that reports its name with its address)
   * @param ipMode {@code VIP} or {@code Proxy}, or empty to leave it unset; only with an {@code ip}
   * @param ports the status of each port, or none
   */
  public record Ingress(String ip, String hostname, String ipMode, List<PortStatus> ports) {

    public Ingress {
      ip = Objects.requireNonNullElse(ip, "");
      hostname = Objects.requireNonNullElse(hostname, "");
      ipMode = Objects.requireNonNullElse(ipMode, "");
      ports = List.copyOf(Objects.requireNonNullElse(ports, List.of()));
      if (ip.isEmpty() && hostname.isEmpty()) {
        throw new IllegalArgumentException("an ingress needs an ip or a hostname");
      }
    }

    public Ingress(String ip, String hostname, String ipMode) {
      this(ip, hostname, ipMode, List.of());
    }

    public static Ingress ofIp(String ip) {
      return new Ingress(ip, "", "");
    }

    public static Ingress ofHostname(String hostname) {
      return new Ingress("", hostname, "");
    }
  }

  /**
   * One entry of an ingress point's {@code ports[]}.
   *
   * @param port the port number
   * @param protocol {@code TCP}, {@code UDP} or {@code SCTP}
   * @param error the port's error in CamelCase, or empty
   */
  public record PortStatus(int port, String protocol, String error) {

    public PortStatus {
      protocol = Objects.requireNonNullElse(protocol, "");
      error = Objects.requireNonNullElse(error, "");
    }
  }
}
