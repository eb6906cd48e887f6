package io.ccm4j.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import io.ccm4j.tck.ReferenceCloud.Breakage;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

/**
 * The kit itself: a cloud that keeps every contract passes every check, and one broken in one way
 * fails exactly the checks of the contract it breaks, with a message naming that contract.
 */
class ProviderContractTest {

  @AfterEach
  void whole() {
    ReferenceContract.breakages = EnumSet.noneOf(Breakage.class);
  }

  @Test
  void aCloudThatKeepsEveryContractPassesEveryCheck() {
    Events checks = run(EnumSet.noneOf(Breakage.class), selectClass(ReferenceContract.class));

    assertThat(failures(checks)).isEmpty();
    assertThat(checks.skipped().count() + checks.aborted().count()).isZero();
    assertThat(checks.succeeded().count()).isEqualTo(checkCount());
  }

  @ParameterizedTest(name = "{0} fails {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "ERROR_MEANS_GONE             | ERROR_NEVER_GONE                 | l5_anApiErrorIsNeverGone",
        "THROTTLE_MEANS_GONE          | THROTTLED_NEVER_GONE             | l5_aThrottledApiIsNeverGone",
        "GONE_STILL_EXISTS            | GONE_DOES_NOT_EXIST              | l6_aGoneInstanceDoesNotExist",
        "SHUT_DOWN_MEANS_GONE         | SHUT_DOWN_EXISTS                 | l7_aShutDownInstanceExistsAndIsShutDown",
        "NO_PROVIDER_ID               | INSTANCE_METADATA                | n6_aRegisteredNodeGetsItsProviderIdFromTheMetadata",
        "CHANGED_PROVIDER_ID          | PROVIDER_ID_KEPT                 | f2_theProviderIdOfAnInitialisedNodeIsKept",
        "UNINITIALISED_MEANS_GONE     | UNINITIALISED_NODE_NOT_GONE      | n6_aRegisteredNodeIsNeverGoneWhileItsInstanceRuns",
        "NEW_ADDRESS_EVERY_ENSURE     | ENSURE_IDEMPOTENT                | s14_ensuringAgainGivesTheSameLoadBalancer",
        "INGRESS_NOT_AN_IP            | STATUS_SHAPE                     | s12_s13_theStatusHasAnIngressOfTheRightShape",
        "UPDATE_IGNORES_NODES         | UPDATE_FOLLOWS_NODES             | s15_updateFollowsTheNodes",
        "DELETE_OF_MISSING_FAILS      | DELETE_MISSING_IS_FINE           | s11_deletingAMissingLoadBalancerSucceeds",
        "GET_ANSWERS_BEFORE_ENSURE    | LOAD_BALANCER_ABSENT             | s11_aServiceNeverEnsuredHasNoLoadBalancer",
        "ERROR_MEANS_NO_LOAD_BALANCER | LOAD_BALANCER_ERROR_NEVER_ABSENT | s15_anApiErrorIsNeverNoLoadBalancer",
        "UNSTABLE_FINGERPRINT         | FINGERPRINT_STABLE               | fingerprintIsTheSameForANewProviderInstance",
        "FINGERPRINT_IGNORES_CONFIG   | FINGERPRINT_FOLLOWS_CONFIG       | fingerprintChangesWithAConfigThatChangesLoadBalancers",
        "ROUTES_NOT_LISTED            | ROUTE_LISTED_BACK                | r5_aCreatedRouteIsListedBack r6_aDeletedRouteIsNoLongerListed",
        "ROUTE_NOT_DELETED            | ROUTE_DELETED                    | r6_aDeletedRouteIsNoLongerListed",
        "ROUTES_OF_EVERY_CLUSTER_LISTED | ROUTES_OF_THE_CLUSTER_ONLY     | r6_anotherClustersRouteIsNotListed",
        "ZONES_DISAGREE               | ZONES_AGREE                      | n6_theZoneByProviderIdIsTheZoneByNodeName",
        "PUBLIC_ADDRESS_ONLY          | NODE_IP_AMONG_ADDRESSES          | n7_theProvidedNodeIpIsAmongTheAddresses",
        "ZONE_NOT_GIVEN               | ZONE_AND_REGION                  | n8_theZoneAndRegionAreWhereTheInstanceRuns",
        "ZONE_NOT_A_LABEL_VALUE       | ZONE_AND_REGION                  | n8_theZoneAndRegionAreLabelValues n8_theZoneAndRegionAreWhereTheInstanceRuns",
        "CONFIG_ERROR_WITHOUT_FIELD   | CONFIG_ERRORS_NAME_THE_FIELD     | configErrorsNameTheField",
        "BULK_ERROR_MEANS_GONE        | BULK_ERROR_NEVER_GONE            | l5_aBulkCallWithAFailingApiIsNeverGone l5_aBulkCallWithAThrottledApiIsNeverGone",
        "BULK_EXISTS_FROM_ONE_PAGE    | BULK_EXISTS_AS_PER_NODE          | l5_l6_bulkExistsAnswersAsPerNode",
        "BULK_SHUTDOWN_NOT_LISTED     | BULK_SHUTDOWN_AS_PER_NODE        | l7_bulkShutdownAnswersAsPerNode",
        "BULK_METADATA_WITHOUT_ADDRESSES | BULK_METADATA_AS_PER_NODE     | n6_bulkMetadataAnswersAsPerNode",
        "BULK_REFUSES_FULL_CALL       | BULK_CALL_ANSWERED               | aFullBulkCallIsAnswered",
        "BULK_UPDATE_FIRST_SERVICE_ONLY | BULK_UPDATE_AS_PER_SERVICE     | s15_aBulkUpdateEqualsUpdatesOneByOne",
      })
  void aCloudBrokenOneWayFailsTheChecksOfThatContract(
      Breakage breakage, Contract contract, String failing) {
    Events checks = run(EnumSet.of(breakage), selectClass(ReferenceContract.class));

    Map<String, String> failures = failures(checks);
    assertThat(failures.keySet()).containsExactlyInAnyOrder(failing.split(" "));
    assertThat(failures.values())
        .allSatisfy(message -> assertThat(message).startsWith(contract.title() + " broken: "));
  }

  @Test
  void bulkCallsThatAnswerPartlyButRightlyPassEveryCheck() {
    Events checks =
        run(EnumSet.of(Breakage.BULK_ANSWERS_PARTIALLY), selectClass(ReferenceContract.class));

    assertThat(failures(checks)).isEmpty();
    assertThat(checks.succeeded().count()).isEqualTo(checkCount());
  }

  @ParameterizedTest
  @EnumSource(
      value = Breakage.class,
      names = {"NO_ZONES", "ZONE_FROM_ZONES_ONLY"})
  void aCloudWithoutZonesOrWithThemFromTheZonesFacetPassesEveryCheck(Breakage variant) {
    Events checks = run(EnumSet.of(variant), selectClass(ReferenceContract.class));

    assertThat(failures(checks)).isEmpty();
    assertThat(methods(checks.succeeded()))
        .contains(
            "n8_theZoneAndRegionAreLabelValues", "n8_theZoneAndRegionAreWhereTheInstanceRuns");
    // A cloud without zones offers no Zones facet to compare.
    assertThat(methods(checks.aborted())).isSubsetOf("n6_theZoneByProviderIdIsTheZoneByNodeName");
    assertThat(checks.succeeded().count() + checks.aborted().count()).isEqualTo(checkCount());
  }

  @Test
  void metadataWithoutTheZoneSaysWhereTheInstanceRuns() {
    Events checks =
        run(
            EnumSet.of(Breakage.ZONE_NOT_GIVEN),
            selectMethod(ReferenceContract.class, "n8_theZoneAndRegionAreWhereTheInstanceRuns"));

    assertThat(failures(checks).get("n8_theZoneAndRegionAreWhereTheInstanceRuns"))
        .startsWith(Contract.ZONE_AND_REGION.title() + " broken: instanceMetadata of node ")
        .contains(
            " gives zone \"\" and region \"\"; its instance runs in zone \"z1\" of region \"r1\""
                + " (ProviderHarness.runningInstanceZone): give the instance's zone and region as"
                + " the cloud names them.");
  }

  @Test
  void aZoneThatIsNoLabelValueIsNamedWithWhatIsWrong() {
    Events checks =
        run(
            EnumSet.of(Breakage.ZONE_NOT_A_LABEL_VALUE),
            selectMethod(ReferenceContract.class, "n8_theZoneAndRegionAreLabelValues"));

    assertThat(failures(checks).get("n8_theZoneAndRegionAreLabelValues"))
        .contains(
            " gives zone \"Zone 1 (r1)\", which is no label value: not only letters, digits, '-',"
                + " '_' and '.', beginning and ending with a letter or digit.");
  }

  @Test
  void aNodeIpMissingFromTheAddressesIsNamedWithTheAddressesGiven() {
    Events checks =
        run(
            EnumSet.of(Breakage.PUBLIC_ADDRESS_ONLY),
            selectMethod(ReferenceContract.class, "n7_theProvidedNodeIpIsAmongTheAddresses"));

    assertThat(failures(checks).get("n7_theProvidedNodeIpIsAmongTheAddresses"))
        .contains(
            " gives the addresses ExternalIP 203.0.113.1; none is its provided node IP 10.1.0.1"
                + " (alpha.kubernetes.io/provided-node-ip=\"10.1.0.1\"): give the instance's own"
                + " addresses, the one its kubelet was started with among them.");
  }

  @Test
  void aStubFailsAsNotImplementedNamingTheFacet() {
    Events checks =
        run(
            EnumSet.of(Breakage.LOAD_BALANCER_NOT_IMPLEMENTED),
            selectClass(ReferenceContract.class));

    Map<String, String> failures = failures(checks);
    assertThat(failures.keySet())
        .containsExactlyInAnyOrder(
            "s14_ensuringAgainGivesTheSameLoadBalancer",
            "s12_s13_theStatusHasAnIngressOfTheRightShape",
            "s15_updateFollowsTheNodes",
            "s15_aBulkUpdateEqualsUpdatesOneByOne",
            "s11_deletingAMissingLoadBalancerSucceeds");
    assertThat(failures.get("s15_updateFollowsTheNodes"))
        .isEqualTo(
            Contract.UPDATE_FOLLOWS_NODES.title()
                + " not checked: LoadBalancer is not implemented: LoadBalancer.ensureLoadBalancer:"
                + " create or update the cloud's load balancer (at ReferenceCloud.ensureLoadBalancer)");
  }

  @Test
  void aStubbedCleanUpDoesNotHideTheStubACheckCalledFirst() {
    Events checks =
        run(
            EnumSet.of(
                Breakage.LOAD_BALANCER_NOT_IMPLEMENTED,
                Breakage.LOAD_BALANCER_DELETE_NOT_IMPLEMENTED),
            selectClass(ReferenceContract.class));

    Map<String, String> failures = failures(checks);
    assertThat(failures)
        .hasEntrySatisfying(
            "s11_deletingAMissingLoadBalancerSucceeds",
            message ->
                assertThat(message).endsWith("(at ReferenceCloud.ensureLoadBalancerDeleted)"));
    for (String ensuresFirst :
        List.of(
            "s14_ensuringAgainGivesTheSameLoadBalancer",
            "s12_s13_theStatusHasAnIngressOfTheRightShape",
            "s15_updateFollowsTheNodes",
            "s15_aBulkUpdateEqualsUpdatesOneByOne")) {
      assertThat(failures.get(ensuresFirst))
          .as(ensuresFirst)
          .contains("is not implemented: LoadBalancer.ensureLoadBalancer: ")
          .endsWith("(at ReferenceCloud.ensureLoadBalancer)");
    }
  }

  @Test
  void metadataThatNeedsAProviderIdSaysHowToFindTheInstance() {
    Events checks =
        run(
            EnumSet.of(Breakage.METADATA_BY_PROVIDER_ID_ONLY),
            selectMethod(
                ReferenceContract.class, "n6_aRegisteredNodeGetsItsProviderIdFromTheMetadata"));

    assertThat(failures(checks).get("n6_aRegisteredNodeGetsItsProviderIdFromTheMetadata"))
        .startsWith(
            Contract.INSTANCE_METADATA.title()
                + " broken: instanceMetadata threw InstanceNotFoundException for the running node ")
        .contains(
            ", registered without a providerID (look its instance up by the node's name, labels"
                + " or annotations): reference: no instance with providerID");
  }

  @Test
  void aProvidersOwnExceptionBreaksTheContractAndSaysWhy() {
    Events checks =
        run(
            EnumSet.of(Breakage.EXISTS_THROWS_NULL_POINTER),
            selectMethod(ReferenceContract.class, "l5_l7_aRunningInstanceExistsAndIsNotShutDown"));

    assertThat(failures(checks))
        .containsExactly(
            Map.entry(
                "l5_l7_aRunningInstanceExistsAndIsNotShutDown",
                Contract.INSTANCE_EXISTS.title()
                    + " broken: java.lang.NullPointerException: reference: a bug (at"
                    + " ReferenceCloud.instanceExists). The contract: "
                    + Contract.INSTANCE_EXISTS.promise()
                    + ". Why: "
                    + Contract.INSTANCE_EXISTS.upstream()
                    + "."));
  }

  @Test
  void aCloseThatHangsFailsItsBound() {
    Events checks =
        run(
            EnumSet.of(Breakage.CLOSE_HANGS),
            selectMethod(ReferenceContract.class, "a4_closeReturnsWithinItsBound"));

    assertThat(failures(checks))
        .containsExactly(
            Map.entry(
                "a4_closeReturnsWithinItsBound",
                Contract.CLOSE_BOUNDED.title()
                    + " broken: close() still running after PT0.2S. The contract: "
                    + Contract.CLOSE_BOUNDED.promise()
                    + ". Why: "
                    + Contract.CLOSE_BOUNDED.upstream()
                    + "."));
  }

  private static Events run(Set<Breakage> breakages, DiscoverySelector selector) {
    ReferenceContract.breakages = breakages;
    return EngineTestKit.engine("junit-jupiter").selectors(selector).execute().testEvents();
  }

  /** Failed checks by method name, with their messages. */
  private static Map<String, String> failures(Events checks) {
    Map<String, String> failed = new TreeMap<>();
    for (Event event : checks.failed().list()) {
      String method =
          ((MethodSource) event.getTestDescriptor().getSource().orElseThrow()).getMethodName();
      Throwable thrown =
          event
              .getPayload(org.junit.platform.engine.TestExecutionResult.class)
              .flatMap(org.junit.platform.engine.TestExecutionResult::getThrowable)
              .orElseThrow();
      failed.put(method, thrown.getMessage());
    }
    return failed;
  }

  /** The checks' method names. */
  private static Set<String> methods(Events checks) {
    Set<String> names = new TreeSet<>();
    for (Event event : checks.list()) {
      names.add(
          ((MethodSource) event.getTestDescriptor().getSource().orElseThrow()).getMethodName());
    }
    return names;
  }

  /** Every check of the kit: the @Holds methods of its facet interfaces. */
  private static long checkCount() {
    Set<String> checks = new TreeSet<>();
    for (Class<?> facet : ProviderContract.class.getInterfaces()) {
      Arrays.stream(facet.getMethods())
          .filter(m -> m.isAnnotationPresent(Holds.class))
          .forEach(m -> checks.add(m.getName()));
    }
    return checks.size();
  }
}
