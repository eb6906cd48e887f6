package io.ccm4j.provider.kubevirt;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/** The KubeVirt API and the labels this provider reads and writes, each spelled once. */
public final class KubeVirtApi {

  private KubeVirtApi() {}

  public static final String GROUP = "kubevirt.io";
  public static final String VERSION = "v1";

  /** K100. */
  public static final ResourceDefinitionContext VIRTUAL_MACHINE_INSTANCES =
      new ResourceDefinitionContext.Builder()
          .withGroup(GROUP)
          .withVersion(VERSION)
          .withKind("VirtualMachineInstance")
          .withPlural("virtualmachineinstances")
          .withNamespaced(true)
          .build();

  /** Read only to tell a stopped VM from a deleted one (see {@link KubeVirtInstances}). */
  public static final ResourceDefinitionContext VIRTUAL_MACHINES =
      new ResourceDefinitionContext.Builder()
          .withGroup(GROUP)
          .withVersion(VERSION)
          .withKind("VirtualMachine")
          .withPlural("virtualmachines")
          .withNamespaced(true)
          .build();

  /** The VMI's instance type when it is a namespaced VirtualMachineInstancetype (K29). */
  public static final String INSTANCETYPE_ANNOTATION = "kubevirt.io/instancetype-name";

  /**
   * The VMI's instance type when it is a VirtualMachineClusterInstancetype, the kind KubeVirt
   * assumes when a VM names none (K29 Quirk: upstream does not read it).
   */
  public static final String CLUSTER_INSTANCETYPE_ANNOTATION =
      "kubevirt.io/cluster-instancetype-name";

  /** The KubeVirt network whose addresses a node reports (K27). */
  public static final String DEFAULT_INTERFACE = "default";

  /** K42: labels on every infrastructure Service, saying which tenant Service it mirrors. */
  public static final String TENANT_SERVICE_NAME_LABEL = "cluster.x-k8s.io/tenant-service-name";

  public static final String TENANT_SERVICE_NAMESPACE_LABEL =
      "cluster.x-k8s.io/tenant-service-namespace";
  public static final String CLUSTER_NAME_LABEL = "cluster.x-k8s.io/cluster-name";

  /** K46: with the cluster-name label, selects the tenant cluster's worker VMIs' pods. */
  public static final String ROLE_LABEL = "cluster.x-k8s.io/role";

  public static final String ROLE_WORKER = "worker";

  /** The VMI phases of K24. */
  public static final String PHASE_SUCCEEDED = "Succeeded";

  public static final String PHASE_FAILED = "Failed";
  public static final String PHASE_UNKNOWN = "Unknown";
  public static final String PHASE_RUNNING = "Running";
}
