package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.ccm4j.cloudprovider.CloudException;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InfraServicesTest {

  private final InfraServices services =
      new InfraServices(
          "infra-ns",
          "tenant-a",
          Map.of(KubeVirtApi.CLUSTER_NAME_LABEL, "x", "team", "blue"),
          false,
          false,
          TenantFieldAllowList.NONE);

  private final InfraServices allowing =
      new InfraServices(
          "infra-ns",
          "tenant-a",
          Map.of(),
          false,
          false,
          new TenantFieldAllowList(List.of("metallb.universe.tf/*"), true, true));

  private static Service tenant() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withName("web")
        .withNamespace("shop")
        .withUid("6fa1a266-2ad0-11e9-b210-d663bd873d93")
        .withAnnotations(
            Map.of("example.com/a", "b", "metallb.universe.tf/address-pool", "tenants"))
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .withExternalTrafficPolicy("Local")
        .withHealthCheckNodePort(31999)
        .withLoadBalancerIP("203.0.113.7")
        .withExternalIPs("198.51.100.9")
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNodePort(30080)
        .endPort()
        .addNewPort()
        .withName("dns")
        .withProtocol("UDP")
        .withPort(53)
        .withNodePort(30053)
        .endPort()
        .endSpec()
        .build();
  }

  @Test
  void k41_theNameComesFromTheUidOnly() {
    assertThat(InfraServices.name(tenant())).isEqualTo("a6fa1a2662ad011e9b210d663bd873d9");
  }

  @Test
  void k42_k46_labelsAnnotationsSelectorPortsAndPolicy() throws CloudException {
    Service infra = services.desired(tenant());
    assertThat(infra.getMetadata().getNamespace()).isEqualTo("infra-ns");
    assertThat(infra.getMetadata().getLabels())
        .containsEntry(KubeVirtApi.TENANT_SERVICE_NAME_LABEL, "web")
        .containsEntry(KubeVirtApi.TENANT_SERVICE_NAMESPACE_LABEL, "shop")
        // infraLabels win over the built-in ones (K42)
        .containsEntry(KubeVirtApi.CLUSTER_NAME_LABEL, "x")
        .containsEntry("team", "blue");
    assertThat(infra.getSpec().getType()).isEqualTo("LoadBalancer");
    assertThat(infra.getSpec().getSelector())
        .isEqualTo(
            Map.of(KubeVirtApi.ROLE_LABEL, "worker", KubeVirtApi.CLUSTER_NAME_LABEL, "tenant-a"));
    assertThat(infra.getSpec().getPorts())
        .extracting(
            p -> p.getName(), p -> p.getProtocol(), p -> p.getPort(), p -> p.getTargetPort())
        .containsExactly(
            tuple("http", "TCP", 80, new IntOrString(30080)),
            tuple("dns", "UDP", 53, new IntOrString(30053)));
    assertThat(infra.getSpec().getPorts()).allSatisfy(p -> assertThat(p.getNodePort()).isNull());
    assertThat(infra.getSpec().getExternalTrafficPolicy()).isEqualTo("Local");
    // K44: ccm4j does not ask the infrastructure cluster for the tenant's health check port.
    assertThat(infra.getSpec().getHealthCheckNodePort()).isNull();
  }

  @Test
  void k43_k44_noTenantAnnotationOrAddressReachesTheInfrastructureByDefault()
      throws CloudException {
    Service infra = services.desired(tenant());
    assertThat(infra.getMetadata().getAnnotations()).isEmpty();
    assertThat(infra.getSpec().getExternalIPs()).isEmpty();
    assertThat(infra.getSpec().getLoadBalancerIP()).isNull();
  }

  @Test
  void k43_k44_theAllowListLetsThroughOnlyWhatItNames() throws CloudException {
    Service infra = allowing.desired(tenant());
    assertThat(infra.getMetadata().getAnnotations())
        .isEqualTo(Map.of("metallb.universe.tf/address-pool", "tenants"));
    assertThat(infra.getSpec().getExternalIPs()).containsExactly("198.51.100.9");
    assertThat(infra.getSpec().getLoadBalancerIP()).isEqualTo("203.0.113.7");
  }

  @Test
  void anAddressCopiedBeforeTheAllowListForbadeItIsTakenAway() throws CloudException {
    // As upstream (or an earlier ccm4j) created it.
    Service infra = allowing.desired(tenant());
    assertThat(allowing.needsUpdate(infra, tenant())).isFalse();
    assertThat(services.needsUpdate(infra, tenant())).isTrue();
    services.update(infra, tenant());
    assertThat(infra.getSpec().getExternalIPs()).isEmpty();
    assertThat(infra.getSpec().getLoadBalancerIP()).isNull();
    assertThat(services.needsUpdate(infra, tenant())).isFalse();
  }

  @Test
  void k46_selectorlessGivesNoSelector() throws CloudException {
    assertThat(
            new InfraServices(
                    "infra-ns", "tenant-a", Map.of(), true, false, TenantFieldAllowList.NONE)
                .desired(tenant())
                .getSpec()
                .getSelector())
        .isNullOrEmpty();
  }

  @Test
  void k46_withTheEndpointSliceControllerAServiceWithLocalTrafficGetsNoSelector()
      throws CloudException {
    InfraServices eps =
        new InfraServices("infra-ns", "tenant-a", Map.of(), false, true, TenantFieldAllowList.NONE);
    Service local = tenant(); // externalTrafficPolicy: Local
    Service cluster = tenant();
    cluster.getSpec().setExternalTrafficPolicy("Cluster");
    Service infraLocal = eps.desired(local);
    assertThat(infraLocal.getSpec().getSelector()).isNullOrEmpty();
    assertThat(infraLocal.getSpec().getExternalTrafficPolicy()).isEqualTo("Local");
    // Cluster traffic keeps the worker selector; without the controller, Local keeps it too.
    assertThat(eps.desired(cluster).getSpec().getSelector())
        .containsEntry(KubeVirtApi.ROLE_LABEL, KubeVirtApi.ROLE_WORKER);
    assertThat(services.desired(local).getSpec().getSelector())
        .containsEntry(KubeVirtApi.ROLE_LABEL, KubeVirtApi.ROLE_WORKER);
    // A tenant Service that turns Local loses its selector (ccm4j follows it, unlike K46's
    // creation-only rule), and one that turns back gets it again.
    Service infraCluster = eps.desired(cluster);
    assertThat(eps.needsUpdate(infraCluster, local)).isTrue();
    eps.update(infraCluster, local);
    assertThat(infraCluster.getSpec().getSelector()).isNullOrEmpty();
    eps.update(infraCluster, cluster);
    assertThat(infraCluster.getSpec().getSelector()).isNotEmpty();
  }

  @Test
  void k45_aPortWithoutNodePortIsAnErrorNamingIt() {
    Service tenant = tenant();
    tenant.getSpec().getPorts().get(1).setNodePort(null);
    assertThatThrownBy(() -> services.desired(tenant))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("port dns (UDP/53) of Service shop/web has no node port");

    // A Service's only port may have no name.
    Service unnamed = tenant();
    unnamed.getSpec().getPorts().get(1).setNodePort(null);
    unnamed.getSpec().getPorts().get(1).setName(null);
    assertThatThrownBy(() -> services.desired(unnamed))
        .hasMessageContaining("port (UDP/53) of Service shop/web has no node port");
  }

  @Test
  void k47_onlyTheComparedFieldsMakeAnUpdateAndAllocatedNodePortsStay() throws CloudException {
    Service infra = services.desired(tenant());
    infra.getSpec().getPorts().get(0).setNodePort(31000);
    infra.getSpec().getPorts().get(1).setNodePort(31001);
    assertThat(services.needsUpdate(infra, tenant())).isFalse();

    Service changed = tenant();
    changed.getSpec().getPorts().get(0).setNodePort(30081);
    assertThat(services.needsUpdate(infra, changed)).isTrue();
    services.update(infra, changed);
    assertThat(infra.getSpec().getPorts().get(0).getTargetPort()).isEqualTo(new IntOrString(30081));
    assertThat(infra.getSpec().getPorts().get(0).getNodePort()).isEqualTo(31000);
    assertThat(services.needsUpdate(infra, changed)).isFalse();

    Service cluster = tenant();
    cluster.getSpec().setExternalTrafficPolicy(null);
    assertThat(services.needsUpdate(infra, cluster)).isTrue();
  }

  @Test
  void k42_k46_aCorrectedClusterNameReachesTheSelectorAndTheLabelsOfAnExistingService()
      throws CloudException {
    InfraServices wrong =
        new InfraServices(
            "infra-ns", "kubernetes", Map.of(), false, false, TenantFieldAllowList.NONE);
    InfraServices right =
        new InfraServices(
            "infra-ns", "tenant-a", Map.of(), false, false, TenantFieldAllowList.NONE);
    Service infra = wrong.desired(tenant());
    infra.getMetadata().getLabels().put("added-by-someone", "else");
    assertThat(right.needsUpdate(infra, tenant())).isTrue();
    right.update(infra, tenant());
    assertThat(infra.getMetadata().getLabels())
        .containsEntry(KubeVirtApi.CLUSTER_NAME_LABEL, "tenant-a")
        .containsEntry("added-by-someone", "else");
    assertThat(infra.getSpec().getSelector())
        .containsEntry(KubeVirtApi.CLUSTER_NAME_LABEL, "tenant-a");
    assertThat(right.needsUpdate(infra, tenant())).isFalse();
  }

  /**
   * K42 with K46: a Service without a selector (selectorless, or Local traffic under the
   * EndpointSlice controller) has only its cluster-name label to say which cluster's it is, and the
   * controller serves only its own cluster's Services. A corrected {@code --cluster-name}, or a
   * changed {@code infraLabels}, changed no compared field, so the old label stayed and the
   * controller never wrote the Service's endpoints.
   */
  @Test
  void k42_aCorrectedClusterNameOrNewInfraLabelsReachAServiceWithoutASelector()
      throws CloudException {
    InfraServices wrong =
        new InfraServices(
            "infra-ns", "kubernetes", Map.of(), true, true, TenantFieldAllowList.NONE);
    InfraServices right =
        new InfraServices(
            "infra-ns", "tenant-a", Map.of("team", "blue"), true, true, TenantFieldAllowList.NONE);
    Service infra = wrong.desired(tenant());
    infra.getMetadata().getLabels().put("added-by-someone", "else");
    assertThat(infra.getSpec().getSelector()).isNull();
    assertThat(right.needsUpdate(infra, tenant())).isTrue();
    right.update(infra, tenant());
    assertThat(infra.getMetadata().getLabels())
        .containsEntry(KubeVirtApi.CLUSTER_NAME_LABEL, "tenant-a")
        .containsEntry("team", "blue")
        .containsEntry("added-by-someone", "else");
    assertThat(right.needsUpdate(infra, tenant())).isFalse();
  }
}
