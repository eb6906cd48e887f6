package io.ccm4j.lab.real;

import io.ccm4j.app.Ccm4j;
import io.ccm4j.app.RunCommand;
import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.doctor.CcmFlags;
import io.ccm4j.doctor.CcmWorkload;
import io.ccm4j.lab.LabCloud;
import io.ccm4j.lab.Timeline;
import io.ccm4j.provider.local.LocalCloud;
import io.ccm4j.provider.sim.SimCloud;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
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
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * The CCM pods on the real nodes: which of them a real kubelet runs. A pod of ccm4j's own on
 * ccm4j's image ({@link RealCcmImage}) runs ccm4j itself in its container; for any other (another
 * project's CCM, or ccm4j's when its image was not built) the lab runs ccm4j's manager in its own
 * process with the pod's arguments on the lab's cloud, and the pod's container on the node is a
 * stand-in under the pod's image name. Closing it stops the lab's managers.
 */
final class RealCcmPods implements AutoCloseable {

  private final Timeline timeline;
  private final PrintStream out;
  private final SimCloud simCloud;
  private final LocalCloud loadBalancers;
  private final Map<String, CloudControllerManager> managers = new LinkedHashMap<>();
  private final List<ManagerClients> managerClients = new ArrayList<>();
  private final Set<String> startedPods = new LinkedHashSet<>();
  private final Set<String> ownImagePods = new LinkedHashSet<>();
  private final Optional<RealCcmImage> image;
  private int managersWithoutElection;

  RealCcmPods(
      Timeline timeline,
      PrintStream out,
      SimCloud simCloud,
      LocalCloud loadBalancers,
      Optional<RealCcmImage> image) {
    this.timeline = timeline;
    this.out = out;
    this.simCloud = simCloud;
    this.loadBalancers = loadBalancers;
    this.image = image;
  }

