package io.ccm4j.controllers.service;

import static io.ccm4j.controllers.service.ServiceFixtures.loadBalancer;
import static io.ccm4j.controllers.service.ServiceFixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The record of what a load balancer was ensured with (ccm4j's answer to §8.8). */
class AppliedLoadBalancerTest {

  private final List<Node> nodes = List.of(node("a").build(), node("b").build());

  @Test
  void roundTripsThroughTheAnnotation() {
    Service service = loadBalancer().build();
    AppliedLoadBalancer applied = AppliedLoadBalancer.of(service, nodes, "kubernetes", "");
    Service annotated =
        loadBalancer()
            .editMetadata()
            .addToAnnotations(WellKnownAnnotations.LOAD_BALANCER_APPLIED, applied.annotationValue())
            .endMetadata()
            .build();

    assertThat(applied.annotationValue()).matches("spec=[0-9a-f]{16},nodes=[0-9a-f]{16}");
    assertThat(AppliedLoadBalancer.recorded(annotated)).contains(applied);
    assertThat(AppliedLoadBalancer.of(annotated, nodes, "kubernetes", ""))
        .as("its own annotation does not change the digest")
        .isEqualTo(applied);
  }

  /**
   * Everything an ensure may read counts, not only the S6 fields: a field S6 ignores, a label, an
   * annotation, the cluster name, the provider's fingerprint (its version, its cloud-config) all
   * make a new leader ensure again instead of trusting the record.
   */
  @Test
  void theSpecDigestCoversEverythingAnEnsureMayDependOn() {
    Service service = loadBalancer().build();
    String digest = AppliedLoadBalancer.specDigest(service, "kubernetes", "v1");

    assertThat(AppliedLoadBalancer.specDigest(loadBalancer().build(), "kubernetes", "v1"))
        .isEqualTo(digest);
    assertThat(AppliedLoadBalancer.specDigest(service, "kubernetes", "v2"))
        .as("another provider version or cloud-config")
        .isNotEqualTo(digest);
    assertThat(AppliedLoadBalancer.specDigest(service, "renamed", "v1"))
        .as("another --cluster-name")
        .isNotEqualTo(digest);
    assertThat(
            AppliedLoadBalancer.specDigest(
                loadBalancer().editSpec().editFirstPort().withPort(81).endPort().endSpec().build(),
                "kubernetes",
                "v1"))
        .isNotEqualTo(digest);
    assertThat(
            AppliedLoadBalancer.specDigest(
                loadBalancer()
                    .editSpec()
                    .withAllocateLoadBalancerNodePorts(false)
                    .endSpec()
                    .build(),
                "kubernetes",
                "v1"))
        .as("a field S6 does not compare")
        .isNotEqualTo(digest);
    assertThat(
            AppliedLoadBalancer.specDigest(
                loadBalancer().editMetadata().addToLabels("app", "web").endMetadata().build(),
                "kubernetes",
                "v1"))
        .isNotEqualTo(digest);
    assertThat(
            AppliedLoadBalancer.specDigest(
                loadBalancer().editMetadata().addToAnnotations("a", "b").endMetadata().build(),
                "kubernetes",
                "v1"))
        .isNotEqualTo(digest);
    assertThat(
            AppliedLoadBalancer.specDigest(
                loadBalancer()
                    .editMetadata()
                    .addToAnnotations(WellKnownAnnotations.LOAD_BALANCER_APPLIED, "spec=x")
                    .endMetadata()
                    .build(),
                "kubernetes",
                "v1"))
        .as("ccm4j's own record does not count")
        .isEqualTo(digest);
    assertThat(
            AppliedLoadBalancer.specDigest(
                loadBalancer().editMetadata().withUid("recreated").endMetadata().build(),
                "kubernetes",
                "v1"))
        .as("a recreated Service with a copied annotation is not adopted")
        .isNotEqualTo(digest);
  }

  /**
   * A node sync right after an ensure: the informer's cache may not hold the ensure's record yet.
   * The record written here decides, or the backends change under a record that still vouches for
   * the old ones.
   */
  @Test
  void theRecordWrittenHereDecidesTheMarkBeforeABackendChange() {
    AppliedLoadBalancer written =
        AppliedLoadBalancer.of(loadBalancer().build(), nodes, "kubernetes", "");

    assertThat(
            AppliedLoadBalancer.toMarkBeforeBackendChange(
                java.util.Optional.of(written), java.util.Optional.empty()))
        .as("the cache has not seen the ensure's write")
        .contains(written);
    assertThat(
            AppliedLoadBalancer.toMarkBeforeBackendChange(
                java.util.Optional.of(written.withNodesUnrecorded()),
                java.util.Optional.of(written)))
        .as("marked here already; the cache lags")
        .isEmpty();
    assertThat(
            AppliedLoadBalancer.toMarkBeforeBackendChange(
                java.util.Optional.empty(), java.util.Optional.of(written)))
        .as("adopted from another leader's record")
        .contains(written);
    assertThat(
            AppliedLoadBalancer.toMarkBeforeBackendChange(
                java.util.Optional.empty(), java.util.Optional.empty()))
        .isEmpty();
  }

  @Test
  void theNodesDigestFollowsNamesAndProviderIdsOnly() {
    String digest = AppliedLoadBalancer.nodesDigest(nodes);

    assertThat(AppliedLoadBalancer.nodesDigest(List.of(nodes.get(1), nodes.get(0))))
        .isEqualTo(digest);
    assertThat(
            AppliedLoadBalancer.nodesDigest(
                List.of(
                    node("a").editMetadata().addToLabels("x", "y").endMetadata().build(),
                    nodes.get(1))))
        .isEqualTo(digest);
    assertThat(AppliedLoadBalancer.nodesDigest(List.of(nodes.get(0)))).isNotEqualTo(digest);
    assertThat(
            AppliedLoadBalancer.nodesDigest(
                List.of(
                    node("a").editSpec().withProviderID("sim://moved").endSpec().build(),
                    nodes.get(1))))
        .isNotEqualTo(digest);
  }

  @Test
  void nodesMarkedUnrecordedRoundTripAndMatchNoNodeSet() {
    Service service = loadBalancer().build();
    AppliedLoadBalancer unrecorded =
        AppliedLoadBalancer.of(service, nodes, "kubernetes", "").withNodesUnrecorded();
    Service annotated =
        loadBalancer()
            .editMetadata()
            .addToAnnotations(
                WellKnownAnnotations.LOAD_BALANCER_APPLIED, unrecorded.annotationValue())
            .endMetadata()
            .build();

    assertThat(unrecorded.annotationValue()).matches("spec=[0-9a-f]{16},nodes=unrecorded");
    assertThat(AppliedLoadBalancer.recorded(annotated)).contains(unrecorded);
    assertThat(unrecorded.nodesRecorded()).isFalse();
    assertThat(AppliedLoadBalancer.of(service, nodes, "kubernetes", "").nodesRecorded()).isTrue();
    assertThat(unrecorded.nodesDigest())
        .isNotEqualTo(AppliedLoadBalancer.nodesDigest(nodes))
        .isNotEqualTo(AppliedLoadBalancer.nodesDigest(List.of()));
  }

  @Test
  void aValueNotInCcm4jsFormatIsIgnored() {
    Service service =
        loadBalancer()
            .editMetadata()
            .addToAnnotations(WellKnownAnnotations.LOAD_BALANCER_APPLIED, "hand-written")
            .endMetadata()
            .build();
    assertThat(AppliedLoadBalancer.recorded(service)).isEmpty();
    assertThat(AppliedLoadBalancer.recorded(loadBalancer().build())).isEmpty();
  }
}
