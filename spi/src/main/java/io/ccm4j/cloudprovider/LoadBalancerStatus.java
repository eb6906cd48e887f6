package io.ccm4j.cloudprovider;

import java.util.List;
import java.util.Objects;

/**
 * The addresses a load balancer is reachable at, written to the Service's {@code
 * status.loadBalancer}.
 */
public record LoadBalancerStatus(List<Ingress> ingress) {

  public LoadBalancerStatus {
    ingress = List.copyOf(Objects.requireNonNullElse(ingress, List.of()));
  }

  /**
   * One ingress point. Either {@code ip} or {@code hostname} is set.
   *
   * @param ipMode {@code VIP} or {@code Proxy}, or empty to leave it unset
   */
  public record Ingress(String ip, String hostname, String ipMode) {

    public Ingress {
      ip = Objects.requireNonNullElse(ip, "");
      hostname = Objects.requireNonNullElse(hostname, "");
      ipMode = Objects.requireNonNullElse(ipMode, "");
      if (ip.isEmpty() == hostname.isEmpty()) {
        throw new IllegalArgumentException("exactly one of ip and hostname must be set");
      }
    }

    public static Ingress ofIp(String ip) {
      return new Ingress(ip, "", "");
    }

    public static Ingress ofHostname(String hostname) {
      return new Ingress("", hostname, "");
    }
  }
}
