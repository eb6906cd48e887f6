package io.ccm4j.lab;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.app.Ccm4j;
import io.ccm4j.doctor.Scenarios;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.ResourceLockTarget;
import org.junit.jupiter.api.parallel.Resources;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every lab scenario reaches its verdict on a real API server, scheduler and controller manager.
 * None of its tests runs beside the lab on real kubelets ({@link LabResources#LAB_CLUSTERS}), which
 * runs beside the module's other classes.
 */
@ResourceLock(
    value = LabResources.LAB_CLUSTERS,
    mode = ResourceAccessMode.READ,
    target = ResourceLockTarget.CHILDREN)
class LabIT {

  /**
   * The lab's default timeout: a deadlock the live analysis explains ends well before it, once
   * nothing has changed for the confirmation window.
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  /** Every deadlock scenario's verdict comes within this, from the manifests' apply. */
  private static final double DEADLOCK_VERDICT_WITHIN_SECONDS = 30;

  @TempDir Path temp;

  private static LabResult run(String name, String manifest) throws Exception {
    return new BootstrapLab(new BootstrapLab.Settings(3, 3, TIMEOUT), System.out)
        .run(name, manifest);
  }

  /** Bootstrapped, and the load balancer the CCM provisioned afterwards answered a request. */
  private static void assertBootstrappedAndServing(LabResult result) {
    assertThat(result.verdict()).isEqualTo(LabResult.BOOTSTRAPPED);
    assertThat(result.traffic())
        .hasValueSatisfying(t -> assertThat(t.answered()).as(t.summary()).isTrue());
  }

  /**
   * Two scenarios at a time (the lab's failsafe configuration), beside this class's other tests:
   * each lab has its own control plane, temp dirs, ports and block of the loopback, and a deadlock
   * scenario mostly waits out {@link DeadlockProof#WINDOW}, a stillness of its own cluster that the
   * other lab's work does not disturb. They only print to standard output, which the command's test
   * replaces for a while.
   */
  @ParameterizedTest(name = "{0} -> {1}")
  @Execution(ExecutionMode.CONCURRENT)
  @ResourceLock(value = Resources.SYSTEM_OUT, mode = ResourceAccessMode.READ)
  @CsvSource(
      delimiter = '|',
      value = {
        // scenario | verdict | an explanation starts with | the scheduler's words the verdict
        // quotes
        "recommended | bootstrapped | |",
        "missing-uninitialized-toleration | deadlocked"
            + " | deadlock: nodes wait for the cloud-controller-manager, which waits for a node"
            + " | node(s) had untolerated taint(s)",
        "not-ready-noexecute | deadlocked"
            + " | deadlock: the network waits for the cloud-controller-manager, which waits for the"
            + " network | node(s) had untolerated taint(s)",
        "pod-network | deadlocked | deadlock: the cloud-controller-manager waits for the pod network |",
        "control-plane-only-taint | deadlocked"
            + " | deadlock: the cloud-controller-manager may only run where it is not tolerated"
            + " | node(s) had untolerated taint(s)",
        "replicas-without-leader-election | collision | |",
        "network-unavailable-with-routes | deadlocked"
            + " | deadlock: the routes wait for the cloud-controller-manager, which waits for a route"
            + " | node(s) had untolerated taint(s)",
        "master-only-toleration | deadlocked"
            + " | deadlock: the cloud-controller-manager may only run where it is not tolerated"
            + " | node(s) had untolerated taint(s)",
      })
  void eachScenarioReachesItsVerdict(
      String scenario, String verdict, String explainedBy, String schedulerSays) throws Exception {
    LabResult result = run(scenario, Scenarios.manifest(scenario));
    System.out.printf(
        "MEASURED lab %s: %s after %.1f s%n", scenario, result.verdict(), result.seconds());

    assertThat(result.verdict()).isEqualTo(verdict);
    if (result.verdict().equals(LabResult.BOOTSTRAPPED)) {
      assertThat(result.explanation()).isEmpty();
      assertThat(result.timeline().entries())
          .anySatisfy(e -> assertThat(e.what()).isEqualTo("leads"));
      // Once bootstrapped, a request through the load balancer the CCM
      // provisioned for a LoadBalancer Service is answered by one of the workers (the
      // control-plane nodes are labelled out of load balancers, as kubeadm does).
      assertThat(result.traffic())
          .hasValueSatisfying(
              traffic -> {
                assertThat(traffic.answered()).as(traffic.summary()).isTrue();
                assertThat(traffic.summary())
                    .matches(
                        "GET http://127\\.\\d+\\.100\\.\\d+/ was answered by node"
                            + " worker-\\d \\(its kube-proxy, for Service default/lab-web\\)"
                            + " through the load balancer");
              });
      assertThat(result.succeeded()).isTrue();
    } else {
      assertThat(result.traffic()).isEmpty();
      assertThat(result.explanation()).isNotEmpty();
    }
    if (result.verdict().equals(LabResult.DEADLOCKED)) {
      // The live analysis's cycle, then the confirmation window with nothing changing: the
      // verdict long before the timeout.
      assertThat(result.seconds()).isLessThan(DEADLOCK_VERDICT_WITHIN_SECONDS);
      assertThat(result.timeline().entries())
          .anySatisfy(
              e -> {
                assertThat(e.subject()).isEqualTo("live analysis");
                assertThat(e.what()).startsWith("deadlock: ");
              });
    }
    if (explainedBy != null) {
      assertThat(result.explanation()).anySatisfy(e -> assertThat(e).startsWith(explainedBy));
    }
    if (schedulerSays != null) {
      assertThat(result.explanation())
          .anySatisfy(
              e ->
                  assertThat(e)
                      .contains("the scheduler says: 0/6 nodes are available: ", schedulerSays));
    }
    String report = Files.readString(LabReport.write(result, temp));
    assertThat(report)
        .contains("<svg", "ccm4j lab: " + scenario, "On simulated kubelets: cp-0 (kubelet v");
    // Beside it, the evidence: simulated kubelets, each node's kubelet and runtime as it reported.
    JsonNode json = new ObjectMapper().readTree(temp.resolve("lab-" + scenario + ".json").toFile());
    assertThat(json.get("kubelets").asText()).isEqualTo("simulated");
    assertThat(json.get("verdict").asText()).isEqualTo(verdict);
    assertThat(json.get("nodes")).hasSize(6);
    assertThat(json.get("nodes").get(0).get("containerRuntimeVersion").asText())
        .isEqualTo("sim://1.0");
    // As a real browser lays it out: no overlapping or clipped text (where Chromium is installed).
    Optional<HeadlessChromium> chromium = HeadlessChromium.find();
    if (chromium.isPresent()) {
      assertThat(chromium.get().layout(report, temp).problems()).isEmpty();
    }
    if (result.traffic().isPresent()) {
      assertThat(report).contains("Traffic: GET http://127.", "through the load balancer");
    }
  }

  /**
   * As a user runs it: on standard output the lab's own lines only, each progress line once (only
   * when something changed); the log of what runs in the lab's process goes to a file beside the
   * report, whose path is printed once, and nothing to standard error.
   */
  @Test
  @ResourceLock(Resources.SYSTEM_OUT)
  @ResourceLock(Resources.SYSTEM_ERR)
  void theCommandPrintsOnlyTheLabsOwnLinesAndLogsToAFileBesideTheReport() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    int exit;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      exit = Ccm4j.execute("lab", "--scenario", "pod-network", "--report", temp.toString());
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    System.out.print(printed);

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    List<String> lines = printed.lines().filter(line -> !line.isBlank()).toList();
    assertThat(lines)
        .allSatisfy(line -> assertThat(line).matches("(lab: |Verdict: |  - |Report: ).*"))
        .anySatisfy(line -> assertThat(line).startsWith("Verdict: deadlocked after "));
    Path log = temp.resolve("lab-pod-network.log");
    assertThat(lines)
        .filteredOn(line -> line.contains(log.toString()))
        .singleElement()
        .satisfies(line -> assertThat(line).startsWith("lab: log: " + log.toAbsolutePath()));
    assertThat(Files.readString(log)).contains("LocalControlPlane", "NodeLifecycleController");
    Pattern progress = Pattern.compile("lab: +-?[0-9.]+ s {2}(.*)");
    List<String> said =
        lines.stream()
            .map(progress::matcher)
            .filter(Matcher::matches)
            .map(m -> m.group(1))
            .toList();
    assertThat(said).isNotEmpty().doesNotHaveDuplicates();
  }

  /**
   * With --use-service-account-credentials the lab's managers write as upstream's ServiceAccounts
   * (node-controller, ...), which the API server's bootstrap policy authorises.
   */
  @Test
  void serviceAccountCredentialsAreHonoured() throws Exception {
    String manifest =
        Scenarios.manifest("recommended")
            .replaceFirst("(?m)^(\\s*)- run$", "$1- run\n$1- --use-service-account-credentials");
    assertThat(manifest).contains("- --use-service-account-credentials");

    LabResult result = run("service-accounts", manifest);

    assertBootstrappedAndServing(result);
    assertThat(result.timeline().entries())
        .anySatisfy(
            e ->
                assertThat(e.what())
                    .isEqualTo("controllers write as their ServiceAccounts in kube-system"));
  }

  /**
   * Another project's CCM manifest (its own image, command and flags): the lab runs ccm4j's manager
   * on its sim cloud in that pod's place, says so, and judges the bootstrap.
   */
  @Test
  void anotherProjectsCcmManifestIsJudgedOnItsSchedulingAndBootstrap() throws Exception {
    String vendor =
        Scenarios.manifest("recommended")
            .replace(
                "image: ccm4j:0.1.0",
                "image: registry.k8s.io/provider-aws/cloud-controller-manager:v1.33.0")
            .replaceFirst(
                "(?m)^(\\s*)args:\n\\s*- run\n",
                "$1command: [/bin/aws-cloud-controller-manager]\n$1args:\n$1- --v=2\n")
            .replace("--cloud-provider=sim", "--cloud-provider=aws");
    assertThat(vendor).contains("/bin/aws-cloud-controller-manager").doesNotContain("- run");

    LabResult result = run("vendor", vendor);

    assertBootstrappedAndServing(result);
    assertThat(result.timeline().entries())
        .anySatisfy(
            e ->
                assertThat(e.what())
                    .isEqualTo(
                        "runs ccm4j's manager on the lab's sim cloud in place of"
                            + " registry.k8s.io/provider-aws/cloud-controller-manager:v1.33.0"
                            + " (another project's CCM)"));
  }

  /**
   * A chart rendered without {@code --namespace} puts the CCM's Deployment in {@code default} (as
   * IONOS's does), and its pods mount a Secret the chart makes from the user's credentials: the
   * lab's kubelets run pods of every namespace, and one whose Secret is missing waits for it, which
   * the verdict names, as it names pods the API server refuses to create (no ServiceAccount in that
   * namespace). With both, the same manifest bootstraps.
   */
  @Test
  void aCcmInTheDefaultNamespaceRunsOnceTheSecretItMountsExists() throws Exception {
    String withoutAccount =
        Scenarios.manifest("recommended")
            .replace(
                "  name: cloud-controller-manager\n  namespace: kube-system\n",
                "  name: cloud-controller-manager\n")
            .replace(
                "      hostNetwork: true\n",
                """
                      hostNetwork: true
                      volumes:
                      - name: cloud-config
                        secret:
                          secretName: lab-cloud-config
                """)
            .replaceFirst(
                "(?m)^(\\s*)args:\n(\\s*)- run$",
                "$1volumeMounts:\n$1- name: cloud-config\n$1  mountPath: /etc/cloud\n$1args:\n$2- run");
    assertThat(withoutAccount)
        .doesNotContain("namespace: kube-system\n  labels")
        .contains("secretName: lab-cloud-config")
        .contains("mountPath: /etc/cloud");

    // The ServiceAccount the pods run as is in kube-system (deploy/rbac.yaml), not in default.
    LabResult notCreated = run("account-missing", withoutAccount);

    assertThat(notCreated.verdict()).isEqualTo(LabResult.DEADLOCKED);
    assertThat(notCreated.seconds()).isLessThan(DEADLOCK_VERDICT_WITHIN_SECONDS);
    assertThat(notCreated.explanation())
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("Deployment default/cloud-controller-manager creates no pod: ")
                    .contains("serviceaccount"));

    String withoutSecret =
        withoutAccount
            + """
            ---
            apiVersion: v1
            kind: ServiceAccount
            metadata:
              name: cloud-controller-manager
            """;
    LabResult waiting = run("secret-missing", withoutSecret);

    assertThat(waiting.verdict()).isEqualTo(LabResult.DEADLOCKED);
    assertThat(waiting.seconds()).isLessThan(DEADLOCK_VERDICT_WITHIN_SECONDS);
    assertThat(waiting.explanation())
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("pod default/cloud-controller-manager-")
                    .contains("cannot start: its volume cloud-config mounts the Secret")
                    .contains("default/lab-cloud-config, which does not exist"));

    String withSecret =
        withoutSecret
            + """
            ---
            apiVersion: v1
            kind: Secret
            metadata:
              name: lab-cloud-config
            stringData:
              cloud.conf: "region: lab"
            """;

    assertBootstrappedAndServing(run("secret-given", withSecret));
  }

  /**
   * The Azure pattern fixed: tolerating network-unavailable, the CCM schedules, hands out the pod
   * CIDRs and creates the routes, which clear every node's NetworkUnavailable.
   */
  @Test
  void theDoctorsFixOfTheRoutesDeadlockBootstrapsThroughTheRoutes() throws Exception {
    String fixed = DoctorFixes.fixed("network-unavailable-with-routes", temp);
    assertThat(fixed).contains("node.kubernetes.io/network-unavailable");

    LabResult result = run("routes-fixed", fixed);

    assertBootstrappedAndServing(result);
    assertThat(result.timeline().entries())
        .anySatisfy(
            e ->
                assertThat(e.what())
                    .isEqualTo("NetworkUnavailable until its route exists (routes by the CCM)"));
  }

  @Test
  void theDoctorsFixOfADeadlockBootstraps() throws Exception {
    String fixed = DoctorFixes.fixed("missing-uninitialized-toleration", temp);

    assertBootstrappedAndServing(run("fixed", fixed));
  }
}
