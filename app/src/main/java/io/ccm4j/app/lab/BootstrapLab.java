package io.ccm4j.app.lab;

import io.ccm4j.app.Ccm4j;
import io.ccm4j.app.RunCommand;
import io.ccm4j.app.bench.BenchContext;
import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import io.ccm4j.controllers.nodelifecycle.NodeLifecycleController;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.controlplane.ControlPlaneBinaries;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Doctor;
import io.ccm4j.doctor.LiveDoctor;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Manifests;
import io.ccm4j.doctor.Rule;
import io.ccm4j.doctor.Scenarios;
import io.ccm4j.provider.local.LocalCloud;
import io.ccm4j.provider.local.LocalCloudProviderFactory;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.kubelet.NodeSpec;
import io.ccm4j.simulator.kubelet.SimulatedKubelet;
import io.ccm4j.simulator.proxy.KubeProxyFleet;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;

/**
 * Reproduces a cluster's bootstrap on one machine: a real kube-apiserver, kube-scheduler and the
 * workload controllers of kube-controller-manager; simulated kubelets (control-plane and workers)
 * that start NotReady until their CNI is up; a simulated CNI DaemonSet that declares a node's
 * network ready only once the node has cloud addresses; ccm4j's node-lifecycle controller; and the
 * CCM manifest under test. When the scheduler binds a ccm4j pod to a node, the lab runs the real
 * manager in-process with that pod's arguments (with host-network semantics: without hostNetwork a
 * pod cannot start before its node's network is ready).
 */
public final class BootstrapLab {

  private static final String NETWORK_NOT_READY =
      "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady"
          + " message:cni plugin not initialized";
  private static final String CNI_DAEMONSET =
      """
      apiVersion: apps/v1
      kind: DaemonSet
      metadata:
        name: sim-cni
        namespace: kube-system
      spec:
        selector:
          matchLabels: {app: sim-cni}
        template:
          metadata:
            labels: {app: sim-cni}
          spec:
            hostNetwork: true
            automountServiceAccountToken: false
            tolerations:
            - operator: Exists
            containers:
            - name: cni
              image: ccm4j/sim-cni:1
      """;

  /** How long a load balancer may take to be provisioned and answer, once bootstrapped. */
  private static final Duration TRAFFIC_BUDGET = Duration.ofSeconds(30);

  /** What to run. */
  public record Settings(int controlPlaneNodes, int workerNodes, Duration timeout) {}

  private final Settings settings;
  private final PrintStream out;
  private Timeline timeline = new Timeline();
  private final Map<String, CloudControllerManager> managers = new ConcurrentHashMap<>();
  private final Set<String> startedPods = ConcurrentHashMap.newKeySet();
  private final Set<String> cniNodes = ConcurrentHashMap.newKeySet();
  private final Set<String> networkReady = ConcurrentHashMap.newKeySet();
  private final Set<String> initialised = ConcurrentHashMap.newKeySet();
  private final Set<String> reported = ConcurrentHashMap.newKeySet();
  private int managersWithoutElection;
  private final List<ManagerClients> managerClients =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * This run's addresses on the machine's loopback, {@code 127.<n>.}: nodes in {@code .0.x}
   * (control plane) and {@code .1.x} (workers), load balancers in {@code .100.x}.
   */
  private final String loopback = "127." + ThreadLocalRandom.current().nextInt(60, 250) + ".";

  private SimCloud simCloud;
  private volatile boolean serviceControllerRuns;
  private LocalCloud loadBalancers;

  /** The infrastructure cluster, when the CCM under test runs the kubevirt provider; else null. */
  private KubeVirtInfrastructure kubevirt;

  /** The files of the Secret volumes the lab mounts for the pods it runs (created when needed). */
  private Path podFiles;

