package io.ccm4j.lab.real;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.controlplane.ControlPlaneBinaries;
import io.ccm4j.doctor.Scenarios;
import io.ccm4j.lab.DoctorFixes;
import io.ccm4j.lab.LabReport;
import io.ccm4j.lab.LabResources;
import io.ccm4j.lab.LabResult;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/**
 * The lab on real kubelets (root, Linux, overlayfs, Debian's containerd, runc, busybox-static and
 * socat; skipped with the one missing capability elsewhere): four real kubelets of the control
 * plane's release register with the uninitialized taint; the recommended manifest's CCM runs on the
 * two control-plane nodes and initialises them, the lab's CNI then brings up each node's pod
 * network (the nodes become Ready), and real pods on it answer; a CCM off the host network never
 * starts (the CNI waits for the CCM); a manifest whose CCM does not tolerate the uninitialized
 * taint deadlocks as on simulated kubelets; the doctor's fix of the routes deadlock bootstraps, and
 * pods reach each other across nodes through the routes its CCM creates. Nothing is left running,
 * mounted or changed afterwards.
 *
 * <p>Its tests run one after the other, beside the module's other classes (its lab has its own
 * network namespaces, addresses and control plane, and a deadlock scenario waits out its timeout)
 * but never beside {@code LabIT}'s, whose deadlock verdicts have a bound ({@link
 * LabResources#LAB_CLUSTERS}). It prints to standard output, which {@code LabIT}'s command test
 * replaces for a while.
 */
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(LabResources.LAB_CLUSTERS)
@ResourceLock(value = Resources.SYSTEM_OUT, mode = ResourceAccessMode.READ)
class RealKubeletsLabIT {

  @TempDir Path report;

  private String html;

  @BeforeAll
  static void onlyWhereRealNodesCanRun() {
    Optional<String> missing = RealNodeCapabilities.missingHere();
    assumeTrue(missing.isEmpty(), () -> missing.orElseThrow());
  }

  private LabResult run(String scenario, Duration timeout) throws Exception {
    LabResult result =
        new RealNodesLab(timeout, System.out).run(scenario, Scenarios.manifest(scenario));
    html = Files.readString(LabReport.write(result, report));
    return result;
  }

