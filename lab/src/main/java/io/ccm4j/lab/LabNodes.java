package io.ccm4j.lab;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Doctor;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Manifests;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.proxy.KubeProxyFleet;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The lab's machines: the control-plane and worker nodes, their addresses on this run's loopback
 * ({@code .0.x} and {@code .1.x}), the sim cloud's instances for them, and their kubelets and
 * kube-proxies as they register, NotReady until their CNI is up.
 */
final class LabNodes {

  private static final String NETWORK_NOT_READY =
      "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady"
          + " message:cni plugin not initialized";

  private final int controlPlaneNodes;
  private final int workerNodes;
  private final String loopback;

  LabNodes(int controlPlaneNodes, int workerNodes, String loopback) {
    this.controlPlaneNodes = controlPlaneNodes;
    this.workerNodes = workerNodes;
    this.loopback = loopback;
  }

  /**
   * Whether the CCM of the manifest creates the routes of the pod network (the Azure pattern): the
   * lab's nodes then start NetworkUnavailable, as such a cluster's do until the routes exist.
   */
  static boolean routedByTheCcm(String manifest) {
    try {
      return Doctor.workloads(Manifests.read(manifest, Path.of("the CCM manifest"))).stream()
          .anyMatch(CcmWorkload::createsRoutes);
    } catch (ManifestException e) {
      return false; // applying it reports what is wrong with it
    }
  }

  /** NetworkUnavailable until the route controller has created each node's route. */
  static void markNetworkUnavailable(
      KubernetesClient admin, List<String> nodes, Timeline timeline) {
    for (String node : nodes) {
      NodePatches.patchCondition(
          admin,
          node,
          NodeConditions.NETWORK_UNAVAILABLE,
          "True",
          "NoRouteCreated",
          "waiting for the route of the node's pod CIDR");
      timeline.record(node, "NetworkUnavailable until its route exists (routes by the CCM)");
    }
  }

  /** The sim cloud's instances: one per node, spread over three zones. */
  String cloudConfig() {
    StringBuilder yaml = new StringBuilder("instances:\n");
    for (int i = 0; i < controlPlaneNodes; i++) {
      yaml.append(
          "  - {name: cp-%d, region: lab, zone: lab-%d, instanceType: sim.large, addresses: [%s]}\n"
              .formatted(i, i % 3, controlPlaneIp(i)));
    }
    for (int i = 0; i < workerNodes; i++) {
      yaml.append(
          "  - {name: worker-%d, region: lab, zone: lab-%d, instanceType: sim.small, addresses: [%s]}\n"
              .formatted(i, i % 3, workerIp(i)));
    }
    return yaml.toString();
  }

  private String controlPlaneIp(int i) {
    return loopback + "0." + (10 + i);
  }

  private String workerIp(int i) {
    return loopback + "1." + (10 + i);
  }

  /**
   * The nodes' kubelets, and on each a kube-proxy serving the node ports on the address the cloud
   * gives the node (as kube-proxy's DaemonSet runs on the host network, tolerating every taint).
   */
  List<String> register(
      KubeletFleet kubelets,
      KubeProxyFleet proxies,
      Timeline timeline,
      KubeVirtInfrastructure kubevirt) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < controlPlaneNodes; i++) {
      String name = "cp-" + i;
      kubelets.register(
          onVm(name, controlPlaneIp(i), false, kubevirt)
              .withNotReady(NETWORK_NOT_READY)
              // as kubeadm labels its control-plane nodes: no load balancer traffic to them
              .withLabels(
                  Map.of(
                      WellKnownLabels.ROLE_CONTROL_PLANE,
                      "",
                      WellKnownLabels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS,
                      ""))
              .withTaints(
                  List.of(
                      new TaintBuilder()
                          .withKey(WellKnownTaints.CONTROL_PLANE)
                          .withEffect("NoSchedule")
                          .build())));
      proxies.start(name, controlPlaneIp(i));
      names.add(name);
      timeline.record(name, "kubelet registered (uninitialized, network not ready)");
    }
    for (int i = 0; i < workerNodes; i++) {
      String name = "worker-" + i;
      kubelets.register(onVm(name, workerIp(i), true, kubevirt).withNotReady(NETWORK_NOT_READY));
      proxies.start(name, workerIp(i));
      names.add(name);
      timeline.record(name, "kubelet registered (uninitialized, network not ready)");
    }
    return names;
  }

  /**
   * A node's kubelet; with the KubeVirt infrastructure, on the node's VM: the VM is started first
   * and the kubelet's {@code --node-ip} is the address its VMI reports.
   */
  private static NodeSpec onVm(
      String name, String ip, boolean worker, KubeVirtInfrastructure kubevirt) {
    if (kubevirt == null) {
      return NodeSpec.named(name);
    }
    kubevirt.startVm(name, ip, worker, worker ? "u1.small" : "u1.large");
    return NodeSpec.named(name).withNodeIp(ip);
  }
}
