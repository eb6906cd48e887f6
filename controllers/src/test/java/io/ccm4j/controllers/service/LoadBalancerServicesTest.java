package io.ccm4j.controllers.service;

import static io.ccm4j.controllers.service.ServiceFixtures.clusterIp;
import static io.ccm4j.controllers.service.ServiceFixtures.loadBalancer;
import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** S4, S5 and S6, table-driven. */
class LoadBalancerServicesTest {

  private static final String FINALIZER = WellKnownAnnotations.LOAD_BALANCER_CLEANUP_FINALIZER;

  static Stream<Arguments> wantsLoadBalancer() {
    return Stream.of(
        Arguments.of("type LoadBalancer", loadBalancer().build(), true),
        Arguments.of("type ClusterIP", clusterIp(), false),
        Arguments.of(
            "type NodePort",
            loadBalancer().editSpec().withType("NodePort").endSpec().build(),
            false),
        Arguments.of(
            "LoadBalancer with a loadBalancerClass (not mine)",
            loadBalancer().editSpec().withLoadBalancerClass("example.com/lb").endSpec().build(),
            false),
        Arguments.of(
            "no spec", new ServiceBuilder().withNewMetadata().endMetadata().build(), false));
  }

  @ParameterizedTest(name = "S4 {0}")
  @MethodSource
  void wantsLoadBalancer(String name, Service service, boolean wants) {
    assertThat(LoadBalancerServices.wantsLoadBalancer(service)).isEqualTo(wants);
  }

  static Stream<Arguments> needsCleanup() {
    return Stream.of(
        Arguments.of("LoadBalancer without finalizer", loadBalancer().build(), false),
        Arguments.of(
            "LoadBalancer with finalizer",
            loadBalancer().editMetadata().addToFinalizers(FINALIZER).endMetadata().build(),
            false),
        Arguments.of(
            "being deleted with finalizer",
            loadBalancer()
                .editMetadata()
                .addToFinalizers(FINALIZER)
                .withDeletionTimestamp("2026-01-01T00:00:00Z")
                .endMetadata()
                .build(),
            true),
        Arguments.of(
            "being deleted without finalizer",
            loadBalancer()
                .editMetadata()
                .withDeletionTimestamp("2026-01-01T00:00:00Z")
                .endMetadata()
                .build(),
            false),
        Arguments.of(
            "type changed to ClusterIP with finalizer",
            new ServiceBuilder(clusterIp())
                .editMetadata()
                .addToFinalizers(FINALIZER)
                .endMetadata()
                .build(),
            true),
        Arguments.of(
            "loadBalancerClass set with finalizer (still type LoadBalancer)",
            loadBalancer()
                .editMetadata()
                .addToFinalizers(FINALIZER)
                .endMetadata()
                .editSpec()
                .withLoadBalancerClass("example.com/lb")
                .endSpec()
                .build(),
            false),
        Arguments.of(
            "another finalizer only",
            new ServiceBuilder(clusterIp())
                .editMetadata()
                .addToFinalizers("example.com/other")
                .endMetadata()
                .build(),
            false));
  }

  @ParameterizedTest(name = "S5 {0}")
  @MethodSource
  void needsCleanup(String name, Service service, boolean needs) {
    assertThat(LoadBalancerServices.needsCleanup(service)).isEqualTo(needs);
  }