  @Test
  void theRecommendedManifestBootstrapsFourRealNodesAndRealPodsAnswer() throws Exception {
    List<String> flagsBefore = kernelFlags();

    // ccm4j's image: a JVM that may take half a minute to start on a busy machine
    LabResult result = run(Scenarios.RECOMMENDED, Duration.ofSeconds(240));
    System.out.printf(
        "MEASURED lab on real kubelets: %s after %.1f s%n", result.verdict(), result.seconds());

    assertThat(result.verdict())
        .as(String.join("; ", result.explanation()))
        .isEqualTo(LabResult.BOOTSTRAPPED);
    assertThat(result.traffic())
        .hasValueSatisfying(
            t -> {
              assertThat(t.answered()).as(t.summary()).isTrue();
              assertThat(t.summary())
                  .contains("10.77.0.20:8080 answered by worker-0")
                  .contains("10.77.0.21:8080 answered by worker-1")
                  // the real kube-proxy of each worker forwards the Service's node port to its pod
                  .containsPattern("node port: 10\\.77\\.0\\.2[01]:\\d+ answered by worker-")
                  .containsPattern(
                      "10\\.77\\.0\\.21:\\d+ answered by worker-1 from pod IP 10\\.244\\.");
            });
    JsonNode json = new ObjectMapper().readTree(report.resolve("lab-recommended.json").toFile());
    assertThat(json.get("kubelets").asText()).isEqualTo("real");
    assertThat(html).contains("On real kubelets: cp-0 (kubelet v");
    String release = ControlPlaneBinaries.resolveWithNodeBinaries().version().toString();
    assertThat(json.get("nodes")).hasSize(4);
    for (JsonNode node : json.get("nodes")) {
      assertThat(node.get("kubeletVersion").asText()).isEqualTo(release);
      assertThat(node.get("containerRuntimeVersion").asText()).startsWith("containerd://");
      // ccm4j's image runs the local cloud (real load balancers); the lab's process the sim cloud
      assertThat(node.get("providerID").asText())
          .isEqualTo(
              (RealCcmImage.find().isPresent() ? "local://" : "sim://")
                  + node.get("name").asText());
    }
    // The recommended Deployment wants control-plane nodes, one replica per node.
    assertThat(json.get("ccmPods"))
        .extracting(pod -> pod.get("node").asText())
        .containsExactlyInAnyOrder("cp-0", "cp-1");
    assertThat(result.timeline().entries())
        .anySatisfy(e -> assertThat(e.what()).startsWith("real kubelets: "));
    // The lab's CNI wrote each node's configuration once the CCM had initialised it: every node
    // Ready (no not-ready taint left), the web pods on the pod network.
    for (JsonNode node : json.get("nodes")) {
      assertThat(node.get("taints").toString()).doesNotContain("node.kubernetes.io/not-ready");
    }
    assertThat(json.at("/network/cni"))
        .hasSize(4)
        .allSatisfy(
            cni -> {
              assertThat(cni.get("configWrittenAt").asText()).isNotBlank();
              assertThat(cni.get("podSubnet").asText()).startsWith("10.244.");
            });
    assertThat(json.at("/network/podNetworkPods"))
        .filteredOn(pod -> pod.get("pod").asText().startsWith("default/web-"))
        .hasSize(2)
        .allSatisfy(pod -> assertThat(pod.get("podIP").asText()).startsWith("10.244."));
    // With ccm4j's image built (as ./scripts/test does), the pods run it, imported from the
    // tarball; without it, a stand-in, and the lab runs their manager.
    Optional<RealCcmImage> image = RealCcmImage.find();
    if (image.isPresent()) {
      // a request from the cluster network through the local cloud's load balancer, which the
      // CCM in its pod provisioned on its node, to a worker's node port, kube-proxy and a pod
      assertThat(result.traffic().orElseThrow().summary())
          .containsPattern(
              "through the local cloud's load balancer 127\\.0\\.100\\.\\d+:8000 on cp-[01]"
                  + " \\(fronted at 10\\.77\\.0\\.1[01]:8000\\): answered by worker-[01] from pod"
                  + " IP 10\\.244\\.");
      assertThat(json.at("/network/loadBalancer/answered").asText())
          .startsWith("answered by worker-");
    }
    for (JsonNode pod : json.get("ccmPods")) {
      if (image.isPresent()) {
        assertThat(pod.get("managerRunsIn").asText())
            .isEqualTo("its own container: ccm4j's image " + image.get().tag());
        assertThat(pod.get("imageID").asText()).endsWith(image.get().configDigest());
      } else {
        assertThat(pod.get("managerRunsIn").asText()).startsWith("the lab's process");
      }
    }
    assertNothingLeft(flagsBefore);
  }

  /**
   * The routes deadlock as the doctor fixes it: the CCM tolerates network-unavailable, hands out
   * the nodes' pod CIDRs and creates their routes in its cloud's route table; the lab programs that
   * table into the cluster network (as a cloud's router would), and a pod on one worker reaches the
   * pod on the other by its pod IP, which sees the asking pod's own address (no masquerade).
   */
  @Test
  void theDoctorsFixOfTheRoutesDeadlockRoutesPodToPodTrafficAcrossRealNodes() throws Exception {
    List<String> flagsBefore = kernelFlags();
    String fixed = DoctorFixes.fixed("network-unavailable-with-routes", report);

    LabResult result = new RealNodesLab(Duration.ofSeconds(240), System.out).run("routes", fixed);
    LabReport.write(result, report);
    System.out.printf(
        "MEASURED lab on real kubelets, routes by the CCM: %s after %.1f s%n",
        result.verdict(), result.seconds());

    assertThat(result.verdict())
        .as(String.join("; ", result.explanation()))
        .isEqualTo(LabResult.BOOTSTRAPPED);
    assertThat(result.traffic())
        .hasValueSatisfying(t -> assertThat(t.answered()).as(t.summary()).isTrue());
    JsonNode json = new ObjectMapper().readTree(report.resolve("lab-routes.json").toFile());
    // the CCM allocated each node's pod CIDR (the CNI waited for it) and routed it to the node
    Map<String, String> subnets = new HashMap<>();
    json.at("/network/cni")
        .forEach(c -> subnets.put(c.get("node").asText(), c.get("podSubnet").asText()));
    assertThat(subnets).hasSize(4).doesNotContainValue("null");
    Map<String, String> addresses = new HashMap<>();
    RealNodesLab.nodes().forEach(n -> addresses.put(n.name(), n.ip()));
    assertThat(json.at("/network/routes"))
        .hasSize(4)
        .allSatisfy(
            route -> {
              String node = route.get("targetNode").asText();
              assertThat(route.get("destination").asText()).isEqualTo(subnets.get(node));
              assertThat(route.get("via").asText()).isEqualTo(addresses.get(node));
              assertThat(route.get("name").asText()).startsWith("kubernetes-");
            });
    // each web pod asked the other, across the nodes, and was seen by its own pod IP
    assertThat(json.at("/network/podToPod"))
        .hasSize(2)
        .allSatisfy(
            check -> {
              String from = check.get("from").asText().split(" ")[0];
              assertThat(check.get("answered").asText())
                  .matches(
                      "answered by worker-[01] from pod IP 10\\.244\\.\\d+\\.\\d+ to "
                          + from.replace(".", "\\."));
              assertThat(check.get("to").asText())
                  .doesNotEndWith(check.get("from").asText().split(" ")[1]);
            });
    assertThat(result.traffic().orElseThrow().summary())
        .contains("pod to pod across nodes through the CCM's routes: ");
    assertNothingLeft(flagsBefore);
  }

