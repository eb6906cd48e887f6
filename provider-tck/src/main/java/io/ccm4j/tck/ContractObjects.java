package io.ccm4j.tck;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.util.UUID;

/** The Kubernetes objects the kit hands to a provider unless its harness gives its own. */
public final class ContractObjects {

  private ContractObjects() {}

  /**
   * A {@code type: LoadBalancer} Service {@code contract/web-<random>} with a fresh UID and one TCP
   * port 80 on node port 30080.
   */
  public static Service loadBalancerService() {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    return new ServiceBuilder()
        .withNewMetadata()
        .withNamespace("contract")
        .withName("web-" + suffix)
        .withUid(UUID.randomUUID().toString())
        .endMetadata()
        .withNewSpec()
        .withType("LoadBalancer")
        .addNewPort()
        .withName("http")
        .withProtocol("TCP")
        .withPort(80)
        .withNewTargetPort(8080)
        .withNodePort(30080)
        .endPort()
        .endSpec()
        .build();
  }

  /**
   * Node {@code contract-node-<index>} with providerID {@code <provider>://contract-node-<index>}
   * and InternalIP {@code 127.0.0.<index + 1>}.
   */
  public static Node backendNode(String providerName, int index) {
    String name = "contract-node-" + index;
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withUid(UUID.randomUUID().toString())
        .endMetadata()
        .withNewSpec()
        .withProviderID(providerName + "://" + name)
        .endSpec()
        .withNewStatus()
        .addNewAddress()
        .withType("InternalIP")
        .withAddress("127.0.0." + (index + 1))
        .endAddress()
        .addNewAddress()
        .withType("Hostname")
        .withAddress(name)
        .endAddress()
        .endStatus()
        .build();
  }

  /**
   * The node as its kubelet registered it before the cloud-node controller gave it a providerID.
   */
  public static Node withoutProviderId(Node node) {
    return new NodeBuilder(node).editOrNewSpec().withProviderID(null).endSpec().build();
  }

  /** The node's {@code spec.providerID}, or "". */
  public static String providerId(Node node) {
    return node.getSpec() == null || node.getSpec().getProviderID() == null
        ? ""
        : node.getSpec().getProviderID();
  }
}
