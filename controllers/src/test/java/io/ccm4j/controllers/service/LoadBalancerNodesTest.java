package io.ccm4j.controllers.service;

import static io.ccm4j.controllers.service.ServiceFixtures.node;
import static io.ccm4j.controllers.service.ServiceFixtures.withLabel;
import static io.ccm4j.controllers.service.ServiceFixtures.withTaint;
import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** S16 node predicates, S7 node-update filter and S15 nodesSufficientlyEqual. */
class LoadBalancerNodesTest {

  private static final String EXCLUDE = WellKnownLabels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS;

  @ParameterizedTest(name = "ParseBool(\"{0}\") = {1}")
  @CsvSource(
      value = {
        "1,true", "t,true", "T,true", "TRUE,true", "true,true", "True,true",
        "0,false", "f,false", "F,false", "FALSE,false", "false,false", "False,false",
        "garbage,", "'',", "yes,", "tRUE,", " true,", "2,"
      },
      ignoreLeadingAndTrailingWhitespace = false)
  void parseBoolFollowsGo(String value, Boolean expected) {
    assertThat(LoadBalancerNodes.parseBool(value)).isEqualTo(Optional.ofNullable(expected));
  }

  static Stream<Arguments> stableNodeSet() {
    return Stream.of(
        Arguments.of("plain node", node("n").build(), true),
        Arguments.of("exclusion label true", withLabel("n", EXCLUDE, "true"), false),
        Arguments.of("exclusion label 1", withLabel("n", EXCLUDE, "1"), false),
        Arguments.of("exclusion label false", withLabel("n", EXCLUDE, "false"), true),
        Arguments.of("exclusion label F", withLabel("n", EXCLUDE, "F"), true),
        Arguments.of(
            "exclusion label garbage (unparsable: excluded)",
            withLabel("n", EXCLUDE, "garbage"),
            false),
        Arguments.of(
            "exclusion label empty (unparsable: excluded)", withLabel("n", EXCLUDE, ""), false),
        Arguments.of("another label", withLabel("n", "example.com/x", "true"), true),
        Arguments.of(
            "being deleted",
            node("n")
                .editMetadata()
                .withDeletionTimestamp("2026-01-01T00:00:00Z")
                .endMetadata()
                .build(),
            false),
        Arguments.of(
            "cluster-autoscaler taint",
            withTaint("n", WellKnownTaints.TO_BE_DELETED_BY_CLUSTER_AUTOSCALER),
            false),
        Arguments.of(
            "not-ready taint (readiness is not a predicate)",
            withTaint("n", WellKnownTaints.NODE_NOT_READY),
            true),
        Arguments.of(
            "cordoned", node("n").editSpec().withUnschedulable(true).endSpec().build(), true),
        Arguments.of(
            "control-plane node", withLabel("n", WellKnownLabels.ROLE_CONTROL_PLANE, ""), true),
        Arguments.of(
            "no provider ID", node("n").editSpec().withProviderID(null).endSpec().build(), true));
  }

  @ParameterizedTest(name = "S16 {0}")
  @MethodSource
  void stableNodeSet(String name, Node node, boolean included) {
    assertThat(LoadBalancerNodes.inStableNodeSet(node)).isEqualTo(included);
    assertThat(LoadBalancerNodes.stableNodeSet(List.of(node))).hasSize(included ? 1 : 0);
  }

