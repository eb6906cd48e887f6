package io.ccm4j.controllers;

import io.ccm4j.controllers.cloudnodelifecycle.CloudNodeLifecycleSettings;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.node.CloudNodeSettings;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import io.ccm4j.controllers.service.ServiceControllerSettings;
import java.util.Objects;

/**
 * Every controller's settings record, as the manager keeps them: {@link Controllers} hands each
 * controller its own, and no controller reads this holder (ControllerIndependenceTest checks). Each
 * record writes its defaults and checks its values itself; this only holds them.
 *
 * @param cloudNode cloud-node-controller's
 * @param cloudNodeLifecycle cloud-node-lifecycle-controller's
 * @param service service-lb-controller's
 * @param nodeHealth node-lifecycle-controller's
 * @param network the pod network, node-route-controller's and node-ipam-controller's
 */
public record ControllerSettings(
    CloudNodeSettings cloudNode,
    CloudNodeLifecycleSettings cloudNodeLifecycle,
    ServiceControllerSettings service,
    NodeHealthSettings nodeHealth,
    NetworkSettings network) {

  public ControllerSettings {
    Objects.requireNonNull(cloudNode, "cloudNode");
    Objects.requireNonNull(cloudNodeLifecycle, "cloudNodeLifecycle");
    Objects.requireNonNull(service, "service");
    Objects.requireNonNull(nodeHealth, "nodeHealth");
    Objects.requireNonNull(network, "network");
  }

  /** Each record's {@code defaults()}. */
  public static ControllerSettings defaults() {
    return new ControllerSettings(
        CloudNodeSettings.defaults(),
        CloudNodeLifecycleSettings.defaults(),
        ServiceControllerSettings.defaults(),
        NodeHealthSettings.defaults(),
        NetworkSettings.defaults());
  }

  public ControllerSettings withCloudNode(CloudNodeSettings value) {
    return new ControllerSettings(value, cloudNodeLifecycle, service, nodeHealth, network);
  }

  public ControllerSettings withCloudNodeLifecycle(CloudNodeLifecycleSettings value) {
    return new ControllerSettings(cloudNode, value, service, nodeHealth, network);
  }

  public ControllerSettings withService(ServiceControllerSettings value) {
    return new ControllerSettings(cloudNode, cloudNodeLifecycle, value, nodeHealth, network);
  }

  public ControllerSettings withNodeHealth(NodeHealthSettings value) {
    return new ControllerSettings(cloudNode, cloudNodeLifecycle, service, value, network);
  }

  public ControllerSettings withNetwork(NetworkSettings value) {
    return new ControllerSettings(cloudNode, cloudNodeLifecycle, service, nodeHealth, value);
  }

  /** Shorthand for the cloud-node record's {@link CloudNodeSettings#withConcurrentNodeSyncs}. */
  public ControllerSettings withConcurrentNodeSyncs(int value) {
    return withCloudNode(cloudNode.withConcurrentNodeSyncs(value));
  }

  /**
   * Shorthand for the service-lb record's {@link
   * ServiceControllerSettings#withConcurrentServiceSyncs}.
   */
  public ControllerSettings withConcurrentServiceSyncs(int value) {
    return withService(service.withConcurrentServiceSyncs(value));
  }
}
