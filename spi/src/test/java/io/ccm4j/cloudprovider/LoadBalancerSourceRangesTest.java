package io.ccm4j.cloudprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LoadBalancerSourceRangesTest {

  private static Service withAnnotation(String value) {
    return new ServiceBuilder()
        .withNewMetadata()
        .addToAnnotations(WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES, value)
        .endMetadata()
        .withNewSpec()
        .endSpec()
        .build();
  }

  @Test
  void defaultsToEverywhere() throws Exception {
    assertThat(
            LoadBalancerSourceRanges.of(
                new ServiceBuilder().withNewMetadata().endMetadata().build()))
        .containsExactly("0.0.0.0/0");
    assertThat(LoadBalancerSourceRanges.of(withAnnotation("  "))).containsExactly("0.0.0.0/0");
  }

  @Test
  void readsTheAnnotationTrimmed() throws Exception {
    assertThat(LoadBalancerSourceRanges.of(withAnnotation(" 10.0.0.0/8, 192.168.2.0/24 ,fd00::/8")))
        .containsExactly("10.0.0.0/8", "192.168.2.0/24", "fd00::/8");
  }

  @Test
  void theFieldWinsOverTheAnnotationEvenAMalformedOne() throws Exception {
    Service service =
        new ServiceBuilder(withAnnotation("not-a-cidr"))
            .editSpec()
            .withLoadBalancerSourceRanges(List.of("10.1.0.0/16"))
            .endSpec()
            .build();
    assertThat(LoadBalancerSourceRanges.of(service)).containsExactly("10.1.0.0/16");
  }

  @ParameterizedTest
  @CsvSource({
    "10.0.0.0/33",
    "10.0.0.0",
    "300.0.0.0/8",
    "010.0.0.0/8",
    "10.0.0.0/8/8",
    "example.com/8",
    "10.0.0.0/8;",
    "'10.0.0.0/8,'"
  })
  void aMalformedAnnotationIsRefusedNamingIt(String value) {
    assertThatThrownBy(() -> LoadBalancerSourceRanges.of(withAnnotation(value)))
        .isInstanceOf(InvalidServiceFieldException.class)
        .hasMessageStartingWith(
            "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: \"")
        .satisfies(
            e ->
                assertThat(((InvalidServiceFieldException) e).field())
                    .isEqualTo(
                        "metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]"));
  }

  @Test
  void aMalformedFieldIsRefusedNamingIt() {
    Service service =
        new ServiceBuilder()
            .withNewMetadata()
            .endMetadata()
            .withNewSpec()
            .withLoadBalancerSourceRanges(List.of("10.0.0.0/8", "nope"))
            .endSpec()
            .build();
    assertThatThrownBy(() -> LoadBalancerSourceRanges.of(service))
        .hasMessage(
            "spec.loadBalancerSourceRanges: \"nope\" is not an IP range; expecting a comma-separated list of CIDRs such as 10.0.0.0/24,192.168.2.0/24");
  }
}
