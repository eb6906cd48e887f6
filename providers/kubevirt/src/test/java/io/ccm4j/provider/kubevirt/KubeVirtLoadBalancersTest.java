package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
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
            .addNewPort()
            .withPort(80)
            .withProtocol("TCP")
            .endPort()
            .addNewPort()
            .withPort(53)
            .withProtocol("UDP")
            .withError("PortUnavailable")
            .endPort()
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
            new LoadBalancerStatus.Ingress(
                "2001:db8::1",
                "both.example.com",
                "",
                List.of(
                    new LoadBalancerStatus.PortStatus(80, "TCP", ""),
                    new LoadBalancerStatus.PortStatus(53, "UDP", "PortUnavailable"))));
    assertThat(KubeVirtLoadBalancers.status(new Service()).ingress()).isEmpty();
  }

  private static KubeVirtLoadBalancers balancers(String clusterName) {
    return new KubeVirtLoadBalancers(
        null,
        new InfraServices(
            "infra-ns", clusterName, Map.of(), false, false, TenantFieldAllowList.NONE),
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
