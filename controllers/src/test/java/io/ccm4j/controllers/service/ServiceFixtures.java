package io.ccm4j.controllers.service;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;

/** Services and nodes for the table-driven tests. */
final class ServiceFixtures {

  private ServiceFixtures() {}

  /** A LoadBalancer Service with one TCP port. */
  static ServiceBuilder loadBalancer() {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("ns")
        .withName("web")
        .withUid("11111111-2222-3333-4444-555555555555")
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNodePort(30080)
        .withTargetPort(new IntOrString(8080))
        .endPort()
        .withSessionAffinity("None")
        .withExternalTrafficPolicy("Cluster")
        .addToIpFamilies("IPv4")
        .endSpec();
  }

  static Service clusterIp() {
    return loadBalancer().editSpec().withType("ClusterIP").endSpec().build();
  }

  static NodeBuilder node(String name) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .withProviderID("sim://" + name)
        .endSpec();
  }

  static Node withLabel(String name, String key, String value) {
    return node(name).editMetadata().addToLabels(key, value).endMetadata().build();
  }

  static Node withTaint(String name, String key) {
    return node(name)
        .editSpec()
        .addToTaints(new TaintBuilder().withKey(key).withEffect("NoSchedule").build())
        .endSpec()
        .build();
  }
}
