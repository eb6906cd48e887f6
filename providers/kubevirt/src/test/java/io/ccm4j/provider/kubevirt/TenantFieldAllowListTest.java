package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.LoadBalancerStatus.FieldWarning;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TenantFieldAllowListTest {

  private static final TenantFieldAllowList METALLB_AND_ONE_KEY =
      new TenantFieldAllowList(List.of("metallb.universe.tf/*", "example.com/exact"), false, false);

  @ParameterizedTest(name = "{0} allowed: {1}")
  @CsvSource({
    "metallb.universe.tf/address-pool, true",
    "metallb.universe.tf/, true",
    "metallb.universe.tf, false",
    "example.com/exact, true",
    "example.com/exact-not, false",
    "example.com/other, false",
  })
  void annotationsAreAllowedByExactKeyOrByPrefix(String key, boolean allowed) {
    assertThat(METALLB_AND_ONE_KEY.annotationAllowed(key)).isEqualTo(allowed);
    assertThat(TenantFieldAllowList.NONE.annotationAllowed(key)).isFalse();
  }

  private static Service tenant(Map<String, String> annotations) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName("web")
        .withNamespace("shop")
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withExternalIPs("198.51.100.9")
        .withLoadBalancerIP("203.0.113.7")
        .endSpec()
        .build();
  }

  @Test
  void k43_k44_eachFieldLeftOutIsAWarningNamingIt() {
    Service tenant =
        tenant(
            Map.of(
                "metallb.universe.tf/address-pool",
                "infra-public",
                "example.com/b",
                "x",
                "example.com/a",
                "y",
                WellKnownAnnotations.LOAD_BALANCER_APPLIED,
                "spec=1",
                "kubectl.kubernetes.io/last-applied-configuration",
                "{}"));
    assertThat(METALLB_AND_ONE_KEY.dropped(tenant))
        .extracting(FieldWarning::field)
        .containsExactly("metadata.annotations", "spec.externalIPs", "spec.loadBalancerIP");
    // The tenant's own bookkeeping is left out without a word; what a user asked for is named.
    assertThat(METALLB_AND_ONE_KEY.dropped(tenant).get(0).problem())
        .startsWith("example.com/a, example.com/b not copied")
        .contains("loadBalancer.allowedAnnotations");
    assertThat(METALLB_AND_ONE_KEY.annotations(tenant))
        .isEqualTo(Map.of("metallb.universe.tf/address-pool", "infra-public"));
    assertThat(METALLB_AND_ONE_KEY.externalIps(tenant)).isEmpty();
    assertThat(METALLB_AND_ONE_KEY.loadBalancerIp(tenant)).isNull();
  }

  @Test
  void whatIsAllowedIsCopiedWithoutAWarning() {
    TenantFieldAllowList all = new TenantFieldAllowList(List.of("*"), true, true);
    Service tenant = tenant(Map.of("example.com/a", "y"));
    assertThat(all.dropped(tenant)).isEmpty();
    assertThat(all.annotations(tenant)).isEqualTo(Map.of("example.com/a", "y"));
    assertThat(all.externalIps(tenant)).containsExactly("198.51.100.9");
    assertThat(all.loadBalancerIp(tenant)).isEqualTo("203.0.113.7");
    assertThat(
            TenantFieldAllowList.NONE.dropped(
                new ServiceBuilder()
                    .withNewMetadata()
                    .endMetadata()
                    .withNewSpec()
                    .endSpec()
                    .build()))
        .isEmpty();
  }
}
