package io.ccm4j.lab.real;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.ccm4j.app.Ccm4j;
import io.ccm4j.app.RunCommand;
import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import io.ccm4j.controllers.nodelifecycle.NodeLifecycleController;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controlplane.ControlPlaneBinaries;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Doctor;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Manifests;
import io.ccm4j.doctor.Scenarios;
import io.ccm4j.lab.BenchContext;
import io.ccm4j.lab.LabCloud;
import io.ccm4j.lab.LabResult;
import io.ccm4j.lab.Timeline;
import io.ccm4j.provider.local.LocalCloud;
import io.ccm4j.provider.local.LocalCloudProviderFactory;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * {@code ccm4j lab --kubelets real}: the bootstrap on real nodes. A real kube-apiserver,
 * kube-scheduler and kube-controller-manager as in the simulated lab, and instead of simulated
 * kubelets two control-plane nodes (labelled and tainted as kubeadm does) and two workers, each a
 * real kubelet of the control plane's release with its own containerd ({@link RealCluster}),
 * registered with {@code --cloud-provider=external}. When a real kubelet runs a CCM pod of the
 * manifest (the scheduler bound it, and the kubelet started its container, a stand-in that sleeps
 * under the pod's image name), the lab runs ccm4j's manager in its own process with that pod's
 * arguments on the lab's cloud; bootstrapped when the CCM has initialised every node, a collision
 * when two managers run without leader election. Then a busybox httpd Deployment (host network)
 * runs on the workers and a request from the cluster network to a worker's address must be
 * answered.
 *
 * <p>Not yet on real nodes: a CNI (nodes stay NotReady, pods use the host network), kube-proxy and
 * the {@code local} load balancers (the request goes to the node, not through a load balancer), the
 * CCM's own image as the pod.
 */
public final class RealNodesLab {

  /** The HTTP server's port on the workers (host network). */
  static final int HTTP_PORT = 8080;

  private static final String WEB =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
        namespace: default
      spec:
        replicas: 2
        selector:
          matchLabels: {app: web}
        template:
          metadata:
            labels: {app: web}
          spec:
            hostNetwork: true
            automountServiceAccountToken: false
            terminationGracePeriodSeconds: 1
            # no CNI on the lab's real nodes yet: they stay NotReady
            tolerations:
            - {key: node.kubernetes.io/not-ready, operator: Exists}
            affinity:
              podAntiAffinity:
                requiredDuringSchedulingIgnoredDuringExecution:
                - topologyKey: kubernetes.io/hostname
                  labelSelector:
                    matchLabels: {app: web}
            containers:
            - name: httpd
              image: %s
              imagePullPolicy: Never
              command:
              - /bin/sh
              - -c
              - mkdir -p /tmp/www && echo "answered by $(hostname)" > /tmp/www/index.html && exec httpd -f -p %d -h /tmp/www
      """
          .formatted(RealNodeFiles.BUSYBOX_IMAGE, HTTP_PORT);

  private final Duration timeout;
  private final PrintStream out;
  private final Path reportDirectory;
  private final Timeline timeline = new Timeline();
  private final Map<String, CloudControllerManager> managers = new LinkedHashMap<>();
  private final List<ManagerClients> managerClients = new ArrayList<>();
  private final Set<String> startedPods = new LinkedHashSet<>();

  private int managersWithoutElection;
  private SimCloud simCloud;
  private LocalCloud loadBalancers;

  public RealNodesLab(Duration timeout, PrintStream out, Path reportDirectory) {
    this.timeout = timeout;
    this.out = out;
    this.reportDirectory = reportDirectory;
  }

  /** The nodes: their names, addresses on the cluster network and extra kubelet flags. */
  static List<RealCluster.Node> nodes() {
    return List.of(
        new RealCluster.Node("cp-0", "10.77.0.10", RealNodeFiles.controlPlaneKubeletFlags()),
        new RealCluster.Node("cp-1", "10.77.0.11", RealNodeFiles.controlPlaneKubeletFlags()),
        new RealCluster.Node("worker-0", "10.77.0.20", List.of()),
        new RealCluster.Node("worker-1", "10.77.0.21", List.of()));
  }

  /** The sim cloud's instances: one per node, with the node's address on the cluster network. */
  static String cloudConfig(List<RealCluster.Node> nodes) {
    StringBuilder yaml = new StringBuilder("instances:\n");
    int i = 0;
    for (RealCluster.Node node : nodes) {
      boolean controlPlane = node.name().startsWith("cp-");
      yaml.append(
          "  - {name: %s, region: lab, zone: lab-%d, instanceType: %s, addresses: [%s]}\n"
              .formatted(
                  node.name(), i++ % 3, controlPlane ? "sim.large" : "sim.small", node.ip()));
    }
    return yaml.toString();
  }

  /**
   * Runs the bootstrap.
   *
   * @throws RealNodesUnavailableException when this machine cannot run real nodes (one line)
   */
  public LabResult run(String scenario, String manifest) throws Exception {
    Optional<String> missing = RealNodeCapabilities.missingHere();
    if (missing.isPresent()) {
      throw new RealNodesUnavailableException(missing.get());
    }
    ControlPlaneBinaries binaries = ControlPlaneBinaries.resolveWithNodeBinaries();
    out.printf(
        "lab: scenario %s on real kubelets: starting Kubernetes %s (kube-apiserver,"
            + " kube-scheduler, kube-controller-manager) and four real nodes%n",
        scenario, binaries.version());
    List<RealCluster.Node> nodes = nodes();
    String loopback = "127." + ThreadLocalRandom.current().nextInt(60, 250) + ".";
    try (LocalControlPlane controlPlane =
            LocalControlPlane.builder()
                .binaries(binaries)
                .withScheduler(true)
                .withControllerManager(true)
                .start();
        KubernetesClient admin = controlPlane.newClient();
        LocalCloud local =
            LocalCloudProviderFactory.fromYaml(
                "addressPool: %s100.0/24\nhealthCheck: {interval: 500ms, timeout: 1s}\n"
                    .formatted(loopback));
        RealCluster cluster = RealCluster.open(binaries.directory(), ccmImages(admin, manifest))) {
      timeline.record(
          "control plane",
          "ready in %.1f s".formatted(controlPlane.startTime().toMillis() / 1000.0));
      simCloud = SimCloudProviderFactory.fromYaml(cloudConfig(nodes));
      loadBalancers = local;
      try {
        cluster.startNetwork(URI.create(controlPlane.serverUrl()).getPort());
        timeline.record(
            "cluster network",
            "bridge %s/24 in a network namespace of the lab's own; the API server relayed to %s:6443"
                .formatted(RealNodeFiles.GATEWAY, RealNodeFiles.GATEWAY));
        String adminKubeconfig = Files.readString(controlPlane.kubeconfigPath());
        for (RealCluster.Node node : nodes) {
          cluster.startNode(node, adminKubeconfig);
          Node registered = awaitNode(admin, node.name(), cluster);
          timeline.record(
              node.name(),
              "real kubelet %s registered, %s, taints: %s"
                  .formatted(
                      registered.getStatus().getNodeInfo().getKubeletVersion(),
                      registered.getStatus().getNodeInfo().getContainerRuntimeVersion(),
                      taintKeys(registered)));
          out.printf("lab: %s: real kubelet registered at %s%n", node.name(), node.ip());
        }
        for (RealCluster.Node node : nodes) {
          if (node.name().startsWith("cp-")) {
            labelControlPlane(admin, node.name());
          }
        }
        if (routedByTheCcm(manifest)) {
          // as such a cluster's network plugin marks its nodes until their routes exist
          for (RealCluster.Node node : nodes) {
            NodePatches.patchCondition(
                admin,
                node.name(),
                NodeConditions.NETWORK_UNAVAILABLE,
                "True",
                "NoRouteCreated",
                "waiting for the route of the node's pod CIDR");
            timeline.record(
                node.name(), "NetworkUnavailable until its route exists (routes by the CCM)");
          }
        }
        // The node-lifecycle controller, as in the simulated lab (the control plane's
        // kube-controller-manager runs only workload controllers): the taints of the nodes'
        // conditions (not-ready, network-unavailable) come from it.
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
            new BenchContext(admin, simCloud, Controllers.NODE_LIFECYCLE)) {
          NodeLifecycleController nodeLifecycle =
              new NodeLifecycleController(nodeControllers.context, health);
          nodeControllers.context.informers().startAllRegisteredInformers().get();
          nodeLifecycle.start();
          timeline.record("node-lifecycle", "watching node health");
          try {
            timeline.startBootstrap();
            apply(admin, Scenarios.rbac());
            apply(admin, manifest);
            timeline.record("manifests", "applied RBAC and the CCM manifest");
            LabResult result = watch(scenario, admin, cluster, nodes);
            writeJson(result, admin);
            return result;
          } finally {
            managers.values().forEach(CloudControllerManager::close);
            managers.clear();
            nodeLifecycle.close();
          }
        }
      } finally {
        managers.values().forEach(CloudControllerManager::close);
        managerClients.forEach(ManagerClients::close);
      }
    }
  }

  private LabResult watch(
      String scenario, KubernetesClient admin, RealCluster cluster, List<RealCluster.Node> nodes)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Set<String> initialised = new LinkedHashSet<>();
    while (System.nanoTime() < deadline) {
      for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
        if (runsOnItsNode(pod) && startedPods.add(pod.getMetadata().getName())) {
          startManager(admin, pod);
        }
      }
      for (RealCluster.Node node : nodes) {
        Node current = admin.nodes().withName(node.name()).get();
        if (current != null
            && !taintKeys(current).contains(WellKnownTaints.UNINITIALIZED)
            && initialised.add(node.name())) {
          timeline.record(
              node.name(),
              "initialised by the CCM: providerID %s, addresses %s"
                  .formatted(current.getSpec().getProviderID(), addresses(current)));
          out.printf("lab: %s initialised by the CCM%n", node.name());
        }
      }
      if (managersWithoutElection >= 2) {
        double seconds = timeline.elapsedSeconds();
        List<String> explanation =
            List.of(
                "collision: %d CCM replicas run without leader election, each acting on every node"
                    .formatted(managersWithoutElection));
        timeline.record("verdict", explanation.getFirst());
        return new LabResult(
            scenario, LabResult.COLLISION, seconds, explanation, timeline, Optional.empty());
      }
      if (initialised.size() == nodes.size()) {
        double seconds = timeline.elapsedSeconds();
        timeline.record("verdict", "bootstrapped: the CCM initialised every real node");
        Optional<LabResult.Traffic> traffic = Optional.of(serveFromWorkers(admin, cluster));
        return new LabResult(
            scenario, LabResult.BOOTSTRAPPED, seconds, List.of(), timeline, traffic);
      }
      Thread.sleep(200);
    }
    double seconds = timeline.elapsedSeconds();
    List<String> explanation = new ArrayList<>();
    for (RealCluster.Node node : nodes) {
      if (!initialised.contains(node.name())) {
        explanation.add(
            "%s: still %s (its real kubelet registered it so; only a CCM removes it)"
                .formatted(node.name(), WellKnownTaints.UNINITIALIZED));
      }
    }
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      if (CcmWorkload.ccmContainer(pod.getSpec()).isPresent()
          && pod.getSpec().getNodeName() == null) {
        explanation.add(
            "CCM pod %s is not scheduled: %s"
                .formatted(pod.getMetadata().getName(), unschedulable(pod)));
      }
    }
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      if (CcmWorkload.ccmContainer(pod.getSpec()).isPresent()
          && pod.getSpec().getNodeName() != null
          && !startedPods.contains(pod.getMetadata().getName())) {
        explanation.add(
            "CCM pod %s is bound to %s but its real kubelet does not run it: %s"
                .formatted(
                    pod.getMetadata().getName(), pod.getSpec().getNodeName(), waiting(admin, pod)));
      }
    }
    if (startedPods.isEmpty()) {
      explanation.add("no CCM pod runs on a real node, so no CCM runs");
    }
    timeline.record("verdict", "deadlocked: " + String.join("; ", explanation));
    return new LabResult(
        scenario, LabResult.DEADLOCKED, seconds, explanation, timeline, Optional.empty());
  }

  /**
   * The web Deployment on the workers, and one request to each of them from the cluster network.
   */
  private LabResult.Traffic serveFromWorkers(KubernetesClient admin, RealCluster cluster)
      throws InterruptedException, IOException {
    apply(admin, WEB);
    timeline.record("web", "busybox httpd Deployment (host network, 2 replicas) applied");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    List<Pod> running = List.of();
    while (System.nanoTime() < deadline) {
      running =
          admin.pods().inNamespace("default").withLabel("app", "web").list().getItems().stream()
              .filter(p -> "Running".equals(p.getStatus().getPhase()))
              .toList();
      if (running.size() == 2) {
        break;
      }
      Thread.sleep(200);
    }
    if (running.isEmpty()) {
      return new LabResult.Traffic(false, "no busybox httpd pod ran on a real worker within 60 s");
    }
    List<String> answers = new ArrayList<>();
    for (Pod pod : running) {
      String ip = pod.getStatus().getPodIP();
      timeline.record(
          pod.getSpec().getNodeName(), "web pod %s running".formatted(pod.getMetadata().getName()));
      String response = cluster.httpGet(ip, HTTP_PORT);
      String body =
          response.contains("\r\n\r\n")
              ? response.substring(response.indexOf("\r\n\r\n") + 4).strip()
              : "";
      if (!response.startsWith("HTTP/1.") || !response.contains(" 200 ") || body.isEmpty()) {
        return new LabResult.Traffic(
            false,
            "GET http://%s:%d/ from the cluster network: %s"
                .formatted(ip, HTTP_PORT, response.isBlank() ? "no answer" : response.strip()));
      }
      answers.add("%s:%d %s".formatted(ip, HTTP_PORT, body));
      timeline.record(pod.getSpec().getNodeName(), "httpd " + body);
    }
    return new LabResult.Traffic(
        true,
        "real pods answered GET / on the workers' addresses (host network; no load balancer or"
            + " kube-proxy on real nodes yet): "
            + String.join(", ", answers));
  }

  private Node awaitNode(KubernetesClient admin, String name, RealCluster cluster)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      Node node = admin.nodes().withName(name).get();
      if (node != null && node.getStatus() != null && node.getStatus().getNodeInfo() != null) {
        return node;
      }
      Thread.sleep(100);
    }
    throw new IOException(
        "the kubelet of %s did not register within 60 s; see %s"
            .formatted(name, cluster.nodeDirectory(name).resolve("kubelet.log")));
  }

  /** Whether the manifest's CCM creates the pod network's routes (the Azure pattern). */
  private static boolean routedByTheCcm(String manifest) {
    try {
      return Doctor.workloads(Manifests.read(manifest, Path.of("the CCM manifest"))).stream()
          .anyMatch(CcmWorkload::createsRoutes);
    } catch (ManifestException e) {
      return false; // applying it reports what is wrong with it
    }
  }

  /** As kubeadm labels its control-plane nodes (it taints them through the kubelet's flag). */
  private void labelControlPlane(KubernetesClient admin, String name) {
    admin
        .nodes()
        .withName(name)
        .edit(
            node -> {
              node.getMetadata().getLabels().put(WellKnownLabels.ROLE_CONTROL_PLANE, "");
              node.getMetadata()
                  .getLabels()
                  .put(WellKnownLabels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS, "");
              return node;
            });
    timeline.record(name, "labelled as kubeadm does: control-plane, excluded from load balancers");
  }

  /**
   * The images of the manifest's CCM containers: each node gets a stand-in under that name, so that
   * the kubelet "runs" the pod while the lab runs its manager.
   */
  private static List<String> ccmImages(KubernetesClient admin, String manifest) {
    List<String> images = new ArrayList<>();
    for (HasMetadata object : load(admin, manifest)) {
      PodSpec spec =
          switch (object) {
            case Deployment d -> d.getSpec().getTemplate().getSpec();
            case DaemonSet d -> d.getSpec().getTemplate().getSpec();
            case Pod p -> p.getSpec();
            default -> null;
          };
      if (spec != null) {
        CcmWorkload.ccmContainer(spec)
            .map(Container::getImage)
            .filter(Objects::nonNull)
            .ifPresent(images::add);
      }
    }
    return images.stream().distinct().toList();
  }

  private static List<HasMetadata> load(KubernetesClient admin, String yaml) {
    return admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items();
  }

  private static void apply(KubernetesClient admin, String yaml) {
    for (HasMetadata object : load(admin, yaml)) {
      admin.resource(object).createOr(existing -> existing.update());
    }
  }

  /** ccm4j's manager in this process with the pod's arguments, on the lab's cloud. */
  private void startManager(KubernetesClient admin, Pod pod) {
    String name = pod.getMetadata().getName();
    Container container = CcmWorkload.ccmContainer(pod.getSpec()).orElseThrow();
    List<String> words = CcmWorkload.words(container);
    List<String> args = new ArrayList<>();
    if (!words.isEmpty() && words.getFirst().equals("run")) {
      args.addAll(words);
    } else {
      args.addAll(List.of("run", "--cloud-provider=sim"));
      words.stream()
          .filter(
              w ->
                  w.startsWith("--leader-elect")
                      || w.startsWith("--controllers=")
                      || w.startsWith("--use-service-account-credentials"))
          .forEach(args::add);
      timeline.record(
          name,
          "runs ccm4j's manager on the lab's cloud in place of %s (another project's CCM)"
              .formatted(container.getImage()));
    }
    CloudControllerManager.Settings settings;
    boolean asServiceAccounts;
    try {
      CommandLine.ParseResult parsed =
          new CommandLine(new Ccm4j()).parseArgs(args.toArray(String[]::new));
      RunCommand run = (RunCommand) parsed.subcommand().commandSpec().userObject();
      settings = run.settings(new LabCloud(simCloud, loadBalancers));
      asServiceAccounts = run.useServiceAccountCredentials();
    } catch (CommandLine.ParameterException e) {
      timeline.record(name, "ccm4j run refused its arguments: " + e.getMessage());
      return;
    }
    Optional<LeaderElection.Settings> election =
        settings.leaderElection().map(le -> le.withIdentity(name + "_" + UUID.randomUUID()));
    ManagerClients clients =
        asServiceAccounts
            ? ManagerClients.create(admin.getConfiguration(), 20, 30, true)
            : ManagerClients.sharing(admin);
    managerClients.add(clients);
    CloudControllerManager manager =
        CloudControllerManager.builder(clients)
            .settings(settings)
            .leaderElection(election)
            .noServing()
            .exit(code -> timeline.record(name, "manager exited with " + code))
            .build();
    managers.put(name, manager);
    if (election.isEmpty()) {
      managersWithoutElection++;
    }
    manager.start();
    timeline.record(
        name,
        "runs on real node %s; ccm4j's manager runs in the lab's process with the pod's"
                .formatted(pod.getSpec().getNodeName())
            + " arguments (the pod's container on the node is a stand-in)");
    out.printf(
        "lab: %s runs on %s (its real kubelet started the pod); its manager started%n",
        name, pod.getSpec().getNodeName());
  }

  /** The JSON beside the HTML report: per node its kubelet and runtime, per CCM pod its image. */
  private void writeJson(LabResult result, KubernetesClient admin) throws IOException {
    List<Map<String, Object>> nodeInfo = new ArrayList<>();
    for (Node node : admin.nodes().list().getItems()) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", node.getMetadata().getName());
      entry.put("kubeletVersion", node.getStatus().getNodeInfo().getKubeletVersion());
      entry.put(
          "containerRuntimeVersion", node.getStatus().getNodeInfo().getContainerRuntimeVersion());
      entry.put("providerID", node.getSpec().getProviderID());
      entry.put("addresses", addresses(node));
      entry.put("taints", taintKeys(node));
      nodeInfo.add(entry);
    }
    List<Map<String, Object>> ccmPods = new ArrayList<>();
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      Optional<Container> container = CcmWorkload.ccmContainer(pod.getSpec());
      if (container.isEmpty()) {
        continue;
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("name", pod.getMetadata().getName());
      entry.put("node", pod.getSpec().getNodeName());
      entry.put("image", container.get().getImage());
      entry.put(
          "imageID",
          pod.getStatus().getContainerStatuses().stream()
              .filter(s -> s.getName().equals(container.get().getName()))
              .map(ContainerStatus::getImageID)
              .findFirst()
              .orElse(null));
      entry.put(
          "managerRunsIn",
          startedPods.contains(pod.getMetadata().getName())
              ? "the lab's process (the container is a stand-in)"
              : "nowhere (not scheduled)");
      ccmPods.add(entry);
    }
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("scenario", result.scenario());
    json.put("kubelets", "real");
    json.put("verdict", result.verdict());
    json.put("seconds", result.seconds());
    json.put("explanation", result.explanation());
    json.put(
        "traffic",
        result
            .traffic()
            .map(t -> Map.of("answered", t.answered(), "summary", t.summary()))
            .orElse(null));
    json.put("nodes", nodeInfo);
    json.put("ccmPods", ccmPods);
    Files.createDirectories(reportDirectory);
    Files.writeString(
        reportDirectory.resolve("lab-" + result.scenario() + ".json"),
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(json));
    timeline.record(
        "nodes",
        "real kubelets: "
            + nodeInfo.stream()
                .map(
                    n ->
                        "%s %s %s"
                            .formatted(
                                n.get("name"),
                                n.get("kubeletVersion"),
                                n.get("containerRuntimeVersion")))
                .toList());
  }

  /**
   * A CCM pod whose container the real kubelet runs: its manager may start. Bound is not enough
   * (without the host network a pod has no sandbox until the node's CNI is up).
   */
  private static boolean runsOnItsNode(Pod pod) {
    Optional<Container> ccm = CcmWorkload.ccmContainer(pod.getSpec());
    return pod.getSpec().getNodeName() != null
        && ccm.isPresent()
        && pod.getStatus() != null
        && pod.getStatus().getContainerStatuses() != null
        && pod.getStatus().getContainerStatuses().stream()
            .anyMatch(
                s ->
                    s.getName().equals(ccm.get().getName())
                        && s.getState() != null
                        && s.getState().getRunning() != null);
  }

  /** Why the kubelet has not started a pod: its last Warning event, else its container's state. */
  private static String waiting(KubernetesClient admin, Pod pod) {
    Optional<String> warning =
        admin
            .v1()
            .events()
            .inNamespace(pod.getMetadata().getNamespace())
            .withField("involvedObject.name", pod.getMetadata().getName())
            .list()
            .getItems()
            .stream()
            .filter(e -> "Warning".equals(e.getType()))
            .max(Comparator.comparing(RealNodesLab::lastSeen))
            .map(e -> e.getReason() + ": " + e.getMessage());
    if (warning.isPresent()) {
      return warning.get();
    }
    return Optional.ofNullable(pod.getStatus().getContainerStatuses()).stream()
        .flatMap(List::stream)
        .map(s -> s.getState() == null ? null : s.getState().getWaiting())
        .filter(Objects::nonNull)
        .map(w -> w.getReason() + (w.getMessage() == null ? "" : ": " + w.getMessage()))
        .findFirst()
        .orElse("phase " + pod.getStatus().getPhase() + ", no container started");
  }

  /** When an event was last seen, as RFC 3339 text (which sorts by time). */
  private static String lastSeen(Event event) {
    return Stream.of(
            event.getLastTimestamp(),
            event.getEventTime() == null ? null : event.getEventTime().getTime(),
            event.getMetadata().getCreationTimestamp())
        .filter(Objects::nonNull)
        .findFirst()
        .orElse("");
  }

  private static List<String> taintKeys(Node node) {
    return node.getSpec().getTaints() == null
        ? List.of()
        : node.getSpec().getTaints().stream().map(Taint::getKey).toList();
  }

  private static List<String> addresses(Node node) {
    return node.getStatus().getAddresses() == null
        ? List.of()
        : node.getStatus().getAddresses().stream()
            .map(a -> a.getType() + "=" + a.getAddress())
            .toList();
  }

  private static String unschedulable(Pod pod) {
    return pod.getStatus().getConditions() == null
        ? "not yet tried"
        : pod.getStatus().getConditions().stream()
            .filter(c -> "PodScheduled".equals(c.getType()))
            .map(PodCondition::getMessage)
            .filter(Objects::nonNull)
            .findFirst()
            .orElse("not yet tried");
  }
}
