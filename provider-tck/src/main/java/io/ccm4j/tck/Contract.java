package io.ccm4j.tck;

import org.opentest4j.AssertionFailedError;

/**
 * One promise of the SPI that ccm4j's controllers rely on: the behaviour id it holds (in {@code
 * docs/behaviour/}), what a provider must do, and what upstream's controllers do with the answer,
 * which is why it matters. Every failure of the kit names one, so a provider author reads what was
 * broken and why, not an assertion library's diff.
 */
public enum Contract {
  INSTANCE_EXISTS(
      Facet.INSTANCES,
      "L5 L7",
      "a running instance exists and is not shut down",
      "the lifecycle controller asks InstanceExists, then InstanceShutdown, of every NotReady node"),
  INSTANCE_METADATA(
      Facet.INSTANCES,
      "N6",
      "a running instance has metadata; for a node registered without a providerID it gives the"
          + " providerID <providerName>://<id> of the node's instance",
      "the node controller leaves a node tainted and retries while the cloud gives no providerID"),
  PROVIDER_ID_KEPT(
      Facet.INSTANCES,
      "F2",
      "the metadata of a node that has a providerID carries that same providerID",
      "a node's providerID is set once and never changed"),
  UNINITIALISED_NODE_NOT_GONE(
      Facet.INSTANCES,
      "N6 §8.1",
      "a node without a providerID yet (as its kubelet registered it) is never reported gone while"
          + " its instance runs",
      "a NotReady node is deleted on the first \"does not exist\", even before it was initialised"),
  NODE_IP_AMONG_ADDRESSES(
      Facet.INSTANCES,
      "N7 N12",
      "for a node annotated alpha.kubernetes.io/provided-node-ip (the kubelet's --node-ip: one IP,"
          + " or an IPv4 and an IPv6 one), every IP of the annotation is among the addresses"
          + " instanceMetadata gives (of any type; compared as IPs)",
      "the node controller does not initialise a node whose provided node IP is not among the"
          + " cloud's addresses: the sync fails with \"provided node ip for node … is not valid\" and is"
          + " retried, and the node keeps the uninitialized taint, so nothing is scheduled on it"),
  ZONE_AND_REGION(
      Facet.INSTANCES,
      "N8 F3",
      "instanceMetadata gives the zone and region the instance runs in (as"
          + " ProviderHarness.runningInstanceZone names them; both empty for a cloud without zones;"
          + " when it gives neither, ccm4j asks the Zones facet, if offered), each empty or a valid"
          + " label value: at most 63 letters, digits, '-', '_' and '.', beginning and ending with a"
          + " letter or digit",
      "the node controller writes them as the topology.kubernetes.io/zone and /region labels (and"
          + " the beta failure-domain ones) in the update that removes the uninitialized taint: an"
          + " invalid value fails that update every time, so the node stays tainted; an empty one"
          + " writes no label, so the node lifecycle controller counts the node in one zone with"
          + " every other zone-less node, and spreading pods across zones leaves it out"),
  SHUT_DOWN_EXISTS(
      Facet.INSTANCES,
      "L7",
      "a shut-down instance exists and is shut down",
      "a stopped instance still exists; the node is tainted node.cloudprovider.kubernetes.io/shutdown,"
          + " not deleted"),
  GONE_DOES_NOT_EXIST(
      Facet.INSTANCES,
      "L6",
      "an instance that is gone does not exist and has no metadata",
      "the lifecycle controller deletes a NotReady node whose instance does not exist"),
  ERROR_NEVER_GONE(
      Facet.INSTANCES,
      "L5",
      "when the cloud API fails, InstancesV2 calls throw a CloudException: never \"does not exist\","
          + " never InstanceNotFoundException",
      "an error skips the node; \"does not exist\" deletes it at once (kubernetes#58334,"
          + " kubernetes#127424: nodes deleted on a cloud error)"),
  THROTTLED_NEVER_GONE(
      Facet.INSTANCES,
      "L5 §8.2",
      "when the cloud API throttles, InstancesV2 calls throw a CloudException (best a"
          + " RetryAfterException): never \"does not exist\"",
      "an error skips the node; \"does not exist\" deletes it at once"),
  BULK_EXISTS_AS_PER_NODE(
      Facet.INSTANCES_BULK,
      "L5 L6",
      "instancesExist answers each node it answers as instanceExists does (a running, a not yet"
          + " initialised and a shut-down instance exist, a gone one does not); an error for a node,"
          + " or a node left out of the answer, is allowed, another value never",
      "the lifecycle controller asks in bulk when the provider can; false deletes a NotReady node at"
          + " once"),
  BULK_SHUTDOWN_AS_PER_NODE(
      Facet.INSTANCES_BULK,
      "L7",
      "instancesShutdown answers each node it answers as instanceShutdown does; an error for a node,"
          + " or a node left out, is allowed, another value never",
      "true taints the node node.cloudprovider.kubernetes.io/shutdown, false removes the taint"),
  BULK_METADATA_AS_PER_NODE(
      Facet.INSTANCES_BULK,
      "N6 N13",
      "instancesMetadata answers each node it answers with the metadata instanceMetadata gives,"
          + " InstanceNotFoundException only for an instance instanceMetadata does not find; an"
          + " error for a node, or a node left out, is allowed, other metadata never",
      "the node controller initialises nodes and refreshes their addresses from the bulk answer"),
  BULK_ERROR_NEVER_GONE(
      Facet.INSTANCES_BULK,
      "L5 §8.2",
      "when the cloud API fails or throttles, a bulk call throws a CloudException (best a"
          + " ThrottledException when throttled) or answers each node with an error or not at all:"
          + " never false from instancesExist, never InstanceNotFoundException from"
          + " instancesMetadata (a list that failed is no proof that an instance is gone)",
      "an error skips the node; \"does not exist\" deletes it at once (kubernetes#58334,"
          + " kubernetes#127424: nodes deleted on a cloud error)"),
  BULK_CALL_ANSWERED(
      Facet.INSTANCES_BULK,
      "§8.2 L2 N13",
      "maxNodesPerCall() is at least 1, and with a working API a call of that many nodes (the kit"
          + " asks at most 5) is taken and every running instance's node answered by each bulk"
          + " method, within %d calls when the nodes left out are asked again"
              .formatted(BulkAsker.ROUNDS),
      "the passes ask in calls of maxNodesPerCall() nodes and count each as one request of the"
          + " cloud's quota; a node never answered is never initialised, refreshed or checked"),
  LOAD_BALANCER_ABSENT(
      Facet.LOAD_BALANCER,
      "S11",
      "getLoadBalancer of a Service never ensured is empty",
      "the delete branch asks GetLoadBalancer before deleting"),
  ENSURE_IDEMPOTENT(
      Facet.LOAD_BALANCER,
      "S14 §8.8",
      "ensuring the same Service and nodes again, from the same or a new provider instance, gives the"
          + " same load balancer",
      "every leader start ensures every load balancer again"),
  STATUS_SHAPE(
      Facet.LOAD_BALANCER,
      "S12 S13",
      "ensure returns a status with at least one ingress (IP addresses that parse, ipMode VIP or Proxy"
          + " only with an IP, port protocols TCP/UDP/SCTP), and getLoadBalancer reports the same",
      "the status is written to status.loadBalancer.ingress; a nil status is an error"),
  UPDATE_FOLLOWS_NODES(
      Facet.LOAD_BALANCER,
      "S15",
      "after updateLoadBalancer the load balancer forwards to exactly the nodes given",
      "UpdateLoadBalancer is called only when the node set changes (stale backends:"
          + " kubernetes#121090)"),
  DELETE_MISSING_IS_FINE(
      Facet.LOAD_BALANCER,
      "S11",
      "ensureLoadBalancerDeleted succeeds when there is no load balancer (also a second time), never"
          + " with ImplementedElsewhereException, and afterwards getLoadBalancer is empty",
      "the delete branch removes the Service's finalizer only after EnsureLoadBalancerDeleted"
          + " succeeded"),
  LOAD_BALANCER_ERROR_NEVER_ABSENT(
      Facet.LOAD_BALANCER,
      "S15",
      "when the cloud API fails, getLoadBalancer throws a CloudException: never \"no load balancer\"",
      "a failed update whose GetLoadBalancer answers \"not exists\" counts as success"),
  FINGERPRINT_STABLE(
      Facet.LOAD_BALANCER,
      "§8.8",
      "fingerprint() is the same for a new provider instance of the same cloud config",
      "none: every leader start ensures every load balancer; ccm4j skips the unchanged ones by the"
          + " recorded fingerprint, so an unstable one makes every failover a start-up storm"),
  FINGERPRINT_FOLLOWS_CONFIG(
      Facet.LOAD_BALANCER,
      "§8.8",
      "a cloud config that changes how load balancers are built changes fingerprint()",
      "none: ccm4j ensures a load balancer again only when the Service, its nodes or the"
          + " fingerprint changed, so the change would never reach existing load balancers"),
  BULK_UPDATE_AS_PER_SERVICE(
      Facet.LOAD_BALANCER_BULK,
      "S15",
      "maxServicesPerCall() is at least 1, and updateLoadBalancers of that many Services (the kit"
          + " asks at most 3) leaves each Service it answers true for forwarding to the nodes"
          + " updateLoadBalancer of one Service gives; with a working API every Service is answered"
          + " within %d calls when those left out are asked again".formatted(BulkAsker.ROUNDS),
      "on a node-set change the service controller updates the load balancers in bulk and trusts"
          + " each true; a Service left out gets a full ensure (stale backends: kubernetes#121090)"),
  ROUTE_LISTED_BACK(
      Facet.ROUTES,
      "R5",
      "a created route is listed back, named, with its target node and destination CIDR",
      "the route controller keeps a route it lists back; one it does not find it creates again on"
          + " every pass"),
  ROUTE_DELETED(
      Facet.ROUTES,
      "R6",
      "a deleted route is no longer listed",
      "the route controller deletes routes it lists by the name the cloud gave them"),
  ROUTES_OF_THE_CLUSTER_ONLY(
      Facet.ROUTES,
      "R6",
      "listRoutes(clusterName) lists only the routes created for that cluster name, not those of"
          + " another cluster in the same cloud",
      "the route controller deletes every route it lists inside its cluster CIDRs that no node of"
          + " its own needs, so another cluster's routes listed with its own are deleted"),
  ZONES_AGREE(
      Facet.ZONES,
      "N6",
      "zoneByProviderId and zoneByNodeName name the same zone for one instance",
      "when the instance metadata has neither zone nor region, ccm4j's node controller asks Zones"
          + " by the providerID the metadata or the node gives, and by node name when neither gives"
          + " one (upstream's asks Zones only of a cloud without InstancesV2, by providerID, then by"
          + " node name)"),
  CONFIG_ERRORS_NAME_THE_FIELD(
      Facet.CLOUD_CONFIG,
      "§2",
      "an invalid cloud config fails the factory with a CloudConfigException whose message names the"
          + " field; an unknown field is an error too",
      "the manager stops at start with the provider's message as the only clue"),
  REGISTERED_BY_NAME(
      Facet.LIFECYCLE,
      "§2 A10",
      "the factory is listed in META-INF/services and found under its name; the provider answers"
          + " the same name (the scheme of its provider IDs)",
      "--cloud-provider names a registered factory; providerIDs are <ProviderName()>://<id>"),
  CLOSE_BOUNDED(
      Facet.LIFECYCLE,
      "A4",
      "close() returns within the harness's bound, also for a provider that did work",
      "the manager stops its controllers and then the cloud; a close that hangs keeps the process"
          + " (and the leader Lease) past its grace period");

