package io.ccm4j.app;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;

/** The objects the manager's ITs create for it to act on. */
final class TestObjects {

  private TestObjects() {}

  /**
   * A Node as a kubelet started with {@code --cloud-provider=external} registers it: carrying the
   * uninitialized taint the manager's node controller removes.
   */
  static Node uninitialisedNode(String name) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewTaint()
        .withKey("node.cloudprovider.kubernetes.io/uninitialized")
        .withValue("true")
        .withEffect("NoSchedule")
        .endTaint()
        .endSpec()
        .build();
  }

  /** A Service of type LoadBalancer in {@code default}, port 80 over TCP. */
  static Service loadBalancerService(String name) {
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
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
}
