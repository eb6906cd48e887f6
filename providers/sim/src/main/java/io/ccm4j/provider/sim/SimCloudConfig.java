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
 * hangRate: 0.05         # fraction of calls that hang until their timeout, then fail
 * hangMs: 2000           # that timeout (default 2000)
 * accountLimit:          # the account's API quota, a token bucket; calls above it fail as
 *   qps: 20              # throttled (ThrottledException, retry after the next token)
 *   burst: 100           # (qps: and burst: at the top level are the older spelling)
 * instancesPerCall: 1000 # instance lookups answer up to this many nodes in one call, as EC2's
 *                        # DescribeInstances (default 1: node by node, as upstream asks)
 * admin: 127.0.0.1:0     # loopback admin endpoint (delete/shutdown/start instances, call counts)
 * journal: /tmp/calls.tsv # every load balancer write appended, with its caller (SimCallJournal)
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
 * loadBalancers:
 *   ingressPool: 127.0.200.0/24    # IPv4 addresses handed to load balancers (default)
 *   provisioningRetries: 2         # a new load balancer first answers "retry after" twice
 *   provisioningRetryAfterMs: 1000 # ... with this delay (default 1000)
 *   ensureCalls: 3                 # an ensure makes this many cloud API calls, each with the
 *                                  # latency (as a real provider's several requests; default 1)
 *   servicesPerCall: 1000          # a node-set change updates this many load balancers in one
 *                                  # call (default 1: one call per load balancer, as upstream)
 * </pre>
 *
 * <p>Without {@code instances:} and {@code generate:} the cloud simulates no instances and offers
 * no instances facet (so no cloud-node or cloud-node-lifecycle controller); {@code instances: []}
 * simulates instances, none yet.
 */
public record SimCloudConfig(
    @JsonProperty("latencyMs") long latencyMs,
    @JsonProperty("jitterMs") long jitterMs,
    @JsonProperty("errorRate") double errorRate,
    @JsonProperty("qps") double qps,
    @JsonProperty("burst") Integer burst,
    @JsonProperty("admin") String admin,
    @JsonProperty("instances") List<Instance> instances,
    @JsonProperty("generate") Generate generate,
    @JsonProperty("loadBalancers") LoadBalancers loadBalancers,
    @JsonProperty("hangRate") double hangRate,
    @JsonProperty("hangMs") Long hangMs,
    @JsonProperty("journal") String journal,
    @JsonProperty("accountLimit") AccountLimit accountLimit,
    @JsonProperty("instancesPerCall") Integer instancesPerCall) {

  /** The most {@code instancesPerCall} may be: EC2's limit for DescribeInstances by id. */
  public static final int MAX_INSTANCES_PER_CALL = 1000;

  /** How long a hanging call takes before it fails, unless {@code hangMs} says otherwise. */
  public static final long DEFAULT_HANG_MS = 2000;

  /** The ingress pool when none is configured: loopback, so no address can leave the machine. */
  public static final String DEFAULT_INGRESS_POOL = "127.0.200.0/24";

  public static final long DEFAULT_PROVISIONING_RETRY_AFTER_MS = 1000;

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

  /** The account's API quota: {@code qps} calls a second, {@code burst} saved up. */
  public record AccountLimit(
      @JsonProperty(value = "qps", required = true) double qps,
      @JsonProperty("burst") Integer burst) {}

  /** The load balancer facet. */
  public record LoadBalancers(
      @JsonProperty("ingressPool") String ingressPool,
      @JsonProperty("provisioningRetries") Integer provisioningRetries,
      @JsonProperty("provisioningRetryAfterMs") Long provisioningRetryAfterMs,
      @JsonProperty("ensureCalls") Integer ensureCalls,
      @JsonProperty("servicesPerCall") Integer servicesPerCall) {}
}
