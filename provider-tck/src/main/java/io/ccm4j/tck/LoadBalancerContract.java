package io.ccm4j.tck;

import static io.ccm4j.tck.Contract.DELETE_MISSING_IS_FINE;
import static io.ccm4j.tck.Contract.ENSURE_IDEMPOTENT;
import static io.ccm4j.tck.Contract.FINGERPRINT_FOLLOWS_CONFIG;
import static io.ccm4j.tck.Contract.FINGERPRINT_STABLE;
import static io.ccm4j.tck.Contract.LOAD_BALANCER_ABSENT;
import static io.ccm4j.tck.Contract.LOAD_BALANCER_ERROR_NEVER_ABSENT;
import static io.ccm4j.tck.Contract.STATUS_SHAPE;
import static io.ccm4j.tck.Contract.UPDATE_FOLLOWS_NODES;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.ImplementedElsewhereException;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.net.IpAddresses;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * LoadBalancer: ensure, update, delete, status and fingerprint as the service controller uses them.
 */
public interface LoadBalancerContract extends FacetContract {

  @Test
  @Holds(LOAD_BALANCER_ABSENT)
  default void s11_aServiceNeverEnsuredHasNoLoadBalancer() throws Exception {
    LoadBalancer balancer = session().loadBalancer();
    Service service = session().harness().loadBalancerService(session().provider());
    Optional<LoadBalancerStatus> status =
        balancer.getLoadBalancer(session().harness().clusterName(), service);
    LOAD_BALANCER_ABSENT.require(
        status.isEmpty(), "getLoadBalancer answered %s for %s".formatted(status, key(service)));
  }

  @Test
  @Holds(ENSURE_IDEMPOTENT)
  default void s14_ensuringAgainGivesTheSameLoadBalancer() throws Exception {
    CloudProvider cloud = session().provider();
    LoadBalancer balancer = session().loadBalancer();
    Service service = session().harness().loadBalancerService(cloud);
    List<Node> nodes = List.of(session().backendNode(0), session().backendNode(1));
    ContractSession.thenCleanUp(
        () -> {
          LoadBalancerStatus first = session().ensure(cloud, balancer, service, nodes);
          LoadBalancerStatus again = session().ensure(cloud, balancer, service, nodes);
          ENSURE_IDEMPOTENT.require(
              first.ingress().equals(again.ingress()),
              "the first ensure of %s gave %s, the second %s"
                  .formatted(key(service), first.ingress(), again.ingress()));
          Optional<LoadBalancerStatus> got =
              balancer.getLoadBalancer(session().harness().clusterName(), service);
          ENSURE_IDEMPOTENT.require(
              got.isPresent() && got.get().ingress().equals(first.ingress()),
              "after two ensures of %s getLoadBalancer answered %s, ensure %s"
                  .formatted(key(service), got, first.ingress()));
        },
        () -> balancer.ensureLoadBalancerDeleted(session().harness().clusterName(), service));
  }

  @Test
  @Holds(STATUS_SHAPE)
  default void s12_s13_theStatusHasAnIngressOfTheRightShape() throws Exception {
    CloudProvider cloud = session().provider();
    LoadBalancer balancer = session().loadBalancer();
    Service service = session().harness().loadBalancerService(cloud);
    ContractSession.thenCleanUp(
        () -> {
          LoadBalancerStatus status =
              session().ensure(cloud, balancer, service, List.of(session().backendNode(0)));
          STATUS_SHAPE.require(
              status != null, "ensureLoadBalancer returned null for " + key(service));
          STATUS_SHAPE.require(
              !status.ingress().isEmpty(),
              "ensureLoadBalancer gave no ingress for " + key(service));
          for (LoadBalancerStatus.Ingress ingress : status.ingress()) {
            STATUS_SHAPE.require(
                ingress.ip().isEmpty() || IpAddresses.isIp(ingress.ip()),
                "ingress ip \"%s\" is not an IP address".formatted(ingress.ip()));
            STATUS_SHAPE.require(
                ingress.ipMode().isEmpty()
                    || (!ingress.ip().isEmpty()
                        && Set.of("VIP", "Proxy").contains(ingress.ipMode())),
                "ingress %s has ipMode \"%s\"".formatted(ingress, ingress.ipMode()));
            for (LoadBalancerStatus.PortStatus port : ingress.ports()) {
              STATUS_SHAPE.require(
                  Set.of("TCP", "UDP", "SCTP").contains(port.protocol()),
                  "ingress port %s has protocol \"%s\"".formatted(port, port.protocol()));
            }
          }
          Optional<LoadBalancerStatus> got =
              balancer.getLoadBalancer(session().harness().clusterName(), service);
          STATUS_SHAPE.require(
              got.isPresent() && got.get().ingress().equals(status.ingress()),
              "ensure gave %s, getLoadBalancer %s".formatted(status.ingress(), got));
        },
        () -> balancer.ensureLoadBalancerDeleted(session().harness().clusterName(), service));
  }

