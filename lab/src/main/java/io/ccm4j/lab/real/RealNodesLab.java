package io.ccm4j.lab.real;

import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.NodeConditions;
import io.ccm4j.controllers.nodeutil.NodePatches;
import io.ccm4j.controlplane.ControlPlaneBinaries;
import io.ccm4j.controlplane.LocalControlPlane;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.Doctor;
import io.ccm4j.doctor.ManifestException;
import io.ccm4j.doctor.Manifests;
import io.ccm4j.doctor.Scenarios;
import io.ccm4j.lab.LabEvidence;
import io.ccm4j.lab.LabLoopback;
import io.ccm4j.lab.LabManifest;
import io.ccm4j.lab.LabNodeLifecycle;
import io.ccm4j.lab.LabResult;
import io.ccm4j.lab.Timeline;
import io.ccm4j.provider.local.LocalCloud;
import io.ccm4j.provider.local.LocalCloudProviderFactory;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.provider.sim.SimCloudProviderFactory;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code ccm4j lab --kubelets real}: the bootstrap on real nodes. A real kube-apiserver,
 * kube-scheduler and kube-controller-manager as in the simulated lab, and instead of simulated
 * kubelets two control-plane nodes (labelled and tainted as kubeadm does) and two workers, each a
 * real kubelet of the control plane's release with its own containerd ({@link RealCluster}),
 * registered with {@code --cloud-provider=external}. The scheduler places the manifest's CCM pods;
 * a CCM of ccm4j's own runs ccm4j's container image, imported into the nodes, on the lab's cloud
 * ({@link RealCcmImage}); another project's, or ccm4j's when its image is not built, runs as a
 * stand-in container while the lab runs ccm4j's manager in its own process with the pod's arguments
 * ({@link RealCcmPods}); the lab's CNI ({@link RealCni}) writes each node's CNI configuration once
 * the CCM has initialised the node; bootstrapped when the CCM has initialised every node and every
 * node is Ready, a collision when two CCMs run without leader election. Then a busybox httpd
 * Deployment on the workers' pod network, behind a LoadBalancer Service, must answer requests from
 * the cluster network on its host port, its node port (each node's real kube-proxy) and, with
 * ccm4j's image, through the {@code local} cloud's load balancer ({@link RealWebTraffic}).
 *
 * <p>This class starts the cluster and reaches the verdict; the CCM pods and their managers are
 * {@link RealCcmPods}', the requests {@link RealWebTraffic}'s, the JSON {@link LabEvidence}'s.
 *
 * <p>When the manifest's CCM creates routes, {@link RealCloudRouter} programs its cloud's route
 * table into the cluster network, and the web pods must reach each other across the nodes by their
 * pod IPs.
 */
public final class RealNodesLab {

  private final Duration timeout;
  private final PrintStream out;
  private final Timeline timeline = new Timeline();
  private RealCcmPods ccmPods;
  private RealCloudRouter router;
  private boolean ccmCreatesRoutes;

  /** What the traffic check showed (the load balancer), for the evidence. */
  private final Map<String, Object> shown = new LinkedHashMap<>();

  public RealNodesLab(Duration timeout, PrintStream out) {
    this.timeout = timeout;
    this.out = out;
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
    Optional<RealCcmImage> image = RealCcmImage.find();
    if (image.isPresent()) {
      out.printf(
          "lab: the CCM pods run ccm4j's image %s (%s), imported into every node's containerd%n",
          image.get().tag(), image.get().tarball());
    } else {
      out.printf(
          "lab: ccm4j's image is not built (%s): the CCM pods run a stand-in container and the"
              + " lab runs their manager in its own process; build it with"
              + " ./mvnw -pl app -am package -DskipTests%n",
          RealCcmImage.candidates().getFirst());
    }
    // A block of the loopback no other lab on this machine holds meanwhile (its load balancers').
    try (LabLoopback block = LabLoopback.claim();
        LocalControlPlane controlPlane =
            LocalControlPlane.builder()
                .binaries(binaries)
                .withScheduler(true)
                .withControllerManager(true)
                .withEndpointSlices(true)
                .start();
        KubernetesClient admin = controlPlane.newClient()) {
      List<HasMetadata> objects = labManifest(admin, manifest, image);
      try (RealCluster cluster =
              RealCluster.open(
                  binaries.directory(),
                  RealCcmPods.standInImages(objects, image),
                  image.map(RealCcmImage::tarball).stream().toList());
          // the lab's own managers' cloud: load balancers in this process, routes in the file
          // the CCM pods' cloud keeps them in
          LocalCloud local =
              LocalCloudProviderFactory.fromYaml(
                  "addressPool: %s100.0/24\nhealthCheck: {interval: 500ms, timeout: 1s}\nrouteTable: %s\n"
                      .formatted(
                          block.prefix(),
                          RealCluster.cloudDirectory().resolve(RealCloudRouter.ROUTE_TABLE)))) {
        timeline.record(
            "control plane",
            "ready in %.1f s".formatted(controlPlane.startTime().toMillis() / 1000.0));
        SimCloud simCloud = SimCloudProviderFactory.fromYaml(cloudConfig(nodes));
        try (RealCcmPods pods = new RealCcmPods(timeline, out, simCloud, local, image)) {
          ccmPods = pods;
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
          ccmCreatesRoutes = routedByTheCcm(manifest);
          if (ccmCreatesRoutes) {
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
          try (LabNodeLifecycle nodeLifecycle = LabNodeLifecycle.start(admin, simCloud)) {
            timeline.record("node-lifecycle", "watching node health");
            router = RealCloudRouter.start(cluster, nodes, timeline, out);
            try {
              timeline.startBootstrap();
              boolean podCidrFromNode = allocatesNodeCidrs(manifest);
              RealCni.apply(admin, podCidrFromNode);
              timeline.record(
                  "cni",
                  "applied the lab's CNI, DaemonSet %s (image %s): it writes a node's CNI"
                          .formatted(RealCni.NAME, RealCni.IMAGE)
                      + " configuration once the CCM has initialised the Node"
                      + (podCidrFromNode ? " and allocated its pod CIDR" : ""));
              apply(admin, Scenarios.rbac());
              LabManifest.apply(admin, objects);
              timeline.record(
                  "manifests",
                  image
                      .map(
                          i ->
                              "applied RBAC and the lab's copy of the CCM manifest: ccm4j's image %s,"
                                      .formatted(i.tag())
                                  + " the %s cloud (ConfigMap %s), the API server at %s:%s"
                                      .formatted(
                                          RealCcmImage.CLOUD_PROVIDER,
                                          RealCcmImage.CLOUD_CONFIG_MAP,
                                          RealCcmImage.API_SERVER_HOST,
                                          RealCcmImage.API_SERVER_PORT)
                                  + " of its node")
                      .orElse("applied RBAC and the CCM manifest"));
              return watch(scenario, admin, cluster, nodes)
                  .withEvidence(evidence(admin, cluster, nodes));
            } finally {
              pods.stopManagers();
              router.close();
            }
          }
        }
      }
    }
  }

  private LabResult watch(
      String scenario, KubernetesClient admin, RealCluster cluster, List<RealCluster.Node> nodes)
      throws InterruptedException, IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Set<String> initialised = new LinkedHashSet<>();
    Set<String> networked = new LinkedHashSet<>();
    Set<String> ready = new LinkedHashSet<>();
    while (System.nanoTime() < deadline) {
      ccmPods.startNewlyRunning(admin);
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
        Optional<RealCni.Written> cni = RealCni.written(cluster.nodeDirectory(node.name()));
        if (cni.isPresent() && networked.add(node.name())) {
          timeline.record(
              node.name(),
              "CNI configuration written by %s: pod subnet %s"
                  .formatted(RealCni.NAME, cni.get().subnet()));
          out.printf(
              "lab: %s: CNI configuration written (pod subnet %s)%n",
              node.name(), cni.get().subnet());
        }
        if (current != null
            && "True".equals(NodeConditions.readyStatus(current))
            && ready.add(node.name())) {
          timeline.record(node.name(), "Ready (its kubelet reports NetworkReady)");
          out.printf("lab: %s Ready%n", node.name());
        }
      }
      if (ccmPods.managersWithoutElection() >= 2) {
        double seconds = timeline.elapsedSeconds();
        List<String> explanation =
            List.of(
                "collision: %d CCM replicas run without leader election, each acting on every node"
                    .formatted(ccmPods.managersWithoutElection()));
        timeline.record("verdict", explanation.getFirst());
        return new LabResult(
            scenario, LabResult.COLLISION, seconds, explanation, timeline, Optional.empty());
      }
      if (initialised.size() == nodes.size() && ready.size() == nodes.size()) {
        double seconds = timeline.elapsedSeconds();
        timeline.record(
            "verdict",
            "bootstrapped: the CCM initialised every real node, and every node is Ready on the"
                + " lab's CNI");
        Optional<LabResult.Traffic> traffic =
            Optional.of(
                RealWebTraffic.serveFromWorkers(
                    admin,
                    cluster,
                    timeline,
                    ccmPods.ownImageNodes(admin),
                    ccmCreatesRoutes ? Optional.of(router) : Optional.empty(),
                    shown));
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
      } else if (!ready.contains(node.name())) {
        Node current = admin.nodes().withName(node.name()).get();
        explanation.add(
            "%s: initialised but not Ready: %s"
                .formatted(node.name(), current == null ? "gone" : notReady(current)));
      }
    }
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      if (CcmWorkload.ccmContainer(pod.getSpec()).isPresent()
          && pod.getSpec().getNodeName() == null) {
        explanation.add(
            "CCM pod %s is not scheduled: %s"
                .formatted(pod.getMetadata().getName(), RealCcmPods.unschedulable(pod)));
      }
    }
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      if (CcmWorkload.ccmContainer(pod.getSpec()).isPresent()
          && pod.getSpec().getNodeName() != null
          && !ccmPods.started(pod.getMetadata().getName())) {
        explanation.add(
            "CCM pod %s is bound to %s but its real kubelet does not run it: %s"
                .formatted(
                    pod.getMetadata().getName(),
                    pod.getSpec().getNodeName(),
                    RealCcmPods.waiting(admin, pod)));
      }
    }
    List<String> waitingForTheCcm =
        nodes.stream()
            .map(RealCluster.Node::name)
            .filter(
                n ->
                    !initialised.contains(n) && RealCni.written(cluster.nodeDirectory(n)).isEmpty())
            .toList();
    if (!waitingForTheCcm.isEmpty()) {
      explanation.add(
          "no CNI configuration on %s: the lab's CNI (%s) waits for the CCM to initialise the node"
              .formatted(String.join(", ", waitingForTheCcm), RealCni.NAME));
    }
    explanation.addAll(ccmPods.ownImageFailures(admin));
    if (ccmPods.noneStarted()) {
      explanation.add("no CCM pod runs on a real node, so no CCM runs");
    }
    timeline.record("verdict", "deadlocked: " + String.join("; ", explanation));
    return new LabResult(
        scenario, LabResult.DEADLOCKED, seconds, explanation, timeline, Optional.empty());
  }

  /** The message of a node's Ready condition. */
  private static String notReady(Node node) {
    return NodeConditions.find(node, NodeConditions.READY)
        .map(c -> c.getReason() + ": " + c.getMessage())
        .orElse("no Ready condition");
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

  /**
   * The objects the lab applies: the manifest's, and with ccm4j's image built, its copy that runs
   * that image on the lab's cloud ({@link RealCcmImage#rewrite}).
   */
  private List<HasMetadata> labManifest(
      KubernetesClient admin, String manifest, Optional<RealCcmImage> image) {
    List<HasMetadata> objects = LabManifest.objects(admin, manifest, out);
    return image
        .map(i -> i.rewrite(objects, RealCcmImage.CLOUD_CONFIG, RealCluster.cloudDirectory()))
        .orElse(objects);
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

  /** Whether the manifest's CCM allocates node CIDRs: the CNI then waits for the Node's. */
  private static boolean allocatesNodeCidrs(String manifest) {
    try {
      return Doctor.workloads(Manifests.read(manifest, Path.of("the CCM manifest"))).stream()
          .anyMatch(CcmWorkload::allocatesNodeCidrs);
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

  private static void apply(KubernetesClient admin, String yaml) {
    for (HasMetadata object :
        admin.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).items()) {
      admin.resource(object).createOr(existing -> existing.update());
    }
  }

  /**
   * For the report and the JSON beside it: per node its kubelet and runtime, per CCM pod its image.
   */
  private LabEvidence evidence(
      KubernetesClient admin, RealCluster cluster, List<RealCluster.Node> nodes) {
    LabEvidence evidence =
        LabEvidence.collect(admin, LabEvidence.REAL, ccmPods::managerRunsIn)
            .withNetwork(network(admin, cluster, nodes));
    timeline.record(
        "nodes",
        "real kubelets: "
            + evidence.nodes().stream()
                .map(
                    n ->
                        "%s %s %s"
                            .formatted(n.name(), n.kubeletVersion(), n.containerRuntimeVersion()))
                .toList());
    return evidence;
  }

  /**
   * What the pod network showed: per node when the CNI agent wrote its configuration and the pod
   * subnet in it, and every pod on the pod network with its address.
   */
  private Map<String, Object> network(
      KubernetesClient admin, RealCluster cluster, List<RealCluster.Node> nodes) {
    List<Map<String, Object>> cni = new ArrayList<>();
    for (RealCluster.Node node : nodes) {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("node", node.name());
      Optional<RealCni.Written> written = RealCni.written(cluster.nodeDirectory(node.name()));
      entry.put("configWrittenAt", written.map(w -> w.at().toString()).orElse(null));
      entry.put("podSubnet", written.map(RealCni.Written::subnet).orElse(null));
      cni.add(entry);
    }
    List<Map<String, Object>> pods = new ArrayList<>();
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      if (Boolean.TRUE.equals(pod.getSpec().getHostNetwork())
          || pod.getStatus() == null
          || pod.getStatus().getPodIP() == null) {
        continue;
      }
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("pod", pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName());
      entry.put("node", pod.getSpec().getNodeName());
      entry.put("podIP", pod.getStatus().getPodIP());
      pods.add(entry);
    }
    Map<String, Object> network = new LinkedHashMap<>();
    network.put("cni", cni);
    network.put("podNetworkPods", pods);
    // the cloud's routes as the cluster network has them (the CCM's route controller made them)
    network.put("routes", router == null ? List.of() : router.programmed());
    network.putAll(shown);
    return network;
  }

  private static List<String> taintKeys(Node node) {
    return LabEvidence.taintKeys(node);
  }

  private static List<String> addresses(Node node) {
    return LabEvidence.addresses(node);
  }
}
