package io.ccm4j.provider.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.InvalidServiceFieldException;
import io.ccm4j.cloudprovider.LoadBalancerStatus;
import io.ccm4j.cloudprovider.RetryAfterException;
import io.ccm4j.cloudprovider.api.WellKnownAnnotations;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SimLoadBalancersTest {

  private static Service service(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName(name)
        .withUid(UUID.randomUUID().toString())
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addNewPort()
        .withProtocol("TCP")
        .withPort(80)
        .endPort()
        .endSpec()
        .build();
  }

  private static Node node(String name) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withProviderID("sim://" + name)
        .endSpec()
        .build();
  }

  private static String ip(LoadBalancerStatus status) {
    return status.ingress().get(0).ip();
  }

  @Test
  void aBulkUpdateIsOneCallAndAMissingLoadBalancerFailsAlone() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("loadBalancers: {servicesPerCall: 1000}");
    SimLoadBalancers lbs = cloud.loadBalancers();
    Service a = service("a");
    Service b = service("b");
    Service never = service("never");
    lbs.ensureLoadBalancer("k", a, List.of(node("n1")));
    lbs.ensureLoadBalancer("k", b, List.of(node("n1")));

    io.ccm4j.cloudprovider.BulkAnswers<Boolean> answers =
        lbs.updateLoadBalancers("k", List.of(a, b, never), List.of(node("n2")));

    assertThat(lbs.maxServicesPerCall()).isEqualTo(1000);
    assertThat(answers.values()).isEqualTo(Map.of("ns/a", true, "ns/b", true));
    assertThat(answers.failure("ns/never").orElseThrow()).hasMessageContaining("does not exist");
    assertThat(lbs.loadBalancerOf("ns/b").orElseThrow().backends()).containsOnlyKeys("n2");
    assertThat(cloud.calls())
        .containsEntry("UpdateLoadBalancers", 1L)
        .doesNotContainKey("UpdateLoadBalancer");
  }

  @Test
  void withoutServicesPerCallABulkUpdateIsOneCallPerService() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("");
    SimLoadBalancers lbs = cloud.loadBalancers();
    Service a = service("a");
    Service b = service("b");
    lbs.ensureLoadBalancer("k", a, List.of());
    lbs.ensureLoadBalancer("k", b, List.of());

    lbs.updateLoadBalancers("k", List.of(a, b), List.of(node("n2")));

    assertThat(lbs.maxServicesPerCall()).isEqualTo(1);
    assertThat(cloud.calls()).containsEntry("UpdateLoadBalancer", 2L);
  }

  @Test
  void ensureHandsOutPoolAddressesAndKeepsThemAcrossEnsures() throws Exception {
    SimLoadBalancers lbs = SimCloudProviderFactory.fromYaml("").loadBalancers();
    Service a = service("a");
    Service b = service("b");

    assertThat(ip(lbs.ensureLoadBalancer("k", a, List.of(node("n1"))))).isEqualTo("127.0.200.1");
    assertThat(ip(lbs.ensureLoadBalancer("k", b, List.of()))).isEqualTo("127.0.200.2");
    assertThat(ip(lbs.ensureLoadBalancer("k", a, List.of(node("n1"), node("n2")))))
        .isEqualTo("127.0.200.1");
    assertThat(lbs.loadBalancerOf("ns/a").orElseThrow().backends())
        .isEqualTo(Map.of("n1", "sim://n1", "n2", "sim://n2"));
    assertThat(lbs.getLoadBalancer("k", b)).isPresent();

    lbs.updateLoadBalancer("k", a, List.of(node("n3")));
    assertThat(lbs.loadBalancerOf("ns/a").orElseThrow().backends()).containsOnlyKeys("n3");

    lbs.ensureLoadBalancerDeleted("k", a);
    lbs.ensureLoadBalancerDeleted("k", a);
    assertThat(lbs.getLoadBalancer("k", a)).isEmpty();
    assertThat(ip(lbs.ensureLoadBalancer("k", service("c"), List.of())))
        .as("a released address is reused")
        .isEqualTo("127.0.200.1");
    assertThat(lbs.callsFor("ns/a"))
        .containsEntry("EnsureLoadBalancer", 2L)
        .containsEntry("UpdateLoadBalancer", 1L)
        .containsEntry("EnsureLoadBalancerDeleted", 2L)
        .containsEntry("GetLoadBalancer", 1L);
  }

  @Test
  void updatingAMissingLoadBalancerFails() throws Exception {
    SimLoadBalancers lbs = SimCloudProviderFactory.fromYaml("").loadBalancers();
    assertThatThrownBy(() -> lbs.updateLoadBalancer("k", service("a"), List.of()))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("does not exist");
  }

  @Test
  void honoursLoadBalancerIpWhenFreeAndInThePool() throws Exception {
    SimLoadBalancers lbs =
        SimCloudProviderFactory.fromYaml("loadBalancers: {ingressPool: 127.0.201.0/29}")
            .loadBalancers();
    Service wants5 =
        new ServiceBuilder(service("a"))
            .editSpec()
            .withLoadBalancerIP("127.0.201.5")
            .endSpec()
            .build();
    Service alsoWants5 =
        new ServiceBuilder(service("b"))
            .editSpec()
            .withLoadBalancerIP("127.0.201.5")
            .endSpec()
            .build();
    Service outside =
        new ServiceBuilder(service("c"))
            .editSpec()
            .withLoadBalancerIP("10.0.0.1")
            .endSpec()
            .build();

    assertThat(ip(lbs.ensureLoadBalancer("k", wants5, List.of()))).isEqualTo("127.0.201.5");
    assertThatThrownBy(() -> lbs.ensureLoadBalancer("k", alsoWants5, List.of()))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("in use");
    assertThatThrownBy(() -> lbs.ensureLoadBalancer("k", outside, List.of()))
        .isInstanceOf(InvalidServiceFieldException.class)
        .hasMessage(
            "spec.loadBalancerIP: \"10.0.0.1\" is not in the sim cloud's ingress pool 127.0.201.0/29");
  }

  @Test
  void anExhaustedPoolIsACloudError() throws Exception {
    SimLoadBalancers lbs =
        SimCloudProviderFactory.fromYaml("loadBalancers: {ingressPool: 127.0.201.0/30}")
            .loadBalancers();
    lbs.ensureLoadBalancer("k", service("a"), List.of());
    lbs.ensureLoadBalancer("k", service("b"), List.of());
    assertThatThrownBy(() -> lbs.ensureLoadBalancer("k", service("c"), List.of()))
        .hasMessageContaining("no free address");
  }

  @Test
  void refusesProtocolsItDoesNotOfferNamingThePort() throws Exception {
    SimLoadBalancers lbs = SimCloudProviderFactory.fromYaml("").loadBalancers();
    Service sctp =
        new ServiceBuilder(service("a"))
            .editSpec()
            .addNewPort()
            .withProtocol("SCTP")
            .withPort(9000)
            .endPort()
            .endSpec()
            .build();
    assertThatThrownBy(() -> lbs.ensureLoadBalancer("k", sctp, List.of()))
        .isInstanceOf(InvalidServiceFieldException.class)
        .hasMessage("spec.ports[1].protocol: sim load balancers support TCP and UDP, not SCTP");
  }

  @Test
  void refusesAMalformedSourceRangesAnnotation() throws Exception {
    SimLoadBalancers lbs = SimCloudProviderFactory.fromYaml("").loadBalancers();
    Service bad =
        new ServiceBuilder(service("a"))
            .editMetadata()
            .addToAnnotations(WellKnownAnnotations.LOAD_BALANCER_SOURCE_RANGES, "10.0.0.0/33")
            .endMetadata()
            .build();
    assertThatThrownBy(() -> lbs.ensureLoadBalancer("k", bad, List.of()))
        .isInstanceOf(InvalidServiceFieldException.class)
        .hasMessageContaining("load-balancer-source-ranges");
  }

  @Test
  void aNewLoadBalancerIsProvisionedAfterTheConfiguredRetries() throws Exception {
    SimLoadBalancers lbs =
        SimCloudProviderFactory.fromYaml(
                "loadBalancers: {provisioningRetries: 2, provisioningRetryAfterMs: 700}")
            .loadBalancers();
    Service a = service("a");
    for (int i = 0; i < 2; i++) {
      assertThatThrownBy(() -> lbs.ensureLoadBalancer("k", a, List.of()))
          .isInstanceOf(RetryAfterException.class)
          .satisfies(
              e ->
                  assertThat(((RetryAfterException) e).retryAfter())
                      .isEqualTo(Duration.ofMillis(700)));
    }
    assertThat(ip(lbs.ensureLoadBalancer("k", a, List.of()))).isEqualTo("127.0.200.1");
    assertThat(ip(lbs.ensureLoadBalancer("k", a, List.of())))
        .as("an existing load balancer is not provisioned again")
        .isEqualTo("127.0.200.1");
  }

  @Test
  void callsGoThroughTheCloudsGate() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("errorRate: 1");
    assertThatThrownBy(() -> cloud.loadBalancers().getLoadBalancer("k", service("a")))
        .hasMessageContaining("injected error in GetLoadBalancer");
    assertThat(cloud.calls()).containsEntry("GetLoadBalancer", 1L);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "loadBalancers: {ingressPool: 127.0.200.0/33}|loadBalancers.ingressPool",
        "loadBalancers: {ingressPool: nope}|loadBalancers.ingressPool",
        "loadBalancers: {ingressPool: 127.0.200.0/31}|loadBalancers.ingressPool",
        "loadBalancers: {provisioningRetries: -1}|loadBalancers.provisioningRetries",
        "loadBalancers: {provisioningRetryAfterMs: 0}|loadBalancers.provisioningRetryAfterMs",
        "loadBalancers: {pool: 127.0.0.0/24}|loadBalancers.pool"
      })
  void badConfigNamesTheField(String yaml, String field) {
    assertThatThrownBy(() -> SimCloudProviderFactory.fromYaml(yaml))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining(field);
  }

  @Test
  void anEnsureOfSeveralCallsIsJournaledOnceWithItsCallerAndItsSpan(@TempDir Path temp)
      throws Exception {
    Path journal = temp.resolve("calls.tsv");
    SimCloud cloud =
        SimCloudProviderFactory.fromYaml(
            "latencyMs: 20\njournal: %s\nloadBalancers: {ensureCalls: 3}\n".formatted(journal));
    Service web = service("web");

    cloud.loadBalancers().ensureLoadBalancer("c", web, List.of(node("n1")));
    cloud.loadBalancers().ensureLoadBalancerDeleted("c", web);

    assertThat(cloud.calls())
        .containsEntry("EnsureLoadBalancer", 1L)
        .containsEntry("EnsureLoadBalancerStep", 2L);
    List<String[]> lines =
        Files.readAllLines(journal).stream().map(line -> line.split("\t")).toList();
    assertThat(lines).hasSize(4);
    String caller = ProcessHandle.current().pid() + "@";
    String name = io.ccm4j.cloudprovider.LoadBalancer.defaultName(web);
    assertThat(lines.get(0)).startsWith("begin").contains("EnsureLoadBalancer", name);
    assertThat(lines.get(1)).startsWith("end").contains("EnsureLoadBalancer", name, "ok");
    assertThat(lines.get(0)[1]).startsWith(caller);
    assertThat(lines.get(1)[2]).isEqualTo(lines.get(0)[2]);
    long micros = Long.parseLong(lines.get(1)[3]) - Long.parseLong(lines.get(0)[3]);
    assertThat(micros).as("three calls of 20 ms").isGreaterThanOrEqualTo(60_000);
    assertThat(lines.get(2)).startsWith("begin").contains("EnsureLoadBalancerDeleted");
  }

  @Test
  void anEnsureOfNoCallsIsRefusedNamingTheField() {
    assertThatThrownBy(() -> SimCloudProviderFactory.fromYaml("loadBalancers: {ensureCalls: 0}\n"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("\"loadBalancers.ensureCalls\" must be at least 1");
  }
}
