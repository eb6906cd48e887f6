package io.ccm4j.provider.local;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * The {@code --cloud-config} of the {@code local} provider, as written; every field is optional.
 * Durations are Go durations ({@code 500ms}, {@code 2s}, {@code 1m30s}). Example with the defaults:
 *
 * <pre>
 * addressPool: 127.0.100.0/24     # load balancer addresses (loopback, IPv4)
 * balancing: round-robin          # or least-connections
 * connectTimeout: 1s              # to a backend node
 * drainTimeout: 30s               # how long connections to a leaving or unhealthy node may last
 * udpIdleTimeout: 30s             # a UDP client session without traffic is closed after this
 * udpMaxSessions: 4096            # per UDP port; a new client then ends the least recently active
 * healthCheck:
 *   interval: 2s
 *   timeout: 1s
 *   healthyThreshold: 1           # consecutive successes before a node gets new connections
 *   unhealthyThreshold: 2         # consecutive failures before it gets none
 *   kubeProxyPort: 10256          # kube-proxy's /healthz, checked for externalTrafficPolicy: Cluster
 * backendNetworks: []            # private IPv4 networks of this machine's other network namespaces
 *                                # (e.g. a lab's nodes behind a bridge) whose node addresses are backends
 * routeTable: ""                 # a file that keeps the route table (absolute path; its directory must
 *                                # exist); empty: in memory. Replicas sharing the file share the table.
 * </pre>
 */
public record LocalCloudConfig(
    @JsonProperty("addressPool") String addressPool,
    @JsonProperty("balancing") String balancing,
    @JsonProperty("connectTimeout") String connectTimeout,
    @JsonProperty("drainTimeout") String drainTimeout,
    @JsonProperty("udpIdleTimeout") String udpIdleTimeout,
    @JsonProperty("udpMaxSessions") Integer udpMaxSessions,
    @JsonProperty("healthCheck") HealthCheck healthCheck,
    @JsonProperty("backendNetworks") List<String> backendNetworks,
    @JsonProperty("routeTable") String routeTable) {

  /** How backend nodes are checked. */
  public record HealthCheck(
      @JsonProperty("interval") String interval,
      @JsonProperty("timeout") String timeout,
      @JsonProperty("healthyThreshold") Integer healthyThreshold,
      @JsonProperty("unhealthyThreshold") Integer unhealthyThreshold,
      @JsonProperty("kubeProxyPort") Integer kubeProxyPort) {}
}
