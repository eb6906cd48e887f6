package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.net.Cidr;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The checked settings of the {@code local} cloud ({@link LocalCloudConfig} with its defaults
 * applied).
 */
public record LocalCloudSettings(
    Cidr addressPool,
    Balancing balancing,
    Duration connectTimeout,
    Duration drainTimeout,
    Duration udpIdleTimeout,
    int udpMaxSessions,
    Duration healthCheckInterval,
    Duration healthCheckTimeout,
    int healthyThreshold,
    int unhealthyThreshold,
    int kubeProxyHealthPort,
    List<Cidr> backendNetworks,
    Optional<Path> routeTable) {

  /** How a load balancer picks a backend for a new connection or UDP session. */
  public enum Balancing {
    ROUND_ROBIN("round-robin"),
    LEAST_CONNECTIONS("least-connections");

    final String configName;

    Balancing(String configName) {
      this.configName = configName;
    }
  }

  /** kube-proxy's {@code --healthz-bind-address} port, checked for eTP=Cluster (KEP-3836). */
  public static final int KUBE_PROXY_HEALTHZ_PORT = 10256;

  public static LocalCloudSettings defaults() {
    return new LocalCloudSettings(
        Cidr.parse("127.0.100.0/24"),
        Balancing.ROUND_ROBIN,
        Duration.ofSeconds(1),
        Duration.ofSeconds(30),
        Duration.ofSeconds(30),
        4096,
        Duration.ofSeconds(2),
        Duration.ofSeconds(1),
        1,
        2,
        KUBE_PROXY_HEALTHZ_PORT,
        List.of(),
        Optional.empty());
  }

  /** The pool as written, e.g. {@code 127.0.100.0/24}. */
  public String addressPoolText() {
    return addressPool.toString();
  }
}
