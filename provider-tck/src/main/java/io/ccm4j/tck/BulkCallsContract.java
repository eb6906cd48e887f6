package io.ccm4j.tck;

import static io.ccm4j.tck.Contract.BULK_CALL_ANSWERED;
import static io.ccm4j.tck.Contract.BULK_ERROR_NEVER_GONE;
import static io.ccm4j.tck.Contract.BULK_EXISTS_AS_PER_NODE;
import static io.ccm4j.tck.Contract.BULK_METADATA_AS_PER_NODE;
import static io.ccm4j.tck.Contract.BULK_SHUTDOWN_AS_PER_NODE;
import static io.ccm4j.tck.Contract.BULK_UPDATE_AS_PER_SERVICE;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstanceMetadata;
import io.ccm4j.cloudprovider.InstanceNotFoundException;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The bulk calls ({@code InstancesV2.instancesExist/instancesShutdown/instancesMetadata}, {@code
 * LoadBalancer.updateLoadBalancers}): each answers like the per-node (per-Service) method. They run
 * whether or not the provider overrides them: ccm4j's controllers call them in every case, in calls
 * of {@code maxNodesPerCall()} nodes, so an override with a size of 1 is checked node by node and
 * the SPI's defaults pass by construction.
 */
public interface BulkCallsContract extends FacetContract {

  /** The most nodes the answered check asks in one call. */
  int FULL_CALL_NODES = 5;

  /** The most Services the bulk update check asks in one call. */
  int FULL_CALL_SERVICES = 3;

  @Test
  @Holds(BULK_EXISTS_AS_PER_NODE)
  default void l5_l6_bulkExistsAnswersAsPerNode() throws Exception {
    InstancesV2 instances = session().instances();
    Map<Node, String> nodes = nodesInEveryState();
    BulkAsker.Outcome<Boolean> bulk = askBulk(instances, nodes, instances::instancesExist);
    for (Map.Entry<Node, String> node : nodes.entrySet()) {
      Optional<Boolean> value = bulk.value(InstancesV2.nodeName(node.getKey()));
      if (value.isEmpty()) {
        continue; // an error or left out: allowed
      }
      PerNode<Boolean> single = PerNode.ask(() -> instances.instanceExists(node.getKey()));
      BULK_EXISTS_AS_PER_NODE.require(
          single.value().map(value.get()::equals).orElse(value.get()),
          "instancesExist answered %s for the %s %s; instanceExists %s"
              .formatted(value.get(), node.getValue(), describe(node.getKey()), single));
    }
  }

  @Test
  @Holds(BULK_SHUTDOWN_AS_PER_NODE)
  default void l7_bulkShutdownAnswersAsPerNode() throws Exception {
    InstancesV2 instances = session().instances();
    Map<Node, String> nodes = nodesInEveryState();
    BulkAsker.Outcome<Boolean> bulk = askBulk(instances, nodes, instances::instancesShutdown);
    for (Map.Entry<Node, String> node : nodes.entrySet()) {
      Optional<Boolean> value = bulk.value(InstancesV2.nodeName(node.getKey()));
      if (value.isEmpty()) {
        continue;
      }
      PerNode<Boolean> single = PerNode.ask(() -> instances.instanceShutdown(node.getKey()));
      BULK_SHUTDOWN_AS_PER_NODE.require(
          single.value().map(value.get()::equals).orElse(true),
          "instancesShutdown answered %s for the %s %s; instanceShutdown %s"
              .formatted(value.get(), node.getValue(), describe(node.getKey()), single));
    }
  }

  @Test
  @Holds(BULK_METADATA_AS_PER_NODE)
  default void n6_bulkMetadataAnswersAsPerNode() throws Exception {
    InstancesV2 instances = session().instances();
    Map<Node, String> nodes = nodesInEveryState();
    BulkAsker.Outcome<Optional<InstanceMetadata>> bulk =
        askBulk(instances, nodes, instances::instancesMetadata);
    for (Map.Entry<Node, String> node : nodes.entrySet()) {
      String name = InstancesV2.nodeName(node.getKey());
      PerNode<Optional<InstanceMetadata>> single =
          PerNode.ask(() -> instances.instanceMetadata(node.getKey()));
      String seen = "the %s %s".formatted(node.getValue(), describe(node.getKey()));
      Optional<Optional<InstanceMetadata>> value = bulk.value(name);
      if (value.isPresent()) {
        BULK_METADATA_AS_PER_NODE.require(
            single
                .value()
                .map(value.get()::equals)
                .orElse(single.notFound() ? value.get().isEmpty() : true),
            "instancesMetadata answered %s for %s; instanceMetadata %s"
                .formatted(value.get(), seen, single));
      } else if (bulk.failures().get(name) instanceof InstanceNotFoundException e) {
        BULK_METADATA_AS_PER_NODE.require(
            single.value().isEmpty(),
            "instancesMetadata failed %s with InstanceNotFoundException (%s); instanceMetadata %s"
                .formatted(seen, e.getMessage(), single));
      }
    }
  }