  @Test
  @Holds(UPDATE_FOLLOWS_NODES)
  default void s15_updateFollowsTheNodes() throws Exception {
    CloudProvider cloud = session().provider();
    LoadBalancer balancer = session().loadBalancer();
    Service service = session().harness().loadBalancerService(cloud);
    String cluster = session().harness().clusterName();
    Node a = session().backendNode(0);
    Node b = session().backendNode(1);
    Node c = session().backendNode(2);
    ContractSession.thenCleanUp(
        () -> {
          session().ensure(cloud, balancer, service, List.of(a, b));
          Set<String> backends =
              session()
                  .hook("backendNodes", () -> session().harness().backendNodes(cloud, service));
          UPDATE_FOLLOWS_NODES.require(
              backends.equals(names(a, b)),
              "after ensure with %s the load balancer forwards to %s"
                  .formatted(names(a, b), backends));
          for (List<Node> nodes :
              List.of(List.of(b, c), List.of(c), List.<Node>of(), List.of(a, c))) {
            balancer.updateLoadBalancer(cluster, service, nodes);
            Set<String> now = session().harness().backendNodes(cloud, service).orElseThrow();
            Set<String> wanted = names(nodes.toArray(Node[]::new));
            UPDATE_FOLLOWS_NODES.require(
                now.equals(wanted),
                "after updateLoadBalancer with %s the load balancer forwards to %s"
                    .formatted(wanted, now));
          }
        },
        () -> balancer.ensureLoadBalancerDeleted(cluster, service));
  }

  @Test
  @Holds(DELETE_MISSING_IS_FINE)
  default void s11_deletingAMissingLoadBalancerSucceeds() throws Exception {
    CloudProvider cloud = session().provider();
    LoadBalancer balancer = session().loadBalancer();
    Service service = session().harness().loadBalancerService(cloud);
    String cluster = session().harness().clusterName();
    delete(balancer, cluster, service, "never ensured");
    session().ensure(cloud, balancer, service, List.of(session().backendNode(0)));
    delete(balancer, cluster, service, "ensured");
    Optional<LoadBalancerStatus> after = balancer.getLoadBalancer(cluster, service);
    DELETE_MISSING_IS_FINE.require(
        after.isEmpty(), "after the delete getLoadBalancer still answered " + after);
    delete(balancer, cluster, service, "deleted already");
  }

  @Test
  @Holds(LOAD_BALANCER_ERROR_NEVER_ABSENT)
  default void s15_anApiErrorIsNeverNoLoadBalancer() throws Exception {
    CloudProvider cloud = session().provider();
    Service service = session().harness().loadBalancerService(cloud);
    CloudProvider failing =
        session()
            .initialised(
                session().hook("failingCloud", () -> session().harness().failingCloud(cloud)));
    LoadBalancer balancer = ContractSession.facet(failing.loadBalancer(), "LoadBalancer");
    Optional<LoadBalancerStatus> status;
    try {
      status = balancer.getLoadBalancer(session().harness().clusterName(), service);
    } catch (CloudException expected) {
      return;
    }
    LOAD_BALANCER_ERROR_NEVER_ABSENT.require(
        status.isPresent(),
        "getLoadBalancer answered \"no load balancer\" for %s with the failing API"
            .formatted(key(service)));
  }

  @Test
  @Holds(FINGERPRINT_STABLE)
  default void fingerprintIsTheSameForANewProviderInstance() throws Exception {
    String first = session().loadBalancer().fingerprint();
    CloudProvider restarted = session().newProvider(session().harness().cloudConfig());
    String second = ContractSession.facet(restarted.loadBalancer(), "LoadBalancer").fingerprint();
    FINGERPRINT_STABLE.require(
        first != null && first.equals(second),
        "one provider instance says \"%s\", a new one of the same config \"%s\""
            .formatted(first, second));
  }

  @Test
  @Holds(FINGERPRINT_FOLLOWS_CONFIG)
  default void fingerprintChangesWithAConfigThatChangesLoadBalancers() throws Exception {
    String first = session().loadBalancer().fingerprint();
    String changed =
        session()
            .hook(
                "cloudConfigChangingLoadBalancers",
                () -> session().harness().cloudConfigChangingLoadBalancers());
    CloudProvider other = session().newProvider(Optional.of(changed));
    String second = ContractSession.facet(other.loadBalancer(), "LoadBalancer").fingerprint();
    FINGERPRINT_FOLLOWS_CONFIG.require(
        !first.equals(second),
        "the fingerprint is \"%s\" under both configs; the changed one:%n%s"
            .formatted(first, changed));
  }

  private static void delete(LoadBalancer balancer, String cluster, Service service, String when)
      throws CloudException {
    try {
      balancer.ensureLoadBalancerDeleted(cluster, service);
    } catch (ImplementedElsewhereException e) {
      throw DELETE_MISSING_IS_FINE.broken(
          "ensureLoadBalancerDeleted (%s) threw ImplementedElsewhereException".formatted(when));
    } catch (CloudException e) {
      throw DELETE_MISSING_IS_FINE.broken(
          "ensureLoadBalancerDeleted of %s (%s) failed: %s".formatted(key(service), when, e));
    }
  }

  private static Set<String> names(Node... nodes) {
    return List.of(nodes).stream()
        .map(n -> n.getMetadata().getName())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static String key(Service service) {
    return "Service " + LoadBalancer.serviceKey(service);
  }
}
