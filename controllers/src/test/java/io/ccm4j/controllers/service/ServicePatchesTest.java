package io.ccm4j.controllers.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** S13's ingress comparison, which decides whether the status is written. */
class ServicePatchesTest {

  private static Service withIngress(String ip, String hostname, String ipMode) {
    return new ServiceBuilder()
        .withNewStatus()
        .withNewLoadBalancer()
        .addNewIngress()
        .withIp(ip)
        .withHostname(hostname)
        .withIpMode(ipMode)
        .endIngress()
        .endLoadBalancer()
        .endStatus()
        .build();
  }

  @ParameterizedTest(name = "status ip={0} ipMode={1}, cloud ip={2} ipMode={3} -> {4}")
  @CsvSource(
      nullValues = "null",
      value = {
        // Kubernetes >= 1.30 defaults ipMode to VIP on IP ingress: a provider's unset ipMode
        // means the same, or every sync would rewrite the status and no failover could adopt.
        "10.0.0.1, VIP,   10.0.0.1, '',    true",
        "10.0.0.1, null,  10.0.0.1, '',    true",
        "10.0.0.1, null,  10.0.0.1, VIP,   true",
        "10.0.0.1, Proxy, 10.0.0.1, '',    false",
        "10.0.0.1, VIP,   10.0.0.1, Proxy, false",
        "10.0.0.1, VIP,   10.0.0.2, '',    false",
      })
  void ipIngressComparesWithTheApiServersDefaultIpMode(
      String ip, String ipMode, String cloudIp, String cloudIpMode, boolean equal) {
    Service service = withIngress(ip, null, ipMode);
    LoadBalancerStatus cloud =
        new LoadBalancerStatus(List.of(new LoadBalancerStatus.Ingress(cloudIp, "", cloudIpMode)));

    assertThat(ServicePatches.ingressEquals(service, cloud)).isEqualTo(equal);
  }

  @ParameterizedTest(name = "hostname ingress, cloud ipMode {0}")
  @CsvSource({"''", "VIP", "Proxy"})
  void aHostnameIngressHasNoIpModeWhateverTheCloudSays(String cloudIpMode) {
    Service service = withIngress(null, "lb.example.com", null);
    LoadBalancerStatus cloud =
        new LoadBalancerStatus(
            List.of(new LoadBalancerStatus.Ingress("", "lb.example.com", cloudIpMode)));

    // The API server refuses ipMode without ip ("may not be specified when `ip` is not set").
    assertThat(ServicePatches.ingress(cloud)).containsExactly(Map.of("hostname", "lb.example.com"));
    assertThat(ServicePatches.ingressEquals(service, cloud)).isTrue();
  }

  @ParameterizedTest(name = "ip ingress, cloud ipMode {0}")
  @CsvSource({"'', 10.0.0.1", "Proxy, 10.0.0.1"})
  void anIpIngressCarriesTheCloudsIpModeWhenItGivesOne(String cloudIpMode, String ip) {
    LoadBalancerStatus cloud =
        new LoadBalancerStatus(List.of(new LoadBalancerStatus.Ingress(ip, "", cloudIpMode)));

    assertThat(ServicePatches.ingress(cloud))
        .containsExactly(
            cloudIpMode.isEmpty() ? Map.of("ip", ip) : Map.of("ip", ip, "ipMode", cloudIpMode));
  }

  @Test
  void anIngressWithBothIpAndHostnameAndPortsIsWrittenAndComparedWhole() {
    LoadBalancerStatus cloud =
        new LoadBalancerStatus(
            List.of(
                new LoadBalancerStatus.Ingress(
                    "10.0.0.1",
                    "lb.example.com",
                    "",
                    List.of(
                        new LoadBalancerStatus.PortStatus(80, "TCP", ""),
                        new LoadBalancerStatus.PortStatus(53, "UDP", "PortUnavailable")))));

    assertThat(ServicePatches.ingress(cloud))
        .containsExactly(
            Map.of(
                "ip",
                "10.0.0.1",
                "hostname",
                "lb.example.com",
                "ports",
                List.of(
                    Map.of("port", 80, "protocol", "TCP"),
                    Map.of("port", 53, "protocol", "UDP", "error", "PortUnavailable"))));
    Service written =
        new ServiceBuilder()
            .withNewStatus()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp("10.0.0.1")
            .withHostname("lb.example.com")
            .withIpMode("VIP")
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
            .endLoadBalancer()
            .endStatus()
            .build();
    assertThat(ServicePatches.ingressEquals(written, cloud)).isTrue();
    written.getStatus().getLoadBalancer().getIngress().get(0).getPorts().remove(1);
    assertThat(ServicePatches.ingressEquals(written, cloud)).isFalse();
    assertThat(
            ServicePatches.ingressEquals(
                withIngress("10.0.0.1", null, "VIP"),
                new LoadBalancerStatus(
                    List.of(new LoadBalancerStatus.Ingress("10.0.0.1", "lb.example.com", "")))))
        .isFalse();
  }
}
