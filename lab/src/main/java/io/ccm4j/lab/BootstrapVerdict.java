package io.ccm4j.lab;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.cloudprovider.api.WellKnownLabels;
import io.ccm4j.cloudprovider.api.WellKnownTaints;
import io.ccm4j.controllers.nodeutil.Taints;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.doctor.LiveDoctor;
import io.ccm4j.doctor.Rule;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The lab's verdict on a bootstrap, and its progress on the way: {@code bootstrapped} (then the
 * request through a load balancer), {@code collision} or {@code deadlocked} with the live doctor's
 * explanation.
 */
final class BootstrapVerdict {

  /** How long a load balancer may take to be provisioned and answer, once bootstrapped. */
  private static final Duration TRAFFIC_BUDGET = Duration.ofSeconds(30);

  private final Duration timeout;
  private final PrintStream out;
  private final Timeline timeline;
  private final KubeVirtInfrastructure kubevirt;
  private final Map<String, CloudControllerManager> managers;
  private final IntSupplier managersWithoutElection;
  private final BooleanSupplier serviceControllerRuns;
  private final Supplier<List<String>> waitingPods;
  private final Runnable step;
  private final Set<String> initialised = ConcurrentHashMap.newKeySet();
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /**
   * @param kubevirt the infrastructure cluster, when the CCM runs the kubevirt provider; else null
   * @param managers the managers the lab runs, by pod
   * @param waitingPods the bound pods that wait to start for what the cluster will not make (a
   *     Secret the manifest does not create), one line each
   * @param step the kubelets' and the CNI's part, played before each look
   */
  BootstrapVerdict(
      Duration timeout,
      PrintStream out,
      Timeline timeline,
      KubeVirtInfrastructure kubevirt,
      Map<String, CloudControllerManager> managers,
      IntSupplier managersWithoutElection,
      BooleanSupplier serviceControllerRuns,
      Supplier<List<String>> waitingPods,
      Runnable step) {
    this.timeout = timeout;
    this.out = out;
    this.timeline = timeline;
    this.kubevirt = kubevirt;
    this.managers = managers;
    this.managersWithoutElection = managersWithoutElection;
    this.serviceControllerRuns = serviceControllerRuns;
    this.waitingPods = waitingPods;
    this.step = step;
  }