  static Stream<Arguments> updateMatters() {
    Node plain = node("n").build();
    return Stream.of(
        Arguments.of("nothing", plain, plain, false),
        Arguments.of("exclusion label added", plain, withLabel("n", EXCLUDE, "true"), true),
        Arguments.of("exclusion label false added", plain, withLabel("n", EXCLUDE, "false"), false),
        Arguments.of(
            "exclusion label false → garbage",
            withLabel("n", EXCLUDE, "false"),
            withLabel("n", EXCLUDE, "garbage"),
            true),
        Arguments.of(
            "provider ID set",
            node("n").editSpec().withProviderID(null).endSpec().build(),
            plain,
            true),
        Arguments.of(
            "cluster-autoscaler taint (applied at the next sync only)",
            plain,
            withTaint("n", WellKnownTaints.TO_BE_DELETED_BY_CLUSTER_AUTOSCALER),
            false),
        Arguments.of(
            "deletion timestamp",
            plain,
            node("n")
                .editMetadata()
                .withDeletionTimestamp("2026-01-01T00:00:00Z")
                .endMetadata()
                .build(),
            false));
  }

  @ParameterizedTest(name = "S7 {0}")
  @MethodSource
  void updateMatters(String name, Node old, Node current, boolean matters) {
    assertThat(LoadBalancerNodes.updateMatters(old, current)).isEqualTo(matters);
  }

  static Stream<Arguments> sufficientlyEqual() {
    Node a = node("a").build();
    Node b = node("b").build();
    return Stream.of(
        Arguments.of("both empty", List.of(), List.of(), true),
        Arguments.of("same nodes", List.of(a, b), List.of(a, b), true),
        Arguments.of("same nodes, other order", List.of(a, b), List.of(b, a), true),
        Arguments.of(
            "same names and provider IDs, other labels and readiness",
            List.of(a),
            List.of(withTaint("a", WellKnownTaints.NODE_NOT_READY)),
            true),
        Arguments.of("a node more", List.of(a), List.of(a, b), false),
        Arguments.of("a node less", List.of(a, b), List.of(b), false),
        Arguments.of("another node, same count", List.of(a), List.of(b), false),
        Arguments.of(
            "provider ID changed",
            List.of(a),
            List.of(node("a").editSpec().withProviderID("sim://other").endSpec().build()),
            false),
        Arguments.of(
            "provider ID set",
            List.of(node("a").editSpec().withProviderID(null).endSpec().build()),
            List.of(a),
            false));
  }

  @ParameterizedTest(name = "S15 nodesSufficientlyEqual: {0}")
  @MethodSource
  void sufficientlyEqual(String name, List<Node> a, List<Node> b, boolean equal) {
    assertThat(LoadBalancerNodes.sufficientlyEqual(a, b)).isEqualTo(equal);
  }

  @Test
  void eventNamesAreLimitedToTwentyThenACount() {
    List<Node> nodes = IntStream.range(0, 23).mapToObj(i -> node("n" + i).build()).toList();
    List<String> names = LoadBalancerNodes.namesForEvent(nodes);
    assertThat(names).hasSize(21).startsWith("n0", "n1").endsWith("n19", "<3 more>");
    assertThat(LoadBalancerNodes.namesForEvent(nodes.subList(0, 2))).containsExactly("n0", "n1");
  }

  /**
   * Upstream's event lists the first 20 nodes in its lister's order (Go map order, so any 20) and
   * sorts them; ccm4j's backend set is sorted by name, so its event lists the 20 first names: one
   * of upstream's possible lists, and the same one for the same nodes whatever the cache's order.
   */
  @Test
  void eventNamesAreTheFirstTwentyByNameWhateverTheCachesOrder() {
    List<Node> cached =
        Stream.of(
                "w", "c", "v", "a", "u", "b", "t", "d", "s", "e", "r", "f", "q", "g", "p", "h", "o",
                "i", "n", "j", "m", "k", "l")
            .map(name -> node(name).build())
            .toList();

    assertThat(LoadBalancerNodes.namesForEvent(LoadBalancerNodes.stableNodeSet(cached)))
        .containsExactly(
            "a",
            "b",
            "c",
            "d",
            "e",
            "f",
            "g",
            "h",
            "i",
            "j",
            "k",
            "l",
            "m",
            "n",
            "o",
            "p",
            "q",
            "r",
            "s",
            "t",
            "<3 more>");
  }
}
