package io.ccm4j.simulator.virt;

import io.ccm4j.cloudprovider.net.DnsNames;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A VirtualMachine of a tenant cluster, as Cluster API's KubeVirt provider creates one.
 *
 * @param name the VM's name, which its VMI and the tenant Node share
 * @param clusterName the tenant cluster, labelled {@code cluster.x-k8s.io/cluster-name} on the VM
 *     template (so on the VMI and its virt-launcher pod)
 * @param infraNode the infrastructure node the VMI is scheduled to
 * @param ip the pod-network address the VMI reports on its {@code default} interface (and its
 *     virt-launcher pod's IP)
 * @param instanceType the VM's {@code spec.instancetype.name}, or null; KubeVirt puts it on the VMI
 *     as the annotation {@code kubevirt.io/cluster-instancetype-name} (the default kind, a
 *     VirtualMachineClusterInstancetype) or {@code kubevirt.io/instancetype-name} (a namespaced
 *     VirtualMachineInstancetype)
 * @param namespacedInstanceType whether {@code instanceType} is of the namespaced kind
 * @param hostname {@code spec.hostname} of the VMI, or null; a DNS label, as KubeVirt's admission
 *     webhook requires (no dots: an FQDN guest name is hostname + subdomain)
 * @param worker whether the VM is a worker ({@code cluster.x-k8s.io/role=worker})
 * @param standalone a VMI without a VirtualMachine (created directly, as {@code kubectl create} of
 *     a VirtualMachineInstance does): it stays, Succeeded, when stopped
 */
public record VirtualMachineSpec(
    String name,
    String clusterName,
    String infraNode,
    String ip,
    String instanceType,
    boolean namespacedInstanceType,
    String hostname,
    boolean worker,
    boolean standalone) {

  public VirtualMachineSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(clusterName, "clusterName");
    Objects.requireNonNull(infraNode, "infraNode");
    Objects.requireNonNull(ip, "ip");
    if (hostname != null && !DnsNames.isLabel(hostname)) {
      throw new IllegalArgumentException(
          "spec.hostname \"%s\" is not a DNS label; KubeVirt refuses it".formatted(hostname));
    }
  }

  public static VirtualMachineSpec worker(
      String name, String clusterName, String infraNode, String ip) {
    return new VirtualMachineSpec(name, clusterName, infraNode, ip, null, false, null, true, false);
  }

  /** A VirtualMachineClusterInstancetype, the kind KubeVirt assumes when none is named. */
  public VirtualMachineSpec withInstanceType(String type) {
    return new VirtualMachineSpec(
        name, clusterName, infraNode, ip, type, false, hostname, worker, standalone);
  }

  /** A namespaced VirtualMachineInstancetype. */
  public VirtualMachineSpec withNamespacedInstanceType(String type) {
    return new VirtualMachineSpec(
        name, clusterName, infraNode, ip, type, true, hostname, worker, standalone);
  }

  public VirtualMachineSpec withHostname(String host) {
    return new VirtualMachineSpec(
        name,
        clusterName,
        infraNode,
        ip,
        instanceType,
        namespacedInstanceType,
        host,
        worker,
        standalone);
  }

  /** A VMI of its own, without a VirtualMachine. */
  public VirtualMachineSpec withoutVirtualMachine() {
    return new VirtualMachineSpec(
        name,
        clusterName,
        infraNode,
        ip,
        instanceType,
        namespacedInstanceType,
        hostname,
        worker,
        true);
  }

  /** The labels of the VM template, which KubeVirt copies to the VMI and the launcher pod. */
  Map<String, String> templateLabels() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(SimulatedVirt.CLUSTER_NAME_LABEL, clusterName);
    if (worker) {
      labels.put(SimulatedVirt.ROLE_LABEL, "worker");
    }
    return labels;
  }
}