  /**
   * Plays the kubelets' and the CNI's part until every node is initialised and Ready
   * (bootstrapped), two managers lead without a Lease (collision), the live doctor's cycle stands
   * with nothing changing for {@link DeadlockProof#WINDOW} (deadlocked) or the time is up
   * (deadlocked).
   */
  LabResult watch(String scenario, KubernetesClient admin, List<String> nodes)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextLook = 0;
    Progress printed = null;
    DeadlockProof proof = new DeadlockProof();
    while (System.nanoTime() < deadline) {
      step.run();
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
                        .formatted(managersWithoutElection.getAsInt())
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
      if (System.nanoTime() >= nextLook) {
        // Once a second: the progress, printed when it changed, and the live analysis's cycles.
        Progress progress = progress(admin, nodes.size(), ready);
        if (!progress.equals(printed)) {
          out.printf("lab: %5.1f s  %s%n", timeline.elapsedSeconds(), progress.line());
          printed = progress;
        }
        List<String> cycles = blockers(admin);
        if (!cycles.isEmpty() && !cycles.equals(proof.cycles())) {
          timeline.record("live analysis", String.join("; ", cycles));
          out.printf(
              "lab: %5.1f s  %s; the verdict if nothing changes for %d s%n",
              timeline.elapsedSeconds(),
              String.join("; ", cycles),
              DeadlockProof.WINDOW.toSeconds());
        }
        // Anything the timeline records (a pod bound, started, a network up) is a change too.
        if (proof.look(System.nanoTime(), List.of(progress, timeline.entries().size()), cycles)) {
          return deadlocked(scenario, admin);
        }
        nextLook = System.nanoTime() + Duration.ofSeconds(1).toNanos();
      }
      Thread.sleep(200);
    }
    return deadlocked(scenario, admin);
  }

  /**
   * What stands in the bootstrap's way now: the live doctor's dependency cycles ({@code deadlock:
   * ...}) and the bound pods that wait for what nothing in the cluster will make; empty when none.
   */
  private List<String> blockers(KubernetesClient admin) {
    List<String> blockers = new ArrayList<>(cycles(admin));
    blockers.addAll(podsNotCreated(admin));
    blockers.addAll(waitingPods.get());
    return blockers;
  }

  /**
   * The CCM Deployments whose pods the API server refuses to create (a ServiceAccount missing in
   * their namespace, a quota, an admission policy), in the ReplicaFailure condition's words.
   */
  private static List<String> podsNotCreated(KubernetesClient admin) {
    List<String> lines = new ArrayList<>();
    for (Deployment deployment : admin.apps().deployments().inAnyNamespace().list().getItems()) {
      if (deployment.getStatus() == null
          || deployment.getStatus().getConditions() == null
          || !CcmWorkload.runsCcm(deployment.getSpec().getTemplate().getSpec())) {
        continue;
      }
      deployment.getStatus().getConditions().stream()
          .filter(c -> "ReplicaFailure".equals(c.getType()) && "True".equals(c.getStatus()))
          .findFirst()
          .ifPresent(
              c ->
                  lines.add(
                      "Deployment %s/%s creates no pod: %s"
                          .formatted(
                              deployment.getMetadata().getNamespace(),
                              deployment.getMetadata().getName(),
                              c.getMessage())));
    }
    return lines;
  }

  /**
   * The live doctor's explanation of a bootstrap that did not happen, the CCM pods not created and
   * the pods waiting to start.
   */
  private LabResult deadlocked(String scenario, KubernetesClient admin) {
    List<String> explanation = new ArrayList<>(podsNotCreated(admin));
    explanation.addAll(waitingPods.get());
    for (LiveDoctor.Observation observation : liveDoctor(admin).diagnose()) {
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

  /** Everything counts as stuck at once: the lab watches from the cluster's first moment. */
  private static LiveDoctor liveDoctor(KubernetesClient admin) {
    return new LiveDoctor(admin, Duration.ZERO, "kube-system", "cloud-controller-manager");
  }

  /** The dependency cycles the live doctor sees now ({@code deadlock: ...}); empty when none. */
  private static List<String> cycles(KubernetesClient admin) {
    return liveDoctor(admin).diagnose().stream()
        .filter(LiveDoctor.Observation::isDeadlock)
        .map(LiveDoctor.Observation::what)
        .toList();
  }

  /** What the progress line says; printed again only when it changes. */
  private record Progress(
      int initialised, int nodes, int ready, long scheduled, int ccmPods, int managers) {

    String line() {
      return "nodes initialised %d/%d, Ready %d/%d; CCM pods scheduled %d/%d, managers running %d;"
              .formatted(initialised, nodes, ready, nodes, scheduled, ccmPods, managers)
          + " uninitialized taints left %d".formatted(nodes - initialised);
    }
  }

  private Progress progress(KubernetesClient admin, int nodes, int ready) {
    List<Pod> ccmPods =
        admin.pods().inAnyNamespace().list().getItems().stream()
            .filter(p -> CcmWorkload.runsCcm(p.getSpec()))
            .toList();
    return new Progress(
        initialised.size(),
        nodes,
        ready,
        ccmPods.stream().filter(p -> p.getSpec().getNodeName() != null).count(),
        ccmPods.size(),
        managers.size());
  }

  /**
   * After the bootstrap, a request through a load balancer the CCM provisions must reach a node;
   * not checked when no CCM runs the service controller ({@code --controllers} without it).
   */
  private Optional<LabResult.Traffic> checkTraffic(KubernetesClient admin)
      throws InterruptedException {
    if (!serviceControllerRuns.getAsBoolean()) {
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

  private static String label(Node node, String key) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return labels == null ? "none" : labels.getOrDefault(key, "none");
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
