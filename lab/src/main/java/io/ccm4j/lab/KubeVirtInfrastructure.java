package io.ccm4j.lab;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.controlplane.ControlPlaneBinaries;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Doctor;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Manifests;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.proxy.ForwardingKubeProxy;
import io.ccm4j.simulator.virt.SimulatedVirt;
import io.ccm4j.simulator.virt.VirtualMachineSpec;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LoadBalancerIngress;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lab's cloud when the CCM under test runs {@code --cloud-provider=kubevirt}: an infrastructure
 * cluster (a second real kube-apiserver) with KubeVirt's API, one VM per tenant node on
 * infrastructure nodes in three zones, and its own load balancers served by ccm4j with the {@code
 * local} cloud. The tenant's CCM reaches it as docs/kubevirt.md tells users to run it: a Secret
 * with the cloud config and the kubeconfig of the least-privilege ServiceAccount of {@code
 * providers/kubevirt/deploy/infra-rbac.yaml}, mounted by the Deployment.
 *
 * <p>A request to a tenant LoadBalancer Service travels: infrastructure load balancer ({@code
 * 127.<n>.100.x}) → infrastructure node ({@code 127.<n>.50.x}, a {@link ForwardingKubeProxy} on the
 * infrastructure Service's node port) → the virt-launcher pod, whose IP is the VMI's and the tenant
 * node's → the tenant node's kube-proxy on the tenant Service's node port.
 */
public final class KubeVirtInfrastructure implements AutoCloseable {

  /** Where the tenant cluster's VMs run in the infrastructure cluster. */
  public static final String NAMESPACE = "kubevirt-lab";

  static final String PROVIDER = "kubevirt";
  private static final String ACCOUNT = "kubevirt-cloud-controller-manager";
  private static final String INFRA_RBAC = "/io/ccm4j/provider/kubevirt/deploy/infra-rbac.yaml";
  private static final String SUBJECT = "infrastructure";
  private static final List<String> ZONES = List.of("lab-a", "lab-b", "lab-c");
  private static final String REGION = "lab";

  /**
   * What the CCM manifest asks of the infrastructure: the tenant cluster's name (the VMs' {@code
   * cluster.x-k8s.io/cluster-name}, which its {@code --cluster-name} must match) and the Secret its
   * pod mounts for {@code --cloud-config}.
   */
  public record Wanted(String clusterName, String secretName, String cloudConfigKey) {}

  private final LocalControlPlane plane;
  private final KubernetesClient infra;
  private final KubeletFleet kubelets;
  private final SimulatedVirt virt;
  private final Wanted wanted;
  private final Timeline timeline;
  private final String loopback;
  private final Path files;
  private final List<ForwardingKubeProxy> proxies = new ArrayList<>();
  private final Map<String, String> vmHosts = new ConcurrentHashMap<>();
  private final Set<String> reported = ConcurrentHashMap.newKeySet();
  private CloudControllerManager loadBalancers;
  private SharedIndexInformer<Service> services;

  /**
   * The manifest's CCM runs the kubevirt provider: what it needs from the infrastructure cluster,
   * read from its flags and the Secret volume its cloud config lives in.
   */
  public static Optional<Wanted> wantedBy(String manifest) {
    List<CcmWorkload> workloads;
    try {
      workloads = Doctor.workloads(Manifests.read(manifest, Path.of("the CCM manifest")));
    } catch (ManifestException e) {
      return Optional.empty(); // applying it reports what is wrong with it
    }
    for (CcmWorkload workload : workloads) {
      Optional<Container> container = CcmWorkload.ccmContainer(workload.pod());
      if (container.isEmpty()) {
        continue;
      }
      List<String> words = CcmWorkload.words(container.get());
      if (!words.contains("--cloud-provider=" + PROVIDER)) {
        continue;
      }
      String clusterName = flag(words, "--cluster-name").orElse("kubernetes");
      String cloudConfig = flag(words, "--cloud-config").orElse("/etc/ccm4j/cloud-config");
      String secret = "kubevirt-cloud-config";
      String key = Path.of(cloudConfig).getFileName().toString();
      for (VolumeMount mount : container.get().getVolumeMounts()) {
        if (cloudConfig.startsWith(mount.getMountPath() + "/")) {
          for (Volume volume : workload.pod().getVolumes()) {
            if (volume.getName().equals(mount.getName()) && volume.getSecret() != null) {
              secret = volume.getSecret().getSecretName();
            }
          }
        }
      }
      return Optional.of(new Wanted(clusterName, secret, key));
    }
    return Optional.empty();
  }

  private static Optional<String> flag(List<String> words, String name) {
    return words.stream()
        .filter(w -> w.startsWith(name + "="))
        .map(w -> w.substring(name.length() + 1))
        .findFirst();
  }

  /**
   * The cloud config of a tenant cluster's CCM: the infrastructure cluster's kubeconfig (a relative
   * path is relative to the config file) and namespace, and the infrastructure ingress looked for
   * every second rather than every five.
   */
  public static String cloudConfig(String kubeconfig, String namespace) {
    return """
        kubeconfig: %s
        namespace: %s
        loadBalancer:
          creationPollInterval: 1
        """
        .formatted(kubeconfig, namespace);
  }

  /**
   * Starts the infrastructure cluster (setup, before the clock's zero): its control plane, the
   * KubeVirt CRDs and namespace, three infrastructure nodes (one per zone) with kube-proxies, its
   * own CCM with the {@code local} cloud, and the tenant CCM's ServiceAccount.
   */
  public static KubeVirtInfrastructure start(
      ControlPlaneBinaries binaries,
      Wanted wanted,
      Timeline timeline,
      String loopback,
      PrintStream out)
      throws IOException {
    out.printf(
        "lab: infrastructure cluster: starting Kubernetes %s (kube-apiserver) with KubeVirt's API%n",
        binaries.version());
    LocalControlPlane plane = LocalControlPlane.builder().binaries(binaries).start();
    try {
      return new KubeVirtInfrastructure(plane, binaries, wanted, timeline, loopback);
    } catch (RuntimeException | IOException e) {
      plane.close();
      throw e;
    }
  }

  private KubeVirtInfrastructure(
      LocalControlPlane plane,
      ControlPlaneBinaries binaries,
      Wanted wanted,
      Timeline timeline,
      String loopback)
      throws IOException {
    this.plane = plane;
    this.wanted = wanted;
    this.timeline = timeline;
    this.loopback = loopback;
    this.infra = plane.newClient();
    this.files = Files.createTempDirectory("ccm4j-lab-kubevirt-");
    timeline.record(
        SUBJECT,
        "control plane (Kubernetes %s) ready in %.1f s"
            .formatted(binaries.version(), plane.startTime().toMillis() / 1000.0));
    infra
        .namespaces()
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .createOr(existing -> existing.update());
    virt = new SimulatedVirt(infra, NAMESPACE);
    timeline.record(
        SUBJECT, "KubeVirt API (VirtualMachine, VirtualMachineInstance) in namespace " + NAMESPACE);
    kubelets = new KubeletFleet(infra, KubeletFleet.Options.kubeletDefaults());
    for (int i = 0; i < ZONES.size(); i++) {
      String name = infraNode(i);
      String ip = loopback + "50." + (10 + i);
      kubelets.register(
          NodeSpec.named(name)
              .withNodeIp(ip)
              .withLabels(
                  Map.of(WellKnownLabels.REGION, REGION, WellKnownLabels.ZONE, ZONES.get(i))));
      proxies.add(new ForwardingKubeProxy(infra, name, ip));
      timeline.record(
          name,
          "infrastructure node %s, zone %s (region %s); its kube-proxy forwards node ports to pods"
              .formatted(ip, ZONES.get(i), REGION));
    }
    Path localConfig = files.resolve("local-cloud.yaml");
    Files.writeString(
        localConfig,
        "addressPool: %s100.0/24\nhealthCheck: {interval: 500ms, timeout: 1s}\n"
            .formatted(loopback));
    loadBalancers =
        InProcessManager.start(
            infra,
            "--cloud-provider=local",
            "--cloud-config=" + localConfig,
            "--controllers=cloud-node,service");
    timeline.record(
        SUBJECT,
        "its load balancers: ccm4j with the local cloud on %s100.0/24".formatted(loopback));
    watchServices();
  }

  /** How long the infrastructure control plane took to start. */
  public Duration startTime() {
    return plane.startTime();
  }

  private static String infraNode(int i) {
    return "infra-" + i;
  }

  /**
   * A tenant node's VM: VirtualMachine, VMI and virt-launcher pod on an infrastructure node (round
   * robin over the zones), the VMI reporting {@code ip}, the address the tenant node's kubelet and
   * kube-proxy use. Workers carry {@code cluster.x-k8s.io/role=worker}, so the infrastructure
   * Services select them (K46).
   */
  public void startVm(String name, String ip, boolean worker, String instanceType) {
    int zone = vmHosts.size() % ZONES.size();
    String host = infraNode(zone);
    virt.start(
        new VirtualMachineSpec(
            name, wanted.clusterName(), host, ip, instanceType, false, null, worker, false));
    vmHosts.put(name, host);
    timeline.record(
        name,
        "VM and VMI %s/%s Running on %s (zone %s), IP %s"
            .formatted(NAMESPACE, name, host, ZONES.get(zone), ip));
  }

  /**
   * The tenant's Secret the CCM Deployment mounts: the cloud config and the kubeconfig of the
   * ServiceAccount of {@code infra-rbac.yaml}, created now with exactly those rights.
   */
  public Secret tenantSecret() {
    String manifest = readInfraRbac().replace("tenant-a", NAMESPACE);
    for (HasMetadata object :
        infra.load(new ByteArrayInputStream(manifest.getBytes(StandardCharsets.UTF_8))).items()) {
      infra.resource(object).createOr(existing -> existing.update());
    }
    String token =
        infra
            .serviceAccounts()
            .inNamespace(NAMESPACE)
            .withName(ACCOUNT)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(24 * 3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    timeline.record(
        SUBJECT,
        "ServiceAccount %s/%s with the rights of infra-rbac.yaml; its token in the tenant's Secret kube-system/%s"
            .formatted(NAMESPACE, ACCOUNT, wanted.secretName()));
    Map<String, String> data = new LinkedHashMap<>();
    data.put(wanted.cloudConfigKey(), cloudConfig("infra-kubeconfig", NAMESPACE));
    data.put(
        "infra-kubeconfig",
        plane.kubeconfig("system:serviceaccount:" + NAMESPACE + ":" + ACCOUNT, token));
    return new SecretBuilder()
        .withNewMetadata()
        .withName(wanted.secretName())
        .withNamespace("kube-system")
        .endMetadata()
        .withStringData(data)
        .build();
  }

  private static String readInfraRbac() {
    try (InputStream in = KubeVirtInfrastructure.class.getResourceAsStream(INFRA_RBAC)) {
      if (in == null) {
        throw new IllegalStateException(INFRA_RBAC + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The timeline learns of the infrastructure Services and their load balancers. */
  private void watchServices() {
    services =
        infra
            .services()
            .inNamespace(NAMESPACE)
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Service service) {
                    seen(service);
                  }

                  @Override
                  public void onUpdate(Service oldService, Service service) {
                    seen(service);
                  }

                  @Override
                  public void onDelete(Service service, boolean unknownFinalState) {}
                },
                0);
  }

  private void seen(Service service) {
    String name = service.getMetadata().getName();
    Map<String, String> labels =
        service.getMetadata().getLabels() == null ? Map.of() : service.getMetadata().getLabels();
    String tenant =
        labels.getOrDefault("cluster.x-k8s.io/tenant-service-namespace", "?")
            + "/"
            + labels.getOrDefault("cluster.x-k8s.io/tenant-service-name", "?");
    if (reported.add("created/" + name)) {
      timeline.record(
          SUBJECT,
          "Service %s/%s of type LoadBalancer created by the tenant's CCM for Service %s"
              .formatted(NAMESPACE, name, tenant));
    }
    Optional<String> ip =
        Optional.ofNullable(service.getStatus())
            .map(s -> s.getLoadBalancer())
            .map(lb -> lb.getIngress())
            .flatMap(i -> i.stream().map(LoadBalancerIngress::getIp).findFirst());
    if (ip.isPresent() && reported.add("ingress/" + name)) {
      timeline.record(
          SUBJECT,
          "load balancer %s for Service %s/%s, provisioned by its ccm4j (local cloud)"
              .formatted(ip.get(), NAMESPACE, name));
    }
  }

  /** Topology of the infrastructure node a VM runs on, for the timeline. */
  String zoneOf(String vm) {
    String host = vmHosts.get(vm);
    return host == null ? "?" : ZONES.get(Integer.parseInt(host.substring("infra-".length())));
  }

  /** Forwarded connections per infrastructure node, to tell which one carried a request. */
  Map<String, Long> forwardedConnections() {
    Map<String, Long> counts = new LinkedHashMap<>();
    proxies.forEach(p -> counts.put(p.nodeName(), p.forwardedConnections()));
    return counts;
  }

  /** How a request reached a tenant node, for the traffic check's summary. */
  TrafficCheck.Route route() {
    return new TrafficCheck.Route() {
      private Map<String, Long> before = Map.of();

      @Override
      public void beforeRequest() {
        before = forwardedConnections();
      }

      @Override
      public String via(String answeringNode) {
        String forwardedBy =
            forwardedConnections().entrySet().stream()
                .filter(e -> e.getValue() > before.getOrDefault(e.getKey(), 0L))
                .map(Map.Entry::getKey)
                .findFirst()
                .orElse("an infrastructure node");
        return "the infrastructure load balancer, infrastructure node %s and the virt-launcher pod of VMI %s/%s"
            .formatted(forwardedBy, NAMESPACE, answeringNode);
      }
    };
  }

  @Override
  public void close() {
    if (services != null) {
      services.close();
    }
    if (loadBalancers != null) {
      loadBalancers.close();
    }
    proxies.forEach(ForwardingKubeProxy::close);
    kubelets.close();
    infra.close();
    plane.close();
    try (var paths = Files.walk(files)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }
}
