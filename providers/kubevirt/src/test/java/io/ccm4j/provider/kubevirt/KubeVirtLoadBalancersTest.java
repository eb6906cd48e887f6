package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KubeVirtLoadBalancersTest {

  @Test
  void k49_theInfrastructureIngressIsCopiedInOrder() {
    Service infra =
        new ServiceBuilder()
            .withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp("192.0.2.1")
            .withIpMode("Proxy")
            .endIngress()
            .addNewIngress()
            .withHostname("lb.example.com")
            .endIngress()
            .addNewIngress()
            .withIp("2001:db8::1")
            .withHostname("both.example.com")
            .endIngress()
            .addNewIngress()
            .endIngress()
            .endLoadBalancer()
            .endStatus()
            .build();
    assertThat(KubeVirtLoadBalancers.status(infra).ingress())
        .containsExactly(
            new LoadBalancerStatus.Ingress("192.0.2.1", "", "Proxy"),
            LoadBalancerStatus.Ingress.ofHostname("lb.example.com"),
            LoadBalancerStatus.Ingress.ofIp("2001:db8::1"));
    assertThat(KubeVirtLoadBalancers.status(new Service()).ingress()).isEmpty();
  }

  private static KubeVirtLoadBalancers balancers(String clusterName) {
    return new KubeVirtLoadBalancers(
        null,
        new InfraServices("infra-ns", clusterName, Map.of(), false, TenantFieldAllowList.NONE),
        Duration.ofSeconds(5),
        Duration.ofSeconds(300),
        Clock.systemUTC());
  }

  @Test
  void k8_k46_theFingerprintChangesWithTheClusterName() {
    assertThat(balancers("kubernetes").fingerprint())
        .isNotEqualTo(balancers("tenant-a").fingerprint())
        .isEqualTo(balancers("kubernetes").fingerprint());
  }
}