  static Stream<Arguments> needsUpdate() {
    return Stream.of(
        change("nothing", b -> b, false),
        change(
            "wantsLB flipped to ClusterIP",
            b -> b.editSpec().withType("ClusterIP").endSpec(),
            true),
        change(
            "loadBalancerSourceRanges",
            b -> b.editSpec().addToLoadBalancerSourceRanges("10.0.0.0/8").endSpec(),
            true),
        change(
            "port number",
            b -> b.editSpec().editFirstPort().withPort(81).endPort().endSpec(),
            true),
        change(
            "port name",
            b -> b.editSpec().editFirstPort().withName("web").endPort().endSpec(),
            true),
        change(
            "port protocol",
            b -> b.editSpec().editFirstPort().withProtocol("UDP").endPort().endSpec(),
            true),
        change(
            "node port",
            b -> b.editSpec().editFirstPort().withNodePort(30081).endPort().endSpec(),
            true),
        change(
            "target port",
            b ->
                b.editSpec()
                    .editFirstPort()
                    .withTargetPort(new IntOrString("http"))
                    .endPort()
                    .endSpec(),
            true),
        change(
            "app protocol",
            b -> b.editSpec().editFirstPort().withAppProtocol("https").endPort().endSpec(),
            true),
        change(
            "a second port",
            b -> b.editSpec().addNewPort().withName("https").withPort(443).endPort().endSpec(),
            true),
        change(
            "sessionAffinity", b -> b.editSpec().withSessionAffinity("ClientIP").endSpec(), true),
        change(
            "sessionAffinityConfig",
            b ->
                b.editSpec()
                    .withNewSessionAffinityConfig()
                    .withNewClientIP()
                    .withTimeoutSeconds(60)
                    .endClientIP()
                    .endSessionAffinityConfig()
                    .endSpec(),
            true),
        change(
            "loadBalancerIP", b -> b.editSpec().withLoadBalancerIP("127.0.200.9").endSpec(), true),
        change("externalIPs", b -> b.editSpec().addToExternalIPs("192.0.2.1").endSpec(), true),
        change(
            "an annotation", b -> b.editMetadata().addToAnnotations("a", "b").endMetadata(), true),
        change(
            "ccm4j's own applied annotation (would loop)",
            b ->
                b.editMetadata()
                    .addToAnnotations(
                        WellKnownAnnotations.LOAD_BALANCER_APPLIED,
                        "spec=0123456789abcdef,nodes=0123456789abcdef")
                    .endMetadata(),
            false),
        change("UID", b -> b.editMetadata().withUid("other").endMetadata(), true),
        change(
            "externalTrafficPolicy",
            b -> b.editSpec().withExternalTrafficPolicy("Local").endSpec(),
            true),
        change(
            "healthCheckNodePort",
            b -> b.editSpec().withHealthCheckNodePort(32000).endSpec(),
            true),
        change("number of ipFamilies", b -> b.editSpec().addToIpFamilies("IPv6").endSpec(), true),
        change("labels", b -> b.editMetadata().addToLabels("app", "web").endMetadata(), false),
        change("selector", b -> b.editSpec().addToSelector("app", "web").endSpec(), false),
        change("finalizers", b -> b.editMetadata().addToFinalizers(FINALIZER).endMetadata(), false),
        change(
            "status",
            b ->
                b.withNewStatus()
                    .withNewLoadBalancer()
                    .addNewIngress()
                    .withIp("127.0.200.1")
                    .endIngress()
                    .endLoadBalancer()
                    .endStatus(),
            false),
        change(
            "allocateLoadBalancerNodePorts",
            b -> b.editSpec().withAllocateLoadBalancerNodePorts(false).endSpec(),
            false),
        change(
            "internalTrafficPolicy",
            b -> b.editSpec().withInternalTrafficPolicy("Local").endSpec(),
            false),
        change(
            "ipFamilyPolicy",
            b -> b.editSpec().withIpFamilyPolicy("PreferDualStack").endSpec(),
            false),
        Arguments.of(
            "neither wants a load balancer",
            clusterIp(),
            new ServiceBuilder(clusterIp())
                .editSpec()
                .withLoadBalancerIP("127.0.200.9")
                .endSpec()
                .build(),
            false),
        Arguments.of("ClusterIP becomes LoadBalancer", clusterIp(), loadBalancer().build(), true));
  }

  private static Arguments change(
      String name, UnaryOperator<ServiceBuilder> edit, boolean needsUpdate) {
    return Arguments.of(
        name, loadBalancer().build(), edit.apply(loadBalancer()).build(), needsUpdate);
  }

  @ParameterizedTest(name = "S6 {0}")
  @MethodSource
  void needsUpdate(String name, Service old, Service current, boolean needs) {
    assertThat(LoadBalancerServices.needsUpdate(old, current)).isEqualTo(needs);
  }
}