  @Test
  void aCcmThatDoesNotTolerateTheUninitializedTaintDeadlocksRealNodes() throws Exception {
    List<String> flagsBefore = kernelFlags();

    LabResult result = run("missing-uninitialized-toleration", Duration.ofSeconds(20));

    assertThat(result.verdict()).isEqualTo(LabResult.DEADLOCKED);
    assertThat(result.explanation())
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("cp-0: still node.cloudprovider.kubernetes.io/uninitialized"))
        .anySatisfy(line -> assertThat(line).contains("node(s) had untolerated taint(s)"));
    assertNothingLeft(flagsBefore);
  }

  @Test
  void aCcmWithoutTheHostNetworkIsNeverStartedBecauseTheCniWaitsForTheCcm() throws Exception {
    List<String> flagsBefore = kernelFlags();

    LabResult result = run("pod-network", Duration.ofSeconds(30));

    assertThat(result.verdict()).isEqualTo(LabResult.DEADLOCKED);
    // bound by the scheduler, but the real kubelet does not create its sandbox: the lab's CNI
    // writes no configuration before the CCM has initialised the node
    assertThat(result.explanation())
        .anySatisfy(
            line ->
                assertThat(line)
                    .contains("but its real kubelet does not run it")
                    .contains("cni plugin not initialized"))
        .contains(
            "no CNI configuration on cp-0, cp-1, worker-0, worker-1: the lab's CNI (ccm4j-lab-cni)"
                + " waits for the CCM to initialise the node");
    JsonNode json = new ObjectMapper().readTree(report.resolve("lab-pod-network.json").toFile());
    assertThat(json.at("/network/cni"))
        .hasSize(4)
        .allSatisfy(cni -> assertThat(cni.get("configWrittenAt").isNull()).isTrue());
    assertNothingLeft(flagsBefore);
  }

  /**
   * No process of the lab, no cgroup of its nodes, the kernel flags as they were, the lock free.
   */
  private static void assertNothingLeft(List<String> flagsBefore) throws Exception {
    assertThat(ProcessHandle.allProcesses())
        .noneSatisfy(
            p ->
                assertThat(p.info().commandLine().orElse(""))
                    .contains(RealCluster.DIRECTORY.toString()));
    List<Path> cgroups = new ArrayList<>();
    try (Stream<Path> hierarchies = Files.list(Path.of("/sys/fs/cgroup"))) {
      for (Path hierarchy : hierarchies.toList()) {
        if (Files.isDirectory(hierarchy.resolve("ccm4j-lab-cp-0"))) {
          cgroups.add(hierarchy.resolve("ccm4j-lab-cp-0"));
        }
      }
    }
    assertThat(cgroups).isEmpty();
    assertThat(kernelFlags()).isEqualTo(flagsBefore);
    assertThat(Files.readString(Path.of("/proc/self/mountinfo"))).doesNotContain("ccm4j-real-lab");
  }

  private static List<String> kernelFlags() throws Exception {
    List<String> values = new ArrayList<>();
    for (String flag : HostSysctls.FLAGS) {
      try (InputStream in = Files.newInputStream(Path.of("/proc/sys", flag))) {
        values.add(flag + "=" + new String(in.readNBytes(64), StandardCharsets.US_ASCII).strip());
      }
    }
    return values;
  }
}
