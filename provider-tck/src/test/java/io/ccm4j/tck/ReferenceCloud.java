package io.ccm4j.tck;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.ccm4j.cloudprovider.BulkAnswers;
import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudConfigYaml;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.Routes;
import io.ccm4j.cloudprovider.Zones;
import io.ccm4j.cloudprovider.net.Cidr;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-memory cloud that keeps every contract, unless told to break some ({@link Breakage}): the
 * kit's own test runs it through the kit, whole and broken one way at a time.
 */
public final class ReferenceCloud
    implements CloudProvider, InstancesV2, LoadBalancer, Routes, Zones {

  static final String NAME = "reference";

  /** One way to break the contract, each as a real provider has broken it. */
  enum Breakage {
    ERROR_MEANS_GONE,
    THROTTLE_MEANS_GONE,
    GONE_STILL_EXISTS,
    SHUT_DOWN_MEANS_GONE,
    NO_PROVIDER_ID,
    CHANGED_PROVIDER_ID,
    UNINITIALISED_MEANS_GONE,
    /** instanceMetadata finds an instance by providerID only. */
    METADATA_BY_PROVIDER_ID_ONLY,
    /** instanceExists fails with a bug of the provider's own. */
    EXISTS_THROWS_NULL_POINTER,
    NEW_ADDRESS_EVERY_ENSURE,
    INGRESS_NOT_AN_IP,
    UPDATE_IGNORES_NODES,
    DELETE_OF_MISSING_FAILS,
    GET_ANSWERS_BEFORE_ENSURE,
    ERROR_MEANS_NO_LOAD_BALANCER,
    UNSTABLE_FINGERPRINT,
    FINGERPRINT_IGNORES_CONFIG,
    ROUTES_NOT_LISTED,
    ROUTE_NOT_DELETED,
    /** listRoutes ignores its cluster name: every cluster's routes in the table. */
    ROUTES_OF_EVERY_CLUSTER_LISTED,
    ZONES_DISAGREE,
    /** The metadata gives the instance's public address only, not the one the kubelet names. */
    PUBLIC_ADDRESS_ONLY,
    /**
     * The metadata leaves zone and region empty, though the instance runs in one, and no Zones
     * facet gives them.
     */
    ZONE_NOT_GIVEN,
    /**
     * Not a breakage: the metadata leaves zone and region empty, the Zones facet gives them
     * (ccm4j's node controller asks it then). The kit must pass it.
     */
    ZONE_FROM_ZONES_ONLY,
    /** The metadata gives the zone by its display name, which no label may hold. */
    ZONE_NOT_A_LABEL_VALUE,
    /**
     * Not a breakage: a cloud without zones, whose metadata gives neither zone nor region, with no
     * Zones facet (and the harness says so). The contract allows it; the kit must pass it.
     */
    NO_ZONES,
    CONFIG_ERROR_WITHOUT_FIELD,
    CLOSE_HANGS,
    LOAD_BALANCER_NOT_IMPLEMENTED,
    /** ensureLoadBalancerDeleted still a stub, as in a generated project. */
    LOAD_BALANCER_DELETE_NOT_IMPLEMENTED,
    /** A failed list taken for an empty one: every node of the call gone. */
    BULK_ERROR_MEANS_GONE,
    /** instancesExist looks up one page of the list and takes the rest for gone. */
    BULK_EXISTS_FROM_ONE_PAGE,
    /** The list view has no state: every instance seems to run. */
    BULK_SHUTDOWN_NOT_LISTED,
    /** The list view has no addresses. */
    BULK_METADATA_WITHOUT_ADDRESSES,
    /** maxNodesPerCall() says one more than the cloud takes. */
    BULK_REFUSES_FULL_CALL,
    /** updateLoadBalancers changes the first Service only, and answers true for all. */
    BULK_UPDATE_FIRST_SERVICE_ONLY,
    /**
     * Not a breakage: each bulk call answers its first node (Service) only, as a cloud with a page
     * limit may. The contract allows it; the kit must pass it.
     */
    BULK_ANSWERS_PARTIALLY
  }

  /** Every instance's address, the IP its kubelet is started with. */
  static final String INSTANCE_IP = "10.1.0.1";

  /** The zone and region every instance runs in, unless the cloud has no zones. */
  static final Zone PLACEMENT = new Zone("z1", "r1");

  /** The most nodes a bulk call takes, as maxNodesPerCall() says. */
  static final int NODES_PER_CALL = 3;

  /** The most Services a bulk update takes. */
  static final int SERVICES_PER_CALL = 2;

  /** The reference cloud's config: the ingress pool, and how its API answers. */
  record Config(@JsonProperty("pool") String pool, @JsonProperty("api") String api) {}

  private static final AtomicInteger INSTANCES = new AtomicInteger();

  private final Set<Breakage> broken;
  private final Config config;
  private final int instance = INSTANCES.incrementAndGet();
  private final Map<String, Boolean> running = new ConcurrentHashMap<>();
  private final Map<String, LoadBalancerStatus> balancers = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> backends = new ConcurrentHashMap<>();
  private final Set<String> known = ConcurrentHashMap.newKeySet();
  private final Map<String, Route> routeTable = new ConcurrentHashMap<>();

  /** The cluster each route of the table was created for, by route name. */
  private final Map<String, String> routeClusters = new ConcurrentHashMap<>();

  private final AtomicInteger nextAddress = new AtomicInteger(10);
  final CountDownLatch closeMayReturn = new CountDownLatch(1);

  ReferenceCloud(Config config, Set<Breakage> broken) {
    this.config = config;
    this.broken = broken;
  }

  /** The factory, with the breakages of every cloud it makes. */
  public static final class Factory implements CloudProviderFactory {
    private final Set<Breakage> broken;

    /** For ServiceLoader: a cloud that keeps every contract. */
    public Factory() {
      this(EnumSet.noneOf(Breakage.class));
    }

    Factory(Set<Breakage> broken) {
      this.broken = broken;
    }

    @Override
    public String name() {
      return NAME;
    }

    @Override
    public CloudProvider create(Optional<Path> cloudConfig) throws CloudConfigException {
      Config config =
          cloudConfig.isEmpty() ? null : CloudConfigYaml.read(cloudConfig.get(), Config.class);
      if (config == null) {
        config = new Config("10.0.0.0/24", "ok");
      }
      try {
        Cidr.parse(config.pool());
      } catch (RuntimeException e) {
        throw new CloudConfigException(
            broken.contains(Breakage.CONFIG_ERROR_WITHOUT_FIELD)
                ? "invalid config"
                : "field \"pool\": not a CIDR: " + config.pool());
      }
      return new ReferenceCloud(config, broken);
    }
  }

  void add(String name, boolean isRunning) {
    running.put(name, isRunning);
  }

  void remove(String name) {
    running.remove(name);
  }

  @Override
  public String providerName() {
    return NAME;
  }

  @Override
  public Optional<InstancesV2> instancesV2() {
    return Optional.of(this);
  }

  @Override
  public Optional<LoadBalancer> loadBalancer() {
    return Optional.of(this);
  }

  @Override
  public Optional<Routes> routes() {
    return Optional.of(this);
  }

  @Override
  public Optional<Zones> zones() {
    return broken.contains(Breakage.ZONE_NOT_GIVEN) || broken.contains(Breakage.NO_ZONES)
        ? Optional.empty()
        : Optional.of(this);
  }

  /** The API call: fails or throttles as configured. */
  private void call() throws CloudException {
    switch (config.api() == null ? "ok" : config.api()) {
      case "failing" -> throw new CloudException("reference: the API is down");
      case "throttled" ->
          throw new RetryAfterException("reference: rate limit exceeded", Duration.ofSeconds(1));
      default -> {}
    }
  }

  private String instanceName(Node node) {
    String providerId = ContractObjects.providerId(node);
    return providerId.isEmpty()
        ? node.getMetadata().getName()
        : providerId.substring((NAME + "://").length());
  }

  @Override
  public boolean instanceExists(Node node) throws CloudException {
    if (broken.contains(Breakage.EXISTS_THROWS_NULL_POINTER)) {
      throw new NullPointerException("reference: a bug");
    }
    try {
      call();
    } catch (RetryAfterException e) {
      if (broken.contains(Breakage.THROTTLE_MEANS_GONE)) {
        return false;
      }
      throw e;
    } catch (CloudException e) {
      if (broken.contains(Breakage.ERROR_MEANS_GONE)) {
        return false;
      }
      throw e;
    }
    return exists(node, running);
  }

  /** Whether the instance exists in {@code inventory}: the per-node and bulk calls' answer. */
  private boolean exists(Node node, Map<String, Boolean> inventory) {
    if (ContractObjects.providerId(node).isEmpty()
        && broken.contains(Breakage.UNINITIALISED_MEANS_GONE)) {
      return false;
    }
    Boolean state = inventory.get(instanceName(node));
    if (state == null) {
      return broken.contains(Breakage.GONE_STILL_EXISTS);
    }
    return state || !broken.contains(Breakage.SHUT_DOWN_MEANS_GONE);
  }

  @Override
  public boolean instanceShutdown(Node node) throws CloudException {
    call();
    return shutdown(node, running);
  }

  private boolean shutdown(Node node, Map<String, Boolean> inventory) {
    return Boolean.FALSE.equals(inventory.get(instanceName(node)));
  }

  @Override
  public Optional<InstanceMetadata> instanceMetadata(Node node) throws CloudException {
    call();
    return metadata(node, running);
  }

  private Optional<InstanceMetadata> metadata(Node node, Map<String, Boolean> inventory)
      throws InstanceNotFoundException {
    String name = instanceName(node);
    if (ContractObjects.providerId(node).isEmpty()
        && broken.contains(Breakage.METADATA_BY_PROVIDER_ID_ONLY)) {
      throw new InstanceNotFoundException("reference: no instance with providerID \"\"");
    }
    if (!inventory.containsKey(name)) {
      throw new InstanceNotFoundException("reference: no instance " + name);
    }
    String providerId =
        broken.contains(Breakage.NO_PROVIDER_ID)
            ? ""
            : broken.contains(Breakage.CHANGED_PROVIDER_ID)
                    && !ContractObjects.providerId(node).isEmpty()
                ? NAME + "://renamed-" + name
                : NAME + "://" + name;
    boolean zoneless =
        broken.contains(Breakage.NO_ZONES)
            || broken.contains(Breakage.ZONE_NOT_GIVEN)
            || broken.contains(Breakage.ZONE_FROM_ZONES_ONLY);
    return Optional.of(
        new InstanceMetadata(
            providerId,
            "r1.small",
            List.of(
                broken.contains(Breakage.PUBLIC_ADDRESS_ONLY)
                    ? NodeAddress.externalIp("203.0.113.1")
                    : NodeAddress.internalIp(INSTANCE_IP)),
            zoneless
                ? ""
                : broken.contains(Breakage.ZONE_NOT_A_LABEL_VALUE)
                    ? "Zone 1 (r1)"
                    : PLACEMENT.failureDomain(),
            zoneless ? "" : PLACEMENT.region(),
            Map.of()));
  }

  @Override
  public Optional<LoadBalancerStatus> getLoadBalancer(String clusterName, Service service)
      throws CloudException {
    try {
      call();
    } catch (CloudException e) {
      if (broken.contains(Breakage.ERROR_MEANS_NO_LOAD_BALANCER)) {
        return Optional.empty();
      }
      throw e;
    }
    if (broken.contains(Breakage.GET_ANSWERS_BEFORE_ENSURE)
        && !known.contains(LoadBalancer.defaultName(service))) {
      return Optional.of(
          new LoadBalancerStatus(List.of(LoadBalancerStatus.Ingress.ofIp("10.0.0.1"))));
    }
    return Optional.ofNullable(balancers.get(LoadBalancer.defaultName(service)));
  }

  @Override
  public LoadBalancerStatus ensureLoadBalancer(
      String clusterName, Service service, List<Node> nodes) throws CloudException {
    call();
    if (broken.contains(Breakage.LOAD_BALANCER_NOT_IMPLEMENTED)) {
      throw new UnsupportedOperationException(
          "LoadBalancer.ensureLoadBalancer: create or update the cloud's load balancer");
    }
    String name = LoadBalancer.defaultName(service);
    known.add(name);
    String prefix = config.pool().substring(0, config.pool().lastIndexOf('.') + 1);
    LoadBalancerStatus status =
        broken.contains(Breakage.NEW_ADDRESS_EVERY_ENSURE) || !balancers.containsKey(name)
            ? new LoadBalancerStatus(
                List.of(
                    broken.contains(Breakage.INGRESS_NOT_AN_IP)
                        ? new LoadBalancerStatus.Ingress("lb-" + name, "", "")
                        : LoadBalancerStatus.Ingress.ofIp(prefix + nextAddress.getAndIncrement())))
            : balancers.get(name);
    balancers.put(name, status);
    backends.put(name, names(nodes));
    return status;
  }

  @Override
  public void updateLoadBalancer(String clusterName, Service service, List<Node> nodes)
      throws CloudException {
    call();
    setBackends(service, nodes);
  }

  private void setBackends(Service service, List<Node> nodes) throws CloudException {
    String name = LoadBalancer.defaultName(service);
    if (!balancers.containsKey(name)) {
      throw new CloudException("reference: no load balancer " + name);
    }
    if (!broken.contains(Breakage.UPDATE_IGNORES_NODES)) {
      backends.put(name, names(nodes));
    }
  }

  @Override
  public int maxNodesPerCall() {
    return NODES_PER_CALL;
  }

  @Override
  public BulkAnswers<Boolean> instancesExist(Collection<Node> nodes) throws CloudException {
    Map<String, Boolean> inventory = list(nodes);
    List<Node> answered = answered(nodes);
    if (broken.contains(Breakage.BULK_EXISTS_FROM_ONE_PAGE)) {
      Set<String> page = new TreeSet<>();
      answered.stream().limit(2).forEach(node -> page.add(instanceName(node)));
      inventory.keySet().retainAll(page);
    }
    return BulkAnswers.oneByOne(answered, InstancesV2::nodeName, node -> exists(node, inventory));
  }

  @Override
  public BulkAnswers<Boolean> instancesShutdown(Collection<Node> nodes) throws CloudException {
    Map<String, Boolean> inventory = list(nodes);
    if (broken.contains(Breakage.BULK_SHUTDOWN_NOT_LISTED)) {
      inventory.replaceAll((name, state) -> true);
    }
    return BulkAnswers.oneByOne(
        answered(nodes), InstancesV2::nodeName, node -> shutdown(node, inventory));
  }

  @Override
  public BulkAnswers<Optional<InstanceMetadata>> instancesMetadata(Collection<Node> nodes)
      throws CloudException {
    Map<String, Boolean> inventory = list(nodes);
    return BulkAnswers.oneByOne(
        answered(nodes),
        InstancesV2::nodeName,
        node ->
            metadata(node, inventory)
                .map(
                    m ->
                        broken.contains(Breakage.BULK_METADATA_WITHOUT_ADDRESSES)
                            ? new InstanceMetadata(
                                m.providerId(),
                                m.instanceType(),
                                List.of(),
                                m.zone(),
                                m.region(),
                                m.additionalLabels())
                            : m));
  }

  /** One list call for the nodes: the instances, as one request sees them. */
  private Map<String, Boolean> list(Collection<Node> nodes) throws CloudException {
    int takes =
        broken.contains(Breakage.BULK_REFUSES_FULL_CALL) ? NODES_PER_CALL - 1 : NODES_PER_CALL;
    if (nodes.size() > takes) {
      throw new CloudException(
          "reference: at most %d instances a call, got %d".formatted(takes, nodes.size()));
    }
    try {
      call();
    } catch (CloudException e) {
      if (broken.contains(Breakage.BULK_ERROR_MEANS_GONE)) {
        return new HashMap<>();
      }
      throw e;
    }
    return new HashMap<>(running);
  }

  /** The items a bulk call answers: all of them, or the first only (a page of one). */
  private <T> List<T> answered(Collection<T> items) {
    List<T> all = List.copyOf(items);
    return broken.contains(Breakage.BULK_ANSWERS_PARTIALLY) && !all.isEmpty()
        ? all.subList(0, 1)
        : all;
  }

  @Override
  public int maxServicesPerCall() {
    return SERVICES_PER_CALL;
  }

  @Override
  public BulkAnswers<Boolean> updateLoadBalancers(
      String clusterName, Collection<Service> services, List<Node> nodes) throws CloudException {
    if (services.size() > SERVICES_PER_CALL) {
      throw new CloudException(
          "reference: at most %d load balancers a call, got %d"
              .formatted(SERVICES_PER_CALL, services.size()));
    }
    call();
    List<Service> answered = answered(services);
    Service first = answered.getFirst();
    return BulkAnswers.oneByOne(
        answered,
        LoadBalancer::serviceKey,
        service -> {
          if (service == first || !broken.contains(Breakage.BULK_UPDATE_FIRST_SERVICE_ONLY)) {
            setBackends(service, nodes);
          }
          return true;
        });
  }

  @Override
  public void ensureLoadBalancerDeleted(String clusterName, Service service) throws CloudException {
    call();
    if (broken.contains(Breakage.LOAD_BALANCER_DELETE_NOT_IMPLEMENTED)) {
      throw new UnsupportedOperationException(
          "LoadBalancer.ensureLoadBalancerDeleted: delete the cloud's load balancer");
    }
    String name = LoadBalancer.defaultName(service);
    known.add(name);
    if (balancers.remove(name) == null && broken.contains(Breakage.DELETE_OF_MISSING_FAILS)) {
      throw new CloudException("reference: no load balancer " + name);
    }
    backends.remove(name);
  }

  @Override
  public String fingerprint() {
    if (broken.contains(Breakage.UNSTABLE_FINGERPRINT)) {
      return "reference/instance=" + instance;
    }
    return broken.contains(Breakage.FINGERPRINT_IGNORES_CONFIG)
        ? ""
        : "reference/pool=" + config.pool();
  }

  Optional<Set<String>> backends(Service service) {
    return Optional.ofNullable(backends.get(LoadBalancer.defaultName(service)));
  }

  private static Set<String> names(List<Node> nodes) {
    Set<String> names = new TreeSet<>();
    nodes.forEach(n -> names.add(n.getMetadata().getName()));
    return names;
  }

  @Override
  public List<Route> listRoutes(String clusterName) throws CloudException {
    call();
    if (broken.contains(Breakage.ROUTES_NOT_LISTED)) {
      return List.of();
    }
    return new TreeMap<>(routeTable)
        .entrySet().stream()
            .filter(
                route ->
                    broken.contains(Breakage.ROUTES_OF_EVERY_CLUSTER_LISTED)
                        || clusterName.equals(routeClusters.get(route.getKey())))
            .map(Map.Entry::getValue)
            .toList();
  }

  @Override
  public void createRoute(String clusterName, String nameHint, Route route) throws CloudException {
    call();
    String name = clusterName + "-" + nameHint;
    routeClusters.put(name, clusterName);
    routeTable.put(
        name,
        new Route(
            name,
            route.targetNode(),
            route.enableNodeAddresses(),
            route.targetNodeAddresses(),
            route.destinationCidr(),
            false));
  }

  @Override
  public void deleteRoute(String clusterName, Route route) throws CloudException {
    call();
    if (!broken.contains(Breakage.ROUTE_NOT_DELETED)) {
      routeTable.remove(route.name());
    }
  }

  @Override
  public Zone zoneByProviderId(String providerId) throws CloudException {
    call();
    return PLACEMENT;
  }

  @Override
  public Zone zoneByNodeName(String nodeName) throws CloudException {
    call();
    return new Zone(broken.contains(Breakage.ZONES_DISAGREE) ? "z2" : "z1", "r1");
  }

  @Override
  public void close() {
    if (broken.contains(Breakage.CLOSE_HANGS)) {
      try {
        closeMayReturn.await(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** A node id no other check uses. */
  static String freshName(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
