package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.ccm4j.simulator.virt.SimulatedVirt;
import io.ccm4j.simulator.virt.VirtualMachineSpec;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServiceStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * A KubeVirt tenant cluster on two real API servers: the tenant's (whose nodes are simulated
 * kubelets, one per VMI, named after it) and the infrastructure cluster's (the KubeVirt CRDs, a
 * namespace for the tenant's VMs, the simulated virt layer), and {@code ccm4j run
 * --cloud-provider=kubevirt} serving the tenant cluster.
 */
final class KubeVirtTestbed implements AutoCloseable {

  private static LocalControlPlane sharedInfraPlane;
  private static KubernetesClient sharedInfra;

  /**
   * The infrastructure cluster every KubeVirt test class in this JVM shares, started on first use
   * and stopped when the JVM exits, as {@code @WithControlPlane} shares the tenant's: each testbed
   * keeps to its own namespace and names.
   */
  static synchronized LocalControlPlane infrastructurePlane() {
    if (sharedInfraPlane == null) {
      sharedInfraPlane = LocalControlPlane.builder().start();
      sharedInfra = sharedInfraPlane.newClient();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    sharedInfra.close();
                    sharedInfraPlane.close();
                  },
                  "infrastructure-control-plane-stop"));
    }
    return sharedInfraPlane;
  }

  /** An admin client of {@link #infrastructurePlane()}. */
  static synchronized KubernetesClient infrastructureClient() {
    infrastructurePlane();
    return sharedInfra;
  }

  final LocalControlPlane tenantPlane;
  final KubernetesClient tenant;
  final LocalControlPlane infraPlane;
  final KubernetesClient infra;
  final String id = UUID.randomUUID().toString().substring(0, 6);
  final String namespace = "tenant-" + id;
  final String clusterName = "kv-" + id;
  final SimulatedVirt virt;
  final KubeletFleet kubelets;
  private final Path temp;
  private final List<CloudControllerManager> managers = new ArrayList<>();

  KubeVirtTestbed(
      LocalControlPlane tenantPlane,
      KubernetesClient tenant,
      LocalControlPlane infraPlane,
      KubernetesClient infra,
      Path temp) {
    this.tenantPlane = tenantPlane;
    this.tenant = tenant;
    this.infraPlane = infraPlane;
    this.infra = infra;
    this.temp = temp;
    infra
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .create();
    virt = new SimulatedVirt(infra, namespace);
    kubelets = new KubeletFleet(tenant, KubeletFleet.Options.kubeletDefaults());
  }

  /** A namespace of the tenant cluster for this testbed's workloads. */
  String tenantNamespace() {
    String name = "shop-" + id;
    tenant
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
    return name;
  }

  /**
   * Creates the tenant Service {@code namespace/web} of type LoadBalancer with one TCP port.
   *
   * @param portName the port's name, or null
   * @param externalTrafficPolicy or null for the API server's default
   */
  Service createLoadBalancer(
      String namespace, String portName, int port, String externalTrafficPolicy) {
    return tenant
        .services()
        .inNamespace(namespace)
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("web")
                .endMetadata()
                .withNewSpec()
                .withType("LoadBalancer")
                .withExternalTrafficPolicy(externalTrafficPolicy)
                .addNewPort()
                .withName(portName)
                .withProtocol("TCP")
                .withPort(port)
                .endPort()
                .endSpec()
                .build())
        .create();
  }

  /**
   * Plays the infrastructure cluster's load balancer: gives the mirrored Service an ingress, then
   * waits until the CCM has copied it back to the tenant Service {@code namespace/web} (K49).
   */
  void assignIngressAndAwaitCopy(Service mirrored, String namespace, String ip) {
    mirrored.setStatus(
        new ServiceStatusBuilder()
            .withNewLoadBalancer()
            .addNewIngress()
            .withIp(ip)
            .endIngress()
            .endLoadBalancer()
            .build());
    infra.services().resource(mirrored).updateStatus();
    await()
        .atMost(Duration.ofSeconds(60))
        .untilAsserted(
            () ->
                assertThat(
                        tenant
                            .services()
                            .inNamespace(namespace)
                            .withName("web")
                            .get()
                            .getStatus()
                            .getLoadBalancer()
                            .getIngress())
                    .extracting(i -> i.getIp())
                    .containsExactly(ip));
  }

  /** A worker VM on {@code infraNode} and the tenant node its kubelet registers. */
  SimulatedKubelet worker(String name, String infraNode, String ip) {
    virt.start(VirtualMachineSpec.worker(name, clusterName, infraNode, ip));
    return kubelets.register(NodeSpec.named(name).withNodeIp(ip));
  }

  /** The cloud config naming the infrastructure cluster through {@code kubeconfig}. */
  Path cloudConfig(String kubeconfig, String extra) throws Exception {
    Path kubeconfigFile = temp.resolve("infra-" + UUID.randomUUID() + ".kubeconfig");
    Files.writeString(kubeconfigFile, kubeconfig);
    Path config = temp.resolve("kubevirt-" + UUID.randomUUID() + ".yaml");
    Files.writeString(
        config,
        KubeVirtInfrastructure.cloudConfig(kubeconfigFile.toString(), namespace) + extra + "\n");
    return config;
  }

  /** The admin's kubeconfig of the infrastructure cluster. */
  String infraAdminKubeconfig() throws Exception {
    return Files.readString(infraPlane.kubeconfigPath());
  }

  /**
   * {@code ccm4j run --cloud-provider=kubevirt --cloud-config=<config> --cluster-name=<cluster>
   * --controllers=<controllers>}, parsed by the real command line, started in-process against the
   * tenant cluster.
   */
  CloudControllerManager startManager(Path cloudConfig, String controllers) throws Exception {
    return startManager(
        tenant,
        "--cloud-provider=kubevirt",
        "--cloud-config=" + cloudConfig,
        "--kubeconfig=" + tenantPlane.kubeconfigPath(),
        "--cluster-name=" + clusterName,
        "--controllers=" + controllers,
        "--node-monitor-period=1s");
  }

  /** {@code ccm4j run <flags> --leader-elect=false} against {@code client}'s cluster. */
  CloudControllerManager startManager(KubernetesClient client, String... flags) {
    CloudControllerManager manager = InProcessManager.start(client, flags);
    managers.add(manager);
    return manager;
  }

  @Override
  public void close() {
    for (CloudControllerManager manager : managers) {
      manager.close();
    }
    for (SimulatedKubelet kubelet : kubelets.kubelets()) {
      tenant.nodes().withName(kubelet.nodeName()).delete();
    }
    kubelets.close();
    infra.namespaces().withName(namespace).delete();
  }
}