  @Test
  @Holds(BULK_ERROR_NEVER_GONE)
  default void l5_aBulkCallWithAFailingApiIsNeverGone() throws Exception {
    CloudProvider cloud = session().provider();
    Map<Node, String> nodes = runningNodes(2);
    CloudProvider failing =
        session()
            .initialised(
                session().hook("failingCloud", () -> session().harness().failingCloud(cloud)));
    bulkNeverGone(failing, nodes, "failing");
  }

  @Test
  @Holds(BULK_ERROR_NEVER_GONE)
  default void l5_aBulkCallWithAThrottledApiIsNeverGone() throws Exception {
    CloudProvider cloud = session().provider();
    Map<Node, String> nodes = runningNodes(2);
    CloudProvider throttled =
        session()
            .initialised(
                session().hook("throttledCloud", () -> session().harness().throttledCloud(cloud)));
    bulkNeverGone(throttled, nodes, "throttled");
  }

  @Test
  @Holds(BULK_CALL_ANSWERED)
  default void aFullBulkCallIsAnswered() throws Exception {
    InstancesV2 instances = session().instances();
    int max = instances.maxNodesPerCall();
    BULK_CALL_ANSWERED.require(max >= 1, "maxNodesPerCall() is " + max);
    Map<Node, String> nodes = runningNodes(Math.min(max, FULL_CALL_NODES));
    answered(
        instances, nodes, "instancesExist", askBulk(instances, nodes, instances::instancesExist));
    answered(
        instances,
        nodes,
        "instancesShutdown",
        askBulk(instances, nodes, instances::instancesShutdown));
    answered(
        instances,
        nodes,
        "instancesMetadata",
        askBulk(instances, nodes, instances::instancesMetadata));
  }

  @Test
  @Holds(BULK_UPDATE_AS_PER_SERVICE)
  default void s15_aBulkUpdateEqualsUpdatesOneByOne() throws Exception {
    CloudProvider cloud = session().provider();
    LoadBalancer balancer = session().loadBalancer();
    String cluster = session().harness().clusterName();
    int max = balancer.maxServicesPerCall();
    BULK_UPDATE_AS_PER_SERVICE.require(max >= 1, "maxServicesPerCall() is " + max);
    Node a = session().backendNode(0);
    Node b = session().backendNode(1);
    Node c = session().backendNode(2);
    Service single = session().harness().loadBalancerService(cloud);
    List<Service> services = new ArrayList<>();
    for (int i = 0; i < Math.min(max, FULL_CALL_SERVICES); i++) {
      services.add(session().harness().loadBalancerService(cloud));
    }
    List<Service> made = new ArrayList<>(List.of(single));
    ContractSession.thenCleanUp(
        () -> {
          session().ensure(cloud, balancer, single, List.of(a, b));
          session().hook("backendNodes", () -> session().harness().backendNodes(cloud, single));
          for (Service service : services) {
            made.add(service);
            session().ensure(cloud, balancer, service, List.of(a, b));
          }
          balancer.updateLoadBalancer(cluster, single, List.of(b, c));
          Set<String> wanted = session().harness().backendNodes(cloud, single).orElseThrow();
          BulkAsker.Outcome<Boolean> bulk =
              BulkAsker.ask(
                  services,
                  LoadBalancer::serviceKey,
                  max,
                  BulkAsker.ROUNDS,
                  Boolean::booleanValue,
                  batch -> balancer.updateLoadBalancers(cluster, batch, List.of(b, c)));
          for (Service service : services) {
            String key = LoadBalancer.serviceKey(service);
            CloudException failure = bulk.failures().get(key);
            BULK_UPDATE_AS_PER_SERVICE.require(
                failure == null,
                "updateLoadBalancers left Service %s not updated after %d calls of at most %d: %s"
                    .formatted(key, BulkAsker.ROUNDS, max, failure));
            Set<String> now =
                new TreeSet<>(session().harness().backendNodes(cloud, service).orElse(Set.of()));
            BULK_UPDATE_AS_PER_SERVICE.require(
                now.equals(wanted),
                "after updateLoadBalancers with nodes %s the load balancer of Service %s forwards to"
                        .formatted(names(b, c), key)
                    + " %s; updateLoadBalancer of one Service gives %s".formatted(now, wanted));
          }
        },
        () -> {
          for (Service service : made) {
            balancer.ensureLoadBalancerDeleted(cluster, service);
          }
        });
  }

