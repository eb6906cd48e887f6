package io.ccm4j.provider.sim;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The {@code --cloud-config} of the {@code sim} provider. Example:
 *
 * <pre>
 * latencyMs: 50          # every call takes this long
 * jitterMs: 10           # plus up to this much
 * errorRate: 0.3         # fraction of calls failing with a cloud error
 * qps: 20                # API rate limit; calls above it fail as throttled
 * burst: 20
 * admin: 127.0.0.1:0     # loopback admin endpoint (delete/shutdown/start instances, call counts)
 * instances:
 *   - name: cp-1
 *     region: r1
 *     zone: r1-a
 *     instanceType: sim.large
 *     addresses: [10.0.0.10, "fd00::10"]
 *     labels: {sim.ccm4j.io/pool: control-plane}
 * generate:
 *   count: 1000
 *   prefix: worker-
 *   regions: {r1: [r1-a, r1-b, r1-c]}
 *   instanceTypes: [sim.small, sim.large]
 *   addressFamilies: [IPv4, IPv6]
 * </pre>
 */
public record SimCloudConfig(
    @JsonProperty("latencyMs") long latencyMs,
    @JsonProperty("jitterMs") long jitterMs,
    @JsonProperty("errorRate") double errorRate,
    @JsonProperty("qps") double qps,
    @JsonProperty("burst") Integer burst,
    @JsonProperty("admin") String admin,
    @JsonProperty("instances") List<Instance> instances,
    @JsonProperty("generate") Generate generate) {

  /** One instance, named like the node it backs. */
  public record Instance(
      @JsonProperty(value = "name", required = true) String name,
      @JsonProperty("region") String region,
      @JsonProperty("zone") String zone,
      @JsonProperty("instanceType") String instanceType,
      @JsonProperty("addresses") List<String> addresses,
      @JsonProperty("labels") Map<String, String> labels,
      @JsonProperty("state") String state) {}

  /**
   * Instances made up by rule: names {@code prefix0..prefix(count-1)}, round robin over the rest.
   */
  public record Generate(
      @JsonProperty("count") int count,
      @JsonProperty("prefix") String prefix,
      @JsonProperty("regions") Map<String, List<String>> regions,
      @JsonProperty("instanceTypes") List<String> instanceTypes,
      @JsonProperty("addressFamilies") List<String> addressFamilies) {}
}