  /** A part of the SPI the kit checks. */
  public enum Facet {
    INSTANCES("InstancesV2"),
    INSTANCES_BULK("InstancesV2 bulk calls"),
    LOAD_BALANCER("LoadBalancer"),
    LOAD_BALANCER_BULK("LoadBalancer bulk update"),
    ROUTES("Routes"),
    ZONES("Zones"),
    CLOUD_CONFIG("cloud config"),
    LIFECYCLE("CloudProvider");

    private final String spiName;

    Facet(String spiName) {
      this.spiName = spiName;
    }

    /** The name of the SPI interface (or part) the facet is. */
    public String spiName() {
      return spiName;
    }
  }

  private final Facet facet;
  private final String ids;
  private final String promise;
  private final String upstream;

  Contract(Facet facet, String ids, String promise, String upstream) {
    this.facet = facet;
    this.ids = ids;
    this.promise = promise;
    this.upstream = upstream;
  }

  public Facet facet() {
    return facet;
  }

  /** The behaviour ids it holds, space-separated. */
  public String ids() {
    return ids;
  }

  /** What the provider must do. */
  public String promise() {
    return promise;
  }

  /** What upstream's controllers do with the answer. */
  public String upstream() {
    return upstream;
  }

  /** {@code contract ENSURE_IDEMPOTENT (S14 §8.8, LoadBalancer)}: how every failure starts. */
  public String title() {
    return "contract %s (%s, %s)".formatted(name(), ids, facet.spiName());
  }

  /** The failure of this contract, with what was seen. */
  public AssertionFailedError broken(String seen) {
    return new AssertionFailedError(
        "%s broken: %s. The contract: %s. Why: %s.".formatted(title(), seen, promise, upstream));
  }

  /** Fails with {@link #broken} unless {@code holds}. */
  public void require(boolean holds, String seen) {
    if (!holds) {
      throw broken(seen);
    }
  }
}
