package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.ccm4j.cloudprovider.net.Cidr;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServiceLoadBalancerSpecTest {

  private static ServiceBuilder service() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("svc")
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addNewPort()
        .withPort(80)
        .withNodePort(30080)
        .endPort()
        .endSpec();
  }

  @Test
  void portsDefaultToTcpAndClusterPolicyChecksKubeProxy() throws Exception {
    var spec = ServiceLoadBalancerSpec.of(service().build(), 10256);
    assertThat(spec.ports())
        .containsExactly(
            new ServiceLoadBalancerSpec.Port(
                null, ServiceLoadBalancerSpec.Protocol.TCP, 80, 30080));
    assertThat(spec.localTrafficPolicy()).isFalse();
    assertThat(spec.healthCheckPort()).isEqualTo(10256);
    assertThat(spec.sourceRanges()).isEmpty();
    assertThat(spec.allows(InetAddress.getByName("127.9.9.9"))).isTrue();
    assertThat(spec.requestedAddress()).isNull();
  }

  @Test
  void localPolicyChecksTheHealthCheckNodePort() throws Exception {
    Service service =
        service()
            .editSpec()
            .withExternalTrafficPolicy("Local")
            .withHealthCheckNodePort(31999)
            .endSpec()
            .build();
    var spec = ServiceLoadBalancerSpec.of(service, 10256);
    assertThat(spec.localTrafficPolicy()).isTrue();
    assertThat(spec.healthCheckPort()).isEqualTo(31999);
  }

  @Test
  void theSpecFieldWinsOverTheAnnotation() throws Exception {
    Service service =
        service()
            .editMetadata()
            .addToAnnotations(WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES, "10.0.0.0/8")
            .endMetadata()
            .editSpec()
            .withLoadBalancerSourceRanges("127.0.0.2/32", "fd00::/8")
            .endSpec()
            .build();
    var spec = ServiceLoadBalancerSpec.of(service, 10256);
    assertThat(spec.sourceRanges())
        .containsExactly(Cidr.parse("127.0.0.2/32"), Cidr.parse("fd00::/8"));
    assertThat(spec.allows(InetAddress.getByName("127.0.0.2"))).isTrue();
    assertThat(spec.allows(InetAddress.getByName("127.0.0.3"))).isFalse();
    assertThat(spec.allows(InetAddress.getByName("10.1.1.1"))).isFalse();
    assertThat(spec.allows(InetAddress.getByName("fd00::5"))).isTrue();
    // An IPv4-mapped IPv6 client is matched as IPv4.
    assertThat(
            spec.allows(
                InetAddress.getByAddress(
                    new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 127, 0, 0, 2})))
        .isTrue();
  }

  @Test
  void theAnnotationIsReadWhenTheFieldIsEmpty() throws Exception {
    Service service =
        service()
            .editMetadata()
            .addToAnnotations(
                WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES, " 127.0.0.0/30 ,10.0.0.0/8")
            .endMetadata()
            .build();
    var spec = ServiceLoadBalancerSpec.of(service, 10256);
    assertThat(spec.allows(InetAddress.getByName("127.0.0.3"))).isTrue();
    assertThat(spec.allows(InetAddress.getByName("127.0.0.4"))).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "range      | spec.loadBalancerSourceRanges[1]",
        "annotation | metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]",
        "ip         | spec.loadBalancerIP",
        "protocol   | spec.ports[0].protocol",
        "nodePort   | spec.ports[0].nodePort",
        "health     | spec.healthCheckNodePort",
        "duplicate  | spec.ports[1].port",
      })
  void badFieldsAreNamed(String what, String field) {
    ServiceBuilder b = service();
    switch (what) {
      case "range" ->
          b.editSpec().withLoadBalancerSourceRanges("127.0.0.1/32", "300.1.1.1/8").endSpec();
      case "annotation" ->
          b.editMetadata()
              .addToAnnotations(WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES, "127.0.0.1")
              .endMetadata();
      case "ip" -> b.editSpec().withLoadBalancerIP("not-an-ip").endSpec();
      case "protocol" -> b.editSpec().editFirstPort().withProtocol("SCTP").endPort().endSpec();
      case "nodePort" -> b.editSpec().editFirstPort().withNodePort(null).endPort().endSpec();
      case "health" -> b.editSpec().withExternalTrafficPolicy("Local").endSpec();
      case "duplicate" ->
          b.editSpec().addNewPort().withPort(80).withNodePort(30081).endPort().endSpec();
      default -> throw new IllegalArgumentException(what);
    }
    assertThatThrownBy(() -> ServiceLoadBalancerSpec.of(b.build(), 10256))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("service ns/svc")
        .hasMessageContaining(field);
  }
}