  public BootstrapLab(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  public LabResult run(String scenario, String manifest) throws Exception {
    // Building the binaries on a first run is not part of the bootstrap, nor is starting the
    // control plane: the clock's zero is when the manifests are applied.
    ControlPlaneBinaries binaries = ControlPlaneBinaries.resolve();
    timeline = new Timeline();
    Optional<KubeVirtInfrastructure.Wanted> kubeVirtWanted =
        KubeVirtInfrastructure.wantedBy(manifest);
    out.printf(
        "lab: scenario %s: starting Kubernetes %s (kube-apiserver, kube-scheduler,"
            + " kube-controller-manager)%n",
        scenario, binaries.version());
    try (LocalControlPlane controlPlane =
            LocalControlPlane.builder()
                .binaries(binaries)
                .withScheduler(true)
                .withControllerManager(true)
                .start();
        KubernetesClient admin = controlPlane.newClient();
        KubeletFleet kubelets = new KubeletFleet(admin, KubeletFleet.Options.kubeletDefaults());
        KubeProxyFleet proxies = new KubeProxyFleet(admin);
        LocalCloud local =
            LocalCloudProviderFactory.fromYaml(
                "addressPool: %s100.0/24\nhealthCheck: {interval: 500ms, timeout: 1s}\n"
                    .formatted(loopback));
        KubeVirtInfrastructure infrastructure =
            kubeVirtWanted.isEmpty()
                ? null
                : startInfrastructure(binaries, kubeVirtWanted.get(), controlPlane)) {
      if (infrastructure == null) {
        timeline.record(
            "control plane",
            "ready in %.1f s".formatted(controlPlane.startTime().toMillis() / 1000.0));
      }
      kubevirt = infrastructure;
      SimCloud cloud = SimCloudProviderFactory.fromYaml(cloudConfig());
      simCloud = cloud;
      loadBalancers = local;
      List<String> nodes = registerNodes(kubelets, proxies);
      if (routedByTheCcm(manifest)) {
        markNetworkUnavailable(admin, nodes);
      }
      NodeHealthSettings health =
          new NodeHealthSettings(
              Duration.ofSeconds(1),
              Duration.ofSeconds(40),
              Duration.ofSeconds(60),
              1,
              0.1,
              0.55f,
              50);
      try (BenchContext nodeControllers =
          new BenchContext(
              admin,
              cloud,
              ControllerSettings.defaults()
                  .withConcurrentNodeSyncs(1)
                  .withNodeMonitorPeriod(health.monitorPeriod())
                  .withNodeHealth(health),
              Controllers.NODE_LIFECYCLE)) {
        NodeLifecycleController nodeLifecycle =
            new NodeLifecycleController(nodeControllers.context);
        nodeControllers.context.informers().startAllRegisteredInformers().get();
        nodeLifecycle.start();
        timeline.record("node-lifecycle", "watching node health");
        try {
          // The bootstrap starts here: the control plane's start and the kubelets' registration
          // before it are setup, shown at negative times.
          Optional<Secret> cloudConfig = Optional.ofNullable(kubevirt).map(k -> k.tenantSecret());
          timeline.startBootstrap();
          apply(admin, Scenarios.rbac());
          apply(admin, CNI_DAEMONSET);
          cloudConfig.ifPresent(
              secret -> admin.resource(secret).createOr(existing -> existing.update()));
          apply(admin, manifest);
          timeline.record(
              "manifests",
              cloudConfig
                  .map(
                      secret ->
                          "applied RBAC, the CNI DaemonSet, the Secret kube-system/%s (cloud config, infrastructure kubeconfig) and the CCM manifest"
                              .formatted(secret.getMetadata().getName()))
                  .orElse("applied RBAC, the CNI DaemonSet and the CCM manifest"));
          return watch(scenario, admin, kubelets, nodes);
        } finally {
          managers.values().forEach(CloudControllerManager::close);
          managerClients.forEach(ManagerClients::close);
          managerClients.clear();
          nodeLifecycle.close();
        }
      }
    } finally {
      kubevirt = null;
      deletePodFiles();
    }
  }

  /**
   * The infrastructure cluster of a CCM that runs the kubevirt provider, started after the tenant's
   * control plane: both starts are setup.
   */
  private KubeVirtInfrastructure startInfrastructure(
      ControlPlaneBinaries binaries, KubeVirtInfrastructure.Wanted wanted, LocalControlPlane tenant)
      throws IOException {
    timeline.record(
        "control plane", "ready in %.1f s".formatted(tenant.startTime().toMillis() / 1000.0));
    out.printf(
        "lab: tenant cluster: Kubernetes %s ready in %.1f s%n",
        binaries.version(), tenant.startTime().toMillis() / 1000.0);
    KubeVirtInfrastructure infrastructure =
        KubeVirtInfrastructure.start(binaries, wanted, timeline, loopback, out);
    out.printf(
        "lab: infrastructure cluster: Kubernetes %s ready in %.1f s; the tenant's nodes are"
            + " its VMs, its load balancers ccm4j's local cloud%n",
        binaries.version(), infrastructure.startTime().toMillis() / 1000.0);
    return infrastructure;
  }

  /**
   * Whether the CCM of the manifest creates the routes of the pod network (the Azure pattern): the
   * lab's nodes then start NetworkUnavailable, as such a cluster's do until the routes exist.
   */
  private static boolean routedByTheCcm(String manifest) {
    try {
      return Doctor.workloads(Manifests.read(manifest, Path.of("the CCM manifest"))).stream()
          .anyMatch(CcmWorkload::createsRoutes);
    } catch (ManifestException e) {
      return false; // applying it reports what is wrong with it
    }
  }

  /** NetworkUnavailable until the route controller has created each node's route. */
  private void markNetworkUnavailable(KubernetesClient admin, List<String> nodes) {
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

  private String cloudConfig() {
    StringBuilder yaml = new StringBuilder("instances:\n");
    for (int i = 0; i < settings.controlPlaneNodes(); i++) {
      yaml.append(
          "  - {name: cp-%d, region: lab, zone: lab-%d, instanceType: sim.large, addresses: [%s]}\n"
              .formatted(i, i % 3, controlPlaneIp(i)));
    }
    for (int i = 0; i < settings.workerNodes(); i++) {
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
  private List<String> registerNodes(KubeletFleet kubelets, KubeProxyFleet proxies) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < settings.controlPlaneNodes(); i++) {
      String name = "cp-" + i;
      kubelets.register(
          onVm(name, controlPlaneIp(i), false)
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
    for (int i = 0; i < settings.workerNodes(); i++) {
      String name = "worker-" + i;
      kubelets.register(onVm(name, workerIp(i), true).withNotReady(NETWORK_NOT_READY));
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
  private NodeSpec onVm(String name, String ip, boolean worker) {
    if (kubevirt == null) {
      return NodeSpec.named(name);
    }
    kubevirt.startVm(name, ip, worker, worker ? "u1.small" : "u1.large");
    return NodeSpec.named(name).withNodeIp(ip);
  }

  private static void apply(KubernetesClient admin, String yaml) {
    for (HasMetadata object :
        admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items()) {
      admin.resource(object).createOr(existing -> existing.update());
    }
  }

  private LabResult watch(
      String scenario, KubernetesClient admin, KubeletFleet kubelets, List<String> nodes)
      throws InterruptedException {
    long deadline = System.nanoTime() + settings.timeout().toNanos();
    long nextProgress = 0;
    while (System.nanoTime() < deadline) {
      runBoundPods(admin);
      bringUpNetworks(admin, kubelets);
      int ready = trackNodes(admin, nodes);
      long active = managers.values().stream().filter(CloudControllerManager::isLeader).count();
      if (active > 1
          && admin.leases().inNamespace("kube-system").withName("cloud-controller-manager").get()
              == null) {
        double at = timeline.elapsedSeconds();
        timeline.record("verdict", "collision");
        return new LabResult(
            scenario,
            LabResult.COLLISION,
            at,
            List.of(
                "%d cloud-controller-managers are active at once and none holds the Lease kube-system/cloud-controller-manager"
                        .formatted(active)
                    + " (%d run with --leader-elect=false): each initialises nodes and would program load balancers"
                        .formatted(managersWithoutElection)
                    + " and routes on its own."),
            timeline,
            Optional.empty());
      }
      if (ready == nodes.size() && initialised.size() == nodes.size()) {
        double at = timeline.elapsedSeconds();
        timeline.record("verdict", "bootstrapped");
        return new LabResult(
            scenario, LabResult.BOOTSTRAPPED, at, List.of(), timeline, checkTraffic(admin));
      }
      if (System.nanoTime() > nextProgress) {
        List<Pod> ccmPods =
            admin.pods().inNamespace("kube-system").list().getItems().stream()
                .filter(p -> CcmWorkload.runsCcm(p.getSpec()))
                .toList();
        out.printf(
            "lab: %5.1f s  nodes initialised %d/%d, Ready %d/%d; CCM pods scheduled %d/%d, managers running %d;"
                + " uninitialized taints left %d%n",
            timeline.elapsedSeconds(),
            initialised.size(),
            nodes.size(),
            ready,
            nodes.size(),
            ccmPods.stream().filter(p -> p.getSpec().getNodeName() != null).count(),
            ccmPods.size(),
            managers.size(),
            nodes.size() - initialised.size());
        nextProgress = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      }
      Thread.sleep(200);
    }
    List<String> explanation = new ArrayList<>();
    for (LiveDoctor.Observation observation :
        new LiveDoctor(admin, Duration.ZERO, "kube-system", "cloud-controller-manager")
            .diagnose()) {
      if (observation.severity() == Rule.Severity.ERROR
          && !observation.what().startsWith("node ")) {
        explanation.add(observation.what() + ": " + observation.detail());
      }
    }
    double at = timeline.elapsedSeconds();
    timeline.record("verdict", "deadlocked");
    return new LabResult(
        scenario, LabResult.DEADLOCKED, at, explanation, timeline, Optional.empty());
  }

  /**
   * After the bootstrap, a request through a load balancer the CCM provisions must reach a node;
   * not checked when no CCM runs the service controller ({@code --controllers} without it).
   */
  private Optional<LabResult.Traffic> checkTraffic(KubernetesClient admin)
      throws InterruptedException {
    if (!serviceControllerRuns) {
      timeline.record("traffic", "not checked: no CCM runs the service controller");
      return Optional.empty();
    }
    LabResult.Traffic traffic =
        new TrafficCheck(
                admin,
                timeline,
                TRAFFIC_BUDGET,
                kubevirt == null ? TrafficCheck.Route.LOAD_BALANCER : kubevirt.route())
            .run();
    out.printf("lab: %5.1f s  %s%n", timeline.elapsedSeconds(), traffic.summary());
    return Optional.of(traffic);
  }

  /**
   * The simulated kubelets' container runtime: start what the scheduler bound, if its network
   * allows.
   */
  private void runBoundPods(KubernetesClient admin) {
    for (Pod pod : admin.pods().inNamespace("kube-system").list().getItems()) {
      String name = pod.getMetadata().getName();
      String node = pod.getSpec().getNodeName();
      if (node == null) {
        recordUnschedulable(pod);
        continue;
      }
      if (startedPods.contains(name)) {
        continue;
      }
      boolean hostNetwork = Boolean.TRUE.equals(pod.getSpec().getHostNetwork());
      if (!hostNetwork && !networkReady.contains(node)) {
        if (reported.add("waiting/" + name)) {
          timeline.record(name, "bound to %s, waiting for the pod network".formatted(node));
        }
        continue;
      }
      startedPods.add(name);
      admin
          .pods()
          .inNamespace("kube-system")
          .withName(name)
          .subresource("status")
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              "{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"},{\"type\":\"PodScheduled\",\"status\":\"True\"}]}}");
      if (name.startsWith("sim-cni")) {
        cniNodes.add(node);
        timeline.record(node, "CNI pod running");
      } else if (CcmWorkload.runsCcm(pod.getSpec())) {
        startManager(admin, pod);
      }
    }
  }

  /** A pod the scheduler could not place, once, with the scheduler's words. */
  private void recordUnschedulable(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return;
    }
    pod.getStatus().getConditions().stream()
        .filter(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()))
        .filter(c -> "Unschedulable".equals(c.getReason()))
        .findFirst()
        .filter(c -> reported.add("pending/" + pod.getMetadata().getName()))
        .ifPresent(
            c ->
                timeline.record(
                    pod.getMetadata().getName(), "pending: the scheduler says: " + c.getMessage()));
  }

  /**
   * ccm4j's own manifests run {@code run ...}: the lab runs the manager with exactly those
   * arguments. Another project's CCM (its own image and flags) is run as ccm4j's manager on the
   * lab's sim cloud in its place, keeping the flags that shape the bootstrap (leader election,
   * {@code --controllers}, {@code --use-service-account-credentials}): the verdict is about
   * scheduling and bootstrap, which the manifest decides, not about that cloud.
   */
  private List<String> managerArguments(String name, Container container) {
    List<String> words = CcmWorkload.words(container);
    if (!words.isEmpty() && words.getFirst().equals("run")) {
      return words;
    }
    List<String> args = new ArrayList<>(List.of("run", "--cloud-provider=sim"));
    for (String word : words) {
      if (word.startsWith("--leader-elect")
          || word.startsWith("--controllers=")
          || word.startsWith("--use-service-account-credentials")) {
        args.add(word);
      }
    }
    timeline.record(
        name,
        "runs ccm4j's manager on the lab's sim cloud in place of %s (another project's CCM)"
            .formatted(container.getImage()));
    return args;
  }

  private void startManager(KubernetesClient admin, Pod pod) {
    String name = pod.getMetadata().getName();
    Optional<Container> container = CcmWorkload.ccmContainer(pod.getSpec());
    if (container.isEmpty()) {
      return;
    }
    Optional<List<String>> mounted =
        mountSecrets(admin, pod, container.get(), managerArguments(name, container.get()));
    if (mounted.isEmpty()) {
      return;
    }
    List<String> args = mounted.get();
    CommandLine command = new CommandLine(new Ccm4j());
    CloudControllerManager.Settings parsed;
    boolean asServiceAccounts;
    boolean ownCloud;
    try {
      CommandLine.ParseResult result = command.parseArgs(args.toArray(String[]::new));
      RunCommand run = (RunCommand) result.subcommand().commandSpec().userObject();
      // With the KubeVirt infrastructure, the pod's own provider (kubevirt, from its cloud
      // config); otherwise the lab's cloud in place of the pod's, which is not even created.
      ownCloud =
          kubevirt != null && KubeVirtInfrastructure.PROVIDER.equals(run.cloudProviderName());
      parsed = ownCloud ? run.settings() : run.settings(new LabCloud(simCloud, loadBalancers));
      asServiceAccounts = run.useServiceAccountCredentials();
      if (run.cloudProviderName() == null || run.cloudProviderName().isBlank()) {
        timeline.record(
            name,
            "names no --cloud-provider (a cluster's operator adds theirs): runs on the lab's cloud");
      }
    } catch (CommandLine.ParameterException e) {
      timeline.record(name, "ccm4j run refused its arguments: " + e.getMessage());
      return;
    }
    // The lab's cloud and identity; no serving port, since every "node" shares this host.
    Optional<LeaderElection.Settings> election =
        parsed.leaderElection().map(le -> le.withIdentity(name + "_" + UUID.randomUUID()));
    if (ownCloud) {
      timeline.record(
          name,
          "cloud: %s, the infrastructure cluster's namespace %s"
              .formatted(KubeVirtInfrastructure.PROVIDER, KubeVirtInfrastructure.NAMESPACE));
    }
    // --use-service-account-credentials: each controller writes as upstream's ServiceAccount for
    // it (node-controller, service-controller, route-controller), with tokens the manager requests.
    ManagerClients clients =
        asServiceAccounts
            ? ManagerClients.create(admin.getConfiguration(), 20, 30, true)
            : ManagerClients.sharing(admin);
    managerClients.add(clients);
    CloudControllerManager manager =
        CloudControllerManager.builder(clients)
            .settings(parsed)
            .leaderElection(election)
            .noServing()
            .exit(code -> timeline.record(name, "manager exited with " + code))
            .build();
    if (asServiceAccounts) {
      timeline.record(name, "controllers write as their ServiceAccounts in kube-system");
    }
    managers.put(name, manager);
    if (parsed.selection().isEnabled(Controllers.SERVICE_LB.name())) {
      serviceControllerRuns = true;
    }
    if (election.isEmpty()) {
      managersWithoutElection++;
    }
    manager.start();
    timeline.record(
        name,
        "ccm4j manager started on %s%s"
            .formatted(
                pod.getSpec().getNodeName(), election.isEmpty() ? " (no leader election)" : ""));
  }

  /**
   * The simulated CNI: a node's network is ready once its CNI pod runs and the node has an address.
   */
  private void bringUpNetworks(KubernetesClient admin, KubeletFleet kubelets) {
    for (String node : cniNodes) {
      if (networkReady.contains(node)) {
        continue;
      }
      Node current = admin.nodes().withName(node).get();
      boolean hasAddress =
          current != null
              && current.getStatus().getAddresses() != null
              && current.getStatus().getAddresses().stream()
                  .anyMatch(a -> "InternalIP".equals(a.getType()));
      if (hasAddress) {
        networkReady.add(node);
        SimulatedKubelet kubelet = kubelets.kubelet(node);
        kubelet.setReady(true, "kubelet is posting ready status");
        timeline.record(node, "network ready (CNI has the node address); kubelet Ready");
      }
    }
  }

  private static String label(Node node, String key) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return labels == null ? "none" : labels.getOrDefault(key, "none");
  }

  /**
   * The kubelet's part for Secret volumes: the Secret's keys become files of a directory of this
   * machine, and the container's arguments name that directory instead of the mount path. Empty
   * when a Secret is missing (the pod does not start).
   */
  private Optional<List<String>> mountSecrets(
      KubernetesClient admin, Pod pod, Container container, List<String> args) {
    List<String> mounted = new ArrayList<>(args);
    String podName = pod.getMetadata().getName();
    List<Volume> volumes =
        pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
    List<VolumeMount> mounts =
        container.getVolumeMounts() == null ? List.of() : container.getVolumeMounts();
    for (VolumeMount mount : mounts) {
      Optional<Volume> volume =
          volumes.stream()
              .filter(v -> v.getName().equals(mount.getName()) && v.getSecret() != null)
              .findFirst();
      if (volume.isEmpty()) {
        continue;
      }
      String secretName = volume.get().getSecret().getSecretName();
      Secret secret =
          admin.secrets().inNamespace(pod.getMetadata().getNamespace()).withName(secretName).get();
      if (secret == null) {
        timeline.record(
            podName,
            "cannot start: Secret %s of volume %s not found"
                .formatted(secretName, mount.getName()));
        return Optional.empty();
      }
      try {
        Path dir = podFiles().resolve(podName).resolve(mount.getName());
        Files.createDirectories(dir);
        if (secret.getData() != null) {
          for (Map.Entry<String, String> entry : secret.getData().entrySet()) {
            Files.write(dir.resolve(entry.getKey()), Base64.getDecoder().decode(entry.getValue()));
          }
        }
        String mountPath = mount.getMountPath().replaceAll("/+$", "");
        mounted.replaceAll(word -> word.replace(mountPath + "/", dir + "/"));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write the files of Secret " + secretName, e);
      }
      timeline.record(
          podName, "Secret %s mounted at %s".formatted(secretName, mount.getMountPath()));
    }
    return Optional.of(mounted);
  }

  private synchronized Path podFiles() throws IOException {
    if (podFiles == null) {
      podFiles = Files.createTempDirectory("ccm4j-lab-pods-");
    }
    return podFiles;
  }

  private synchronized void deletePodFiles() {
    if (podFiles == null) {
      return;
    }
    try (var paths = Files.walk(podFiles)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
    podFiles = null;
  }

  /** Records initialisation and leadership; returns how many nodes are Ready. */
  private int trackNodes(KubernetesClient admin, List<String> nodes) {
    int ready = 0;
    for (String name : nodes) {
      Node node = admin.nodes().withName(name).get();
      if (node == null) {
        continue;
      }
      boolean tainted = Taints.hasKey(node, WellKnownTaints.UNINITIALIZED);
      if (!tainted && initialised.add(name)) {
        timeline.record(
            name,
            kubevirt == null
                ? "initialised by the CCM (%s)".formatted(node.getSpec().getProviderID())
                : "initialised from its VMI by the CCM (%s, zone %s, region %s)"
                    .formatted(
                        node.getSpec().getProviderID(),
                        label(node, WellKnownLabels.ZONE),
                        label(node, WellKnownLabels.REGION)));
      }
      boolean isReady =
          node.getStatus().getConditions().stream()
              .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
      if (isReady) {
        ready++;
      }
    }
    managers.forEach(
        (pod, manager) -> {
          if (manager.isLeader() && reported.add("leader/" + pod)) {
            timeline.record(pod, "leads");
          }
        });
    return ready;
  }
}
