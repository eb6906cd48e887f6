package io.ccm4j.app;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;

/** Nodes for the manager's ITs to initialise. */
final class TestNodes {

  private TestNodes() {}

  /**
   * A Node as a kubelet started with {@code --cloud-provider=external} registers it: carrying the
   * uninitialized taint the manager's node controller removes.
   */
  static Node uninitialised(String name) {
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
}