  /**
   * For every CCM pod a real kubelet has started since the last call: noted when it runs ccm4j's
   * image, else its manager started in the lab's process.
   */
  void startNewlyRunning(KubernetesClient admin) {
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      if (runsOnItsNode(pod) && startedPods.add(pod.getMetadata().getName())) {
        if (runsOwnImage(pod)) {
          noteOwnImage(pod);
        } else {
          startManager(admin, pod);
        }
      }
    }
  }

  /** Where a CCM pod's manager runs, in words (for the evidence). */
  String managerRunsIn(Pod pod) {
    String name = pod.getMetadata().getName();
    if (ownImagePods.contains(name)) {
      return "its own container: ccm4j's image " + image.orElseThrow().tag();
    }
    return startedPods.contains(name)
        ? "the lab's process (the container is a stand-in)"
        : "nowhere (not scheduled)";
  }

  /**
   * What went wrong with the containers of ccm4j's image: each pod whose container exited, with its
   * exit code and the end of its log (the kubelet's termination message).
   */
  List<String> ownImageFailures(KubernetesClient admin) {
    List<String> failures = new ArrayList<>();
    for (Pod pod : admin.pods().inAnyNamespace().list().getItems()) {
      if (!ownImagePods.contains(pod.getMetadata().getName())
          || pod.getStatus().getContainerStatuses() == null) {
        continue;
      }
      pod.getStatus().getContainerStatuses().stream()
          .filter(s -> s.getRestartCount() != null && s.getRestartCount() > 0)
          .filter(s -> s.getLastState() != null && s.getLastState().getTerminated() != null)
          .findFirst()
          .ifPresent(
              s ->
                  failures.add(
                      "CCM pod %s (ccm4j's image) on %s exited %d %s times: %s"
                          .formatted(
                              pod.getMetadata().getName(),
                              pod.getSpec().getNodeName(),
                              s.getLastState().getTerminated().getExitCode(),
                              s.getRestartCount(),
                              lastLine(s.getLastState().getTerminated().getMessage()))));
    }
    return failures;
  }

  private static String lastLine(String message) {
    if (message == null || message.isBlank()) {
      return "no message";
    }
    List<String> lines = message.strip().lines().toList();
    return lines.getLast();
  }

  /** Whether the pod's CCM container runs ccm4j's image (the lab's copy of the manifest). */
  private boolean runsOwnImage(Pod pod) {
    return image.isPresent()
        && CcmWorkload.ccmContainer(pod.getSpec())
            .filter(c -> image.get().tag().equals(c.getImage()))
            .filter(RealCcmImage::runsCcm4j)
            .isPresent();
  }

  private void noteOwnImage(Pod pod) {
    String name = pod.getMetadata().getName();
    ownImagePods.add(name);
    Container container = CcmWorkload.ccmContainer(pod.getSpec()).orElseThrow();
    if (CcmFlags.leaderElectionOff(CcmWorkload.words(container))) {
      managersWithoutElection++;
    }
    String imageID =
        pod.getStatus().getContainerStatuses().stream()
            .filter(s -> s.getName().equals(container.getName()))
            .map(ContainerStatus::getImageID)
            .findFirst()
            .orElse("?");
    timeline.record(
        name,
        "runs ccm4j's image %s (%s) on real node %s"
            .formatted(container.getImage(), imageID, pod.getSpec().getNodeName()));
    out.printf(
        "lab: %s runs ccm4j's image on %s (its real kubelet started the pod)%n",
        name, pod.getSpec().getNodeName());
  }

  /** The nodes of the running CCM pods of ccm4j's image (where its load balancers listen). */
  List<String> ownImageNodes(KubernetesClient admin) {
    return admin.pods().inAnyNamespace().list().getItems().stream()
        .filter(p -> ownImagePods.contains(p.getMetadata().getName()) && runsOnItsNode(p))
        .map(p -> p.getSpec().getNodeName())
        .distinct()
        .toList();
  }

  /** How many managers run without leader election. */
  int managersWithoutElection() {
    return managersWithoutElection;
  }

  /** Whether a manager was started for the pod. */
  boolean started(String pod) {
    return startedPods.contains(pod);
  }

  /** Whether any CCM pod ran. */
  boolean noneStarted() {
    return startedPods.isEmpty();
  }

  /** Stops the managers (a second call does nothing). */
  void stopManagers() {
    managers.values().forEach(CloudControllerManager::close);
    managers.clear();
  }

  @Override
  public void close() {
    stopManagers();
    managerClients.forEach(ManagerClients::close);
  }

  /**
   * The images of the CCM containers (of the lab's copy of the manifest) that need a stand-in under
   * that name, so that the kubelet "runs" the pod while the lab runs its manager: all but ccm4j's
   * image.
   */
  static List<String> standInImages(List<HasMetadata> objects, Optional<RealCcmImage> image) {
    List<String> images = new ArrayList<>();
    for (HasMetadata object : objects) {
      PodSpec spec = RealCcmImage.podSpec(object);
      if (spec != null) {
        CcmWorkload.ccmContainer(spec)
            .map(Container::getImage)
            .filter(Objects::nonNull)
            .filter(i -> image.isEmpty() || !i.equals(image.get().tag()))
            .ifPresent(images::add);
      }
    }
    return images.stream().distinct().toList();
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
      settings = run.settings(LabCloud.routingWithLocal(simCloud, loadBalancers));
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

  /**
   * A CCM pod whose container the real kubelet runs: its manager may start. Bound is not enough
   * (without the host network a pod has no sandbox until the node's CNI is up).
   */
  static boolean runsOnItsNode(Pod pod) {
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
  static String waiting(KubernetesClient admin, Pod pod) {
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
            .max(Comparator.comparing(RealCcmPods::lastSeen))
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

  /** Why the scheduler has not bound a pod: its PodScheduled condition's message. */
  static String unschedulable(Pod pod) {
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