  private void bulkNeverGone(CloudProvider cloud, Map<Node, String> nodes, String api)
      throws Exception {
    InstancesV2 instances = ContractSession.facet(cloud.instancesV2(), "InstancesV2");
    List<Node> asked = List.copyOf(nodes.keySet());
    int max = instances.maxNodesPerCall();
    BulkAsker.Outcome<Boolean> exists =
        BulkAsker.ask(asked, InstancesV2::nodeName, max, 1, instances::instancesExist);
    for (Map.Entry<String, Boolean> answer : exists.values().entrySet()) {
      BULK_ERROR_NEVER_GONE.require(
          answer.getValue(),
          "instancesExist answered false for node %s with the %s API"
              .formatted(answer.getKey(), api));
    }
    BulkAsker.Outcome<Optional<InstanceMetadata>> metadata =
        BulkAsker.ask(asked, InstancesV2::nodeName, max, 1, instances::instancesMetadata);
    for (Map.Entry<String, CloudException> failure : metadata.failures().entrySet()) {
      BULK_ERROR_NEVER_GONE.require(
          !(failure.getValue() instanceof InstanceNotFoundException),
          "instancesMetadata failed node %s with InstanceNotFoundException with the %s API: %s"
              .formatted(failure.getKey(), api, failure.getValue().getMessage()));
    }
  }

  private static void answered(
      InstancesV2 instances, Map<Node, String> nodes, String method, BulkAsker.Outcome<?> bulk) {
    for (Node node : nodes.keySet()) {
      CloudException failure = bulk.failures().get(InstancesV2.nodeName(node));
      BULK_CALL_ANSWERED.require(
          failure == null,
          "%s left the running %s unanswered after %d calls of at most %d nodes: %s"
              .formatted(
                  method, describe(node), BulkAsker.ROUNDS, instances.maxNodesPerCall(), failure));
    }
  }

  private <T> BulkAsker.Outcome<T> askBulk(
      InstancesV2 instances, Map<Node, String> nodes, BulkAsker.Call<Node, T> call)
      throws CloudException {
    return BulkAsker.ask(
        List.copyOf(nodes.keySet()),
        InstancesV2::nodeName,
        instances.maxNodesPerCall(),
        BulkAsker.ROUNDS,
        call);
  }

  /**
   * A running node, a running one not initialised yet (no providerID), and, as far as the harness
   * can make them, a shut-down and a gone one; by the state they are in.
   */
  private Map<Node, String> nodesInEveryState() throws Exception {
    CloudProvider cloud = session().provider();
    ProviderHarness harness = session().harness();
    Map<Node, String> nodes = runningNodes(1);
    put(
        nodes,
        ContractObjects.withoutProviderId(harness.runningInstance(cloud)),
        "running, not yet initialised");
    harness.shutDownInstance(cloud).ifPresent(node -> put(nodes, node, "shut-down"));
    harness.goneInstance(cloud).ifPresent(node -> put(nodes, node, "gone"));
    return nodes;
  }

  /** {@code count} nodes of running instances, in the order the harness made them. */
  private Map<Node, String> runningNodes(int count) throws Exception {
    Map<Node, String> nodes = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      put(nodes, session().harness().runningInstance(session().provider()), "running");
    }
    return nodes;
  }

  /** A node once by name: a bulk call never carries a node twice. */
  private static void put(Map<Node, String> nodes, Node node, String state) {
    String name = InstancesV2.nodeName(node);
    if (nodes.keySet().stream().noneMatch(n -> InstancesV2.nodeName(n).equals(name))) {
      nodes.put(node, state);
    }
  }

  private static String describe(Node node) {
    String providerId = ContractObjects.providerId(node);
    return "node "
        + node.getMetadata().getName()
        + (providerId.isEmpty() ? "" : " (" + providerId + ")");
  }

  private static Set<String> names(Node... nodes) {
    Set<String> names = new TreeSet<>();
    for (Node node : nodes) {
      names.add(node.getMetadata().getName());
    }
    return names;
  }

  /** What the per-node method answers for one node: a value, or what it threw. */
  record PerNode<T>(Optional<T> value, CloudException thrown) {

    @FunctionalInterface
    interface Ask<T> {
      T ask() throws CloudException;
    }

    static <T> PerNode<T> ask(Ask<T> ask) {
      try {
        return new PerNode<>(Optional.of(ask.ask()), null);
      } catch (CloudException e) {
        return new PerNode<>(Optional.empty(), e);
      }
    }

    boolean notFound() {
      return thrown instanceof InstanceNotFoundException;
    }

    @Override
    public String toString() {
      return value.map(v -> "answers " + v).orElseGet(() -> "throws " + thrown);
    }
  }
}
