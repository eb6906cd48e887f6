package io.ccm4j.controllers.route;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.net.Cidr;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.route.RoutePlanner.Action;
import io.ccm4j.controllers.route.RoutePlanner.NodeView;
import io.ccm4j.controllers.route.RoutePlanner.Plan;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class RoutePlannerTest {

  private static final List<Cidr> CLUSTER =
      NetworkSettings.parseDualStack("10.244.0.0/16,fd00::/48");
  private static final List<NodeAddress> ADDRS = List.of(NodeAddress.internalIp("192.168.0.1"));
  private static final List<NodeAddress> OTHER_ADDRS =
      List.of(NodeAddress.internalIp("192.168.0.9"));

  private static Route route(String name, String node, String cidr) {
    return new Route(name, node, false, List.of(), cidr, false);
  }

  private static Route addressRoute(String name, String node, String cidr, List<NodeAddress> a) {
    return new Route(name, node, true, a, cidr, false);
  }

  private static NodeView node(String name, String... cidrs) {
    return new NodeView(name, "uid-" + name, List.of(cidrs), ADDRS);
  }

  static Stream<Arguments> actions() {
    return Stream.of(
        Arguments.of("no route", List.of(), Action.ADD),
        Arguments.of(
            "route for another CIDR", List.of(route("r", "n", "10.244.2.0/24")), Action.ADD),
        Arguments.of("route for the CIDR", List.of(route("r", "n", "10.244.1.0/24")), Action.KEEP),
        Arguments.of(
            "address route, same addresses",
            List.of(addressRoute("r", "n", "10.244.1.0/24", ADDRS)),
            Action.KEEP),
        Arguments.of(
            "address route, addresses changed",
            List.of(addressRoute("r", "n", "10.244.1.0/24", OTHER_ADDRS)),
            Action.UPDATE),
        Arguments.of(
            "address route, one address more",
            List.of(
                addressRoute(
                    "r",
                    "n",
                    "10.244.1.0/24",
                    List.of(NodeAddress.internalIp("192.168.0.1"), NodeAddress.hostname("n")))),
            Action.UPDATE));
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("actions")
  void R5_actionPerPodCidr(String description, List<Route> nodeRoutes, Action expected) {
    assertThat(RoutePlanner.action(nodeRoutes, "10.244.1.0/24", ADDRS)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource({
    "10.244.1.0/24, true",
    "10.244.0.0/16, true",
    "10.0.0.0/8, false", // neither end inside: wider than the cluster CIDR
    "10.244.255.0/24, true",
    "10.244.0.0/15, true", // wider, but its first address is inside
    "10.245.0.0/24, false",
    "192.168.0.0/24, false",
    "fd00:0:0:5::/64, true",
    "fd01::/64, false",
    "::a00:0/120, false", // 10.0.0.0 as a number, but IPv6
    "::ffff:10.244.1.0/120, true", // IPv4-mapped: Go's Contains reads the ends as IPv4 addresses
    "::ffff:10.245.1.0/120, false",
    "::ffff:0:0/96, false", // all of IPv4: neither end inside
    "not-a-cidr, false",
    "'', false",
  })
  void R6_responsibleOnlyForRoutesInTheClusterCidr(String destination, boolean responsible) {
    assertThat(RoutePlanner.isResponsible(route("r", "n", destination), CLUSTER))
        .isEqualTo(responsible);
  }

  @Test
  void R5_R7_missingRoutesAreCreatedWithTheNodeUidAsNameHint() {
    Plan plan =
        RoutePlanner.plan(
            List.of(node("a", "10.244.0.0/24", "fd00::/64"), node("b", "10.244.1.0/24"), node("c")),
            List.of(route("ra", "a", "10.244.0.0/24")),
            CLUSTER);

    assertThat(plan.deletions()).isEmpty();
    assertThat(plan.creations())
        .extracting(c -> c.node() + " " + c.nameHint() + " " + c.route().destinationCidr())
        .containsExactly("a uid-a fd00::/64", "b uid-b 10.244.1.0/24");
    assertThat(plan.creations().get(0).route().targetNodeAddresses()).isEqualTo(ADDRS);
    assertThat(plan.actions())
        .containsOnlyKeys("a", "b")
        .containsEntry("a", Map.of("10.244.0.0/24", Action.KEEP, "fd00::/64", Action.ADD));
  }

  @Test
  void R6_routesNoNodeNeedsAreDeletedButOnlyInTheClusterCidr() {
    Route gone = route("gone", "deleted-node", "10.244.9.0/24");
    Route stale = route("stale", "a", "10.244.7.0/24");
    Route foreign = route("vpn", "deleted-node", "192.168.100.0/24");
    Route noTarget = route("orphan", "", "10.244.8.0/24");
    Route noTargetOutside = route("gateway", "", "0.0.0.0/0");
    Route garbage = route("weird", "a", "not-a-cidr");

    Plan plan =
        RoutePlanner.plan(
            List.of(node("a", "10.244.0.0/24")),
            List.of(gone, stale, foreign, noTarget, noTargetOutside, garbage),
            CLUSTER);

    assertThat(plan.deletions()).containsExactly(gone, stale, noTarget);
  }

  /**
   * A route table may hold destinations spelled IPv4-mapped (a pod CIDR from before the API
   * server's strict CIDR validation): kept while its node needs it, deleted once no node does, as
   * upstream's.
   */
  @Test
  void R5_R6_routesToIpv4MappedDestinationsAreKeptAndDeletedAsOthers() {
    Route kept = route("kept", "a", "::ffff:10.244.0.0/120");
    Route gone = route("gone", "deleted-node", "::ffff:10.244.9.0/120");
    Route foreign = route("vpn", "deleted-node", "::ffff:192.168.100.0/120");

    Plan plan =
        RoutePlanner.plan(
            List.of(node("a", "::ffff:10.244.0.0/120")), List.of(kept, gone, foreign), CLUSTER);

    assertThat(plan.deletions()).containsExactly(gone);
    assertThat(plan.creations()).isEmpty();
    assertThat(plan.actions()).containsEntry("a", Map.of("::ffff:10.244.0.0/120", Action.KEEP));
  }

  @Test
  void R6_blackholesAreDeletedEvenWhenCurrent() {
    Route blackhole = new Route("r", "a", false, List.of(), "10.244.0.0/24", true);

    Plan plan = RoutePlanner.plan(List.of(node("a", "10.244.0.0/24")), List.of(blackhole), CLUSTER);

    assertThat(plan.deletions()).containsExactly(blackhole);
    assertThat(plan.creations()).as("kept this pass, re-created on the next").isEmpty();
  }

  @Test
  void R5_R6_R7_anAddressChangeReplacesTheRoute() {
    Route old = addressRoute("r", "a", "10.244.0.0/24", OTHER_ADDRS);

    Plan plan = RoutePlanner.plan(List.of(node("a", "10.244.0.0/24")), List.of(old), CLUSTER);

    assertThat(plan.deletions()).containsExactly(old);
    assertThat(plan.creations())
        .singleElement()
        .extracting(c -> c.route().targetNodeAddresses())
        .isEqualTo(ADDRS);
  }

  @Test
  void R5_aNodeWithRoutesButNoPodCidrsHasAnEmptyEntry() {
    Plan plan =
        RoutePlanner.plan(List.of(node("a")), List.of(route("r", "a", "10.244.0.0/24")), CLUSTER);

    assertThat(plan.actions()).containsEntry("a", Map.of());
    assertThat(plan.deletions()).hasSize(1);
  }

  static Stream<Arguments> conditions() {
    return Stream.of(
        Arguments.of(Map.of(), RoutePlanner.NO_ROUTE_CREATED),
        Arguments.of(Map.of("c1", Action.KEEP), RoutePlanner.ROUTE_CREATED),
        Arguments.of(ordered("c1", Action.KEEP, "c2", Action.KEEP), RoutePlanner.ROUTE_CREATED),
        Arguments.of(ordered("c1", Action.KEEP, "c2", Action.ADD), RoutePlanner.NO_ROUTE_CREATED),
        Arguments.of(Map.of("c1", Action.UPDATE), RoutePlanner.NO_ROUTE_CREATED));
  }

  private static Map<String, Action> ordered(String k1, Action a1, String k2, Action a2) {
    Map<String, Action> map = new LinkedHashMap<>();
    map.put(k1, a1);
    map.put(k2, a2);
    return map;
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("conditions")
  void R8_networkUnavailableFromTheOutcome(
      Map<String, Action> outcome, RoutePlanner.NetworkCondition expected) {
    assertThat(RoutePlanner.condition(outcome)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "current {0}/{1} -> write: {2}")
  @CsvSource({
    "False, RouteCreated, false",
    "True, RouteCreated, true",
    "False, CalicoIsUp, true", // a CNI's condition is overwritten (R8)
    "True, NoRouteCreated, true",
  })
  void R8_writtenOnlyWhenStatusOrReasonDiffer(String status, String reason, boolean write) {
    NodeCondition current =
        new NodeConditionBuilder()
            .withType("NetworkUnavailable")
            .withStatus(status)
            .withReason(reason)
            .build();

    assertThat(RoutePlanner.needsWrite(Optional.of(current), RoutePlanner.ROUTE_CREATED))
        .isEqualTo(write);
    assertThat(RoutePlanner.needsWrite(Optional.empty(), RoutePlanner.ROUTE_CREATED)).isTrue();
  }
}
