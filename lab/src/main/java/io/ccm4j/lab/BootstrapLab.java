package io.ccm4j.lab;

import io.ccm4j.app.RunCommand;
import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controlplane.ControlPlaneBinaries;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Scenarios;
import io.ccm4j.provider.local.LocalCloud;
import io.ccm4j.provider.local.LocalCloudProviderFactory;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.simulator.kubelet.KubeletFleet;
import io.ccm4j.simulator.proxy.KubeProxyFleet;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import picocli.CommandLine;

/**
 * Reproduces a cluster's bootstrap on one machine: a real kube-apiserver, kube-scheduler and the
 * workload controllers of kube-controller-manager; simulated kubelets (control-plane and workers)
 * that start NotReady until their CNI is up; a simulated CNI DaemonSet that declares a node's
 * network ready only once the node has cloud addresses; ccm4j's node-lifecycle controller; and the
 * CCM manifest under test. When the scheduler binds a ccm4j pod to a node, the lab runs the real
 * manager in-process with that pod's arguments (with host-network semantics: without hostNetwork a
 * pod cannot start before its node's network is ready).
 *
 * <p>This class starts the clusters and the managers; the nodes are {@link LabNodes}', the play of
 * the pods and the CNI {@link LabPodRuntime}'s, the verdict {@link BootstrapVerdict}'s.
 */
public final class BootstrapLab {

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

  /** What to run. */
  public record Settings(int controlPlaneNodes, int workerNodes, Duration timeout) {}

  private final Settings settings;
  private final PrintStream out;
  private Timeline timeline = new Timeline();
  private final Map<String, CloudControllerManager> managers = new ConcurrentHashMap<>();
  private int managersWithoutElection;
  private final List<ManagerClients> managerClients =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /** The pods said to run another project's CCM as ccm4j's manager (said once each). */
  private final Set<String> announced = ConcurrentHashMap.newKeySet();

  /**
   * This run's addresses on the machine's loopback, {@code 127.<n>.}: nodes in {@code .0.x}
   * (control plane) and {@code .1.x} (workers), load balancers in {@code .100.x}; a block no other
   * lab holds while this one runs ({@link LabLoopback}).
   */
  private String loopback;

  private SimCloud simCloud;
  private volatile boolean serviceControllerRuns;
  private LocalCloud loadBalancers;

  /** The infrastructure cluster, when the CCM under test runs the kubevirt provider; else null. */
  private KubeVirtInfrastructure kubevirt;

  /** The simulated kubelets' container runtime and CNI. */
  private final LabPodRuntime pods = new LabPodRuntime();

  /** The nodes, their addresses (in this run's loopback block) and their instances. */
  private LabNodes machines;

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
    try (LabLoopback block = claimLoopback();
        LocalControlPlane controlPlane =
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
                    .formatted(block.prefix()));
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
      try (LabNodeLifecycle nodeLifecycle = LabNodeLifecycle.start(admin, cloud)) {
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
          LabManifest.apply(admin, LabManifest.objects(admin, manifest, out));
          timeline.record(
              "manifests",
              cloudConfig
                  .map(
                      secret ->
                          "applied RBAC, the CNI DaemonSet, the Secret kube-system/%s (cloud config, infrastructure kubeconfig) and the CCM manifest"
                              .formatted(secret.getMetadata().getName()))
                  .orElse("applied RBAC, the CNI DaemonSet and the CCM manifest"));
          return watch(scenario, admin, kubelets, nodes)
              .withEvidence(
                  LabEvidence.collect(
                      admin,
                      LabEvidence.SIMULATED,
                      pod ->
                          managers.containsKey(pod.getMetadata().getName())
                              ? "the lab's process (the pod's node is simulated)"
                              : "nowhere (not started)"));
        } finally {
          managers.values().forEach(CloudControllerManager::close);
          managerClients.forEach(ManagerClients::close);
          managerClients.clear();
        }
      }
    } finally {
      kubevirt = null;
      deletePodFiles();
    }
  }

  /** This run's block of the loopback, where its nodes and load balancers take their addresses. */
  private LabLoopback claimLoopback() {
    LabLoopback block = LabLoopback.claim();
    loopback = block.prefix();
    machines = new LabNodes(settings.controlPlaneNodes(), settings.workerNodes(), loopback);
    return block;
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

  private String cloudConfig() {
    return machines.cloudConfig();
  }

  private List<String> registerNodes(KubeletFleet kubelets, KubeProxyFleet proxies) {
    return machines.register(kubelets, proxies, timeline, kubevirt);
  }

  private static boolean routedByTheCcm(String manifest) {
    return LabNodes.routedByTheCcm(manifest);
  }

  private void markNetworkUnavailable(KubernetesClient admin, List<String> nodes) {
    LabNodes.markNetworkUnavailable(admin, nodes, timeline);
  }

  private static void apply(KubernetesClient admin, String yaml) {
    for (HasMetadata object :
        admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items()) {
      admin.resource(object).createOr(existing -> existing.update());
    }
  }

  /** Until the verdict: the pods and the CNI played, a bound CCM pod started as a manager. */
  private LabResult watch(
      String scenario, KubernetesClient admin, KubeletFleet kubelets, List<String> nodes)
      throws InterruptedException {
    return new BootstrapVerdict(
            settings.timeout(),
            out,
            timeline,
            kubevirt,
            managers,
            () -> managersWithoutElection,
            () -> serviceControllerRuns,
            pods::waitingPods,
            () -> {
              pods.runBoundPods(admin, timeline, pod -> startManager(admin, pod));
              pods.bringUpNetworks(admin, kubelets, timeline);
            })
        .watch(scenario, admin, nodes);
  }

  private Optional<List<String>> mountSecrets(
      KubernetesClient admin, Pod pod, Container container, List<String> args) {
    return pods.mountSecrets(admin, pod, container, args, timeline);
  }

  private void deletePodFiles() {
    pods.deletePodFiles();
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
    if (announced.add(name)) {
      timeline.record(
          name,
          "runs ccm4j's manager on the lab's sim cloud in place of %s (another project's CCM)"
              .formatted(container.getImage()));
    }
    return args;
  }

  /**
   * Starts a bound CCM pod as a manager; false when it cannot start yet (a Secret it mounts is
   * missing), and is tried again at the next look.
   */
  private boolean startManager(KubernetesClient admin, Pod pod) {
    String name = pod.getMetadata().getName();
    Optional<Container> container = CcmWorkload.ccmContainer(pod.getSpec());
    if (container.isEmpty()) {
      return true;
    }
    Optional<List<String>> mounted =
        mountSecrets(admin, pod, container.get(), managerArguments(name, container.get()));
    if (mounted.isEmpty()) {
      return false;
    }
    List<String> args = mounted.get();
    CloudControllerManager.Settings parsed;
    boolean asServiceAccounts;
    boolean ownCloud;
    try {
      RunCommand run = RunCommand.parse(args.subList(1, args.size()));
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
      return true;
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
    return true;
  }
}
