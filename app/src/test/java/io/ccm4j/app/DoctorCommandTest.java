package io.ccm4j.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DoctorCommandTest {

  private static final Path SCENARIOS =
      Path.of("..", "doctor", "src", "main", "resources", "io", "ccm4j", "doctor", "scenarios");
  private static final Path BROKEN =
      Path.of("..", "doctor", "src", "test", "resources", "broken.yaml");

  @TempDir Path temp;

  @Test
  void theShippedManifestsPassAndADeadlockIsAnErrorWhoseFixPasses() throws Exception {
    assertThat(Ccm4j.execute("doctor", "../deploy")).isZero();

    Path fixed = temp.resolve("fixed.yaml");
    assertThat(
            Ccm4j.execute(
                "doctor",
                SCENARIOS.resolve("missing-uninitialized-toleration.yaml").toString(),
                "--fix",
                fixed.toString()))
        .isEqualTo(1);
    assertThat(Files.readString(fixed)).contains("node.cloudprovider.kubernetes.io/uninitialized");
    assertThat(Ccm4j.execute("doctor", "-o", "json", fixed.toString())).isZero();
  }

  /**
   * A manifest piped in ({@code helm template ... | ccm4j doctor /dev/stdin --diff}, or {@code
   * <(kubectl kustomize ...)}) can be read once: the fix edits the text as it was read, keeping its
   * comments, and the diff is against it. A second read of the pipe finds it empty.
   */
  @Test
  void aPipedManifestIsReadOnceAndFixedKeepingItsText() throws Exception {
    Path manifest =
        Path.of(
            "..", "doctor", "src", "test", "resources", "vendor", "openstack-style-daemonset.yaml");
    String text = Files.readString(manifest);
    String added = "      - key: node.kubernetes.io/not-ready\n        operator: Exists\n";
    String fixed =
        text.replace(
            "        effect: NoSchedule\n      serviceAccountName",
            "        effect: NoSchedule\n" + added + "      serviceAccountName");

    Path diffPipe = pipeGivingOnce(text);
    StringWriter diff = new StringWriter();
    assertThat(
            new picocli.CommandLine(new Ccm4j())
                .setOut(new PrintWriter(diff, true))
                .execute("doctor", diffPipe.toString(), "--diff"))
        .isZero();
    assertThat(diff.toString().lines().filter(line -> line.matches("^[-+](?![-+]{2} ).*")))
        .containsExactly("+      - key: node.kubernetes.io/not-ready", "+        operator: Exists");

    Path fixPipe = pipeGivingOnce(text);
    Path out = temp.resolve("fixed.yaml");
    StringWriter err = new StringWriter();
    assertThat(
            new picocli.CommandLine(new Ccm4j())
                .setOut(new PrintWriter(new StringWriter(), true))
                .setErr(new PrintWriter(err, true))
                .execute("doctor", fixPipe.toString(), "--fix", out.toString()))
        .isZero();
    assertThat(err.toString()).isEmpty();
    assertThat(Files.readString(out)).isEqualTo(fixed);
  }

  /**
   * A named pipe that gives {@code text} to its first reader and nothing to a second, as a shell's
   * pipe or process substitution does.
   */
  private Path pipeGivingOnce(String text) throws Exception {
    Path fifo = temp.resolve("pipe-" + System.nanoTime());
    org.junit.jupiter.api.Assumptions.assumeTrue(
        new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0, "mkfifo");
    Thread writer =
        new Thread(
            () -> {
              try {
                Files.writeString(fifo, text);
                while (true) {
                  Files.writeString(fifo, ""); // a later reader: the end of the pipe at once
                }
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    writer.setDaemon(true); // blocks on its next opening when nothing reads again
    writer.start();
    return fifo;
  }

  @Test
  void unreadableInputIsOneLineNamingFileAndLineWithExitCode2() {
    StringWriter err = new StringWriter();

    int exit = Ccm4j.execute(new PrintWriter(err, true), "doctor", BROKEN.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).containsPattern("broken.yaml:5: not valid YAML");
    assertThat(err.toString().lines()).hasSize(1);
  }

  /**
   * With -o json a manifest that cannot be read is still a JSON document on standard output, naming
   * the file, the line (null when the whole file is concerned) and the reason; the message and exit
   * code 2 are as in text mode. A file skipped in a directory scan is listed the same way.
   */
  @Test
  void unreadableInputWithJsonOutputIsAJsonDocumentNamingFileAndReason() throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Path missing = temp.resolve("missing.yaml");

    int exit =
        new picocli.CommandLine(new Ccm4j())
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true))
            .execute("doctor", "-o", "json", BROKEN.toString());
    StringWriter outMissing = new StringWriter();
    int exitMissing =
        new picocli.CommandLine(new Ccm4j())
            .setOut(new PrintWriter(outMissing, true))
            .execute("doctor", "-o", "json", missing.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("broken.yaml:5: not valid YAML");
    JsonNode report = new ObjectMapper().readTree(out.toString());
    assertThat(report.get("workloads")).isEmpty();
    assertThat(report.get("findings")).isEmpty();
    assertThat(report.get("unreadable")).hasSize(1);
    JsonNode unreadable = report.get("unreadable").get(0);
    assertThat(unreadable.get("file").asText()).isEqualTo(BROKEN.toString());
    assertThat(unreadable.get("line").asInt()).isEqualTo(5);
    assertThat(unreadable.get("reason").asText()).startsWith("not valid YAML: ");

    assertThat(exitMissing).isEqualTo(2);
    JsonNode missingReport = new ObjectMapper().readTree(outMissing.toString()).get("unreadable");
    assertThat(missingReport.get(0).get("file").asText()).isEqualTo(missing.toString());
    assertThat(missingReport.get(0).get("line").isNull()).isTrue();
    assertThat(missingReport.get(0).get("reason").asText()).isEqualTo("no such file or directory");

    Path directory = Files.createDirectories(temp.resolve("manifests"));
    Files.copy(BROKEN, directory.resolve("a-broken.yaml"));
    Files.copy(
        SCENARIOS.resolve("missing-uninitialized-toleration.yaml"), directory.resolve("b.yaml"));
    StringWriter scan = new StringWriter();
    new picocli.CommandLine(new Ccm4j())
        .setOut(new PrintWriter(scan, true))
        .setErr(new PrintWriter(new StringWriter(), true))
        .execute("doctor", "-o", "json", directory.toString());
    JsonNode scanned = new ObjectMapper().readTree(scan.toString());
    assertThat(scanned.get("findings")).isNotEmpty();
    assertThat(scanned.get("unreadable").get(0).get("file").asText()).endsWith("a-broken.yaml");
  }

  @Test
  void twoWorkloadsWithTheSameKindAndNameKeepTheirOwnFindings() {
    StringWriter out = new StringWriter();
    var command = new picocli.CommandLine(new Ccm4j()).setOut(new PrintWriter(out, true));

    int exit =
        command.execute(
            "doctor",
            "../deploy/deployment.yaml",
            SCENARIOS.resolve("missing-uninitialized-toleration.yaml").toString());

    assertThat(exit).isEqualTo(1);
    assertThat(out.toString())
        .containsPattern(
            "Deployment/cloud-controller-manager \\(\\.\\./deploy/deployment.yaml:[0-9]+\\):"
                + " follows every recommendation\n"
                + "  taken for a cloud-controller-manager: image name ccm4j")
        .containsPattern(
            "Deployment/cloud-controller-manager \\(.*missing-uninitialized-toleration.yaml:[0-9]+\\):"
                + " 1 problem");
  }

  /**
   * No CCM in the input: the doctor says which workloads pass --cloud-provider all the same, and
   * --fix writes no empty file. A finding names a page the user can open, not an internal id.
   */
  @Test
  void withoutACcmTheOthersPassingCloudProviderAreNamedAndNothingIsWritten() throws Exception {
    Path manifest = temp.resolve("autoscaler.yaml");
    Files.writeString(
        manifest,
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: cluster-autoscaler, namespace: kube-system}
        spec: {selector: {matchLabels: {app: ca}}, template: {metadata: {labels: {app: ca}}, spec: {containers: [
          {name: cluster-autoscaler, image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.0,
           command: [./cluster-autoscaler, --cloud-provider=aws]}]}}}
        """);
    Path fixed = temp.resolve("fixed.yaml");
    StringWriter out = new StringWriter();
    var command = new picocli.CommandLine(new Ccm4j()).setOut(new PrintWriter(out, true));

    int exit = command.execute("doctor", manifest.toString(), "--fix", fixed.toString());

    assertThat(exit).isZero();
    assertThat(out.toString())
        .contains("No cloud-controller-manager workload found.")
        .contains("WARNING Deployment/cluster-autoscaler (")
        .contains("flag --cloud-provider=aws")
        .contains("not taken for one: its name says autoscaler")
        .contains("Nothing to fix: " + fixed + " not written.");
    assertThat(fixed).doesNotExist();

    StringWriter findings = new StringWriter();
    new picocli.CommandLine(new Ccm4j())
        .setOut(new PrintWriter(findings, true))
        .execute("doctor", SCENARIOS.resolve("missing-uninitialized-toleration.yaml").toString());
    assertThat(findings.toString())
        .contains(
            "see: The Cloud Controller Manager Chicken and Egg Problem (Kubernetes blog,"
                + " 2025-02-14), https://kubernetes.io/blog/2025/02/14/cloud-controller-manager-chicken-egg-problem/")
        .doesNotContain("seed");
  }

  /**
   * A CCM whose only problem is one --fix cannot fill in (the image's placeholder): the note says
   * what to do by hand, and the copy is written unchanged, said so, not as corrected.
   */
  @Test
  void whatOnlyItsAuthorCanFixIsWrittenUnchangedAndSaidSo() throws Exception {
    Path manifest =
        Path.of(
            "..", "doctor", "src", "test", "resources", "vendor", "nutanix-style-deployment.yaml");
    Path fixed = temp.resolve("fixed.yaml");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var command =
        new picocli.CommandLine(new Ccm4j())
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true));

    int exit = command.execute("doctor", manifest.toString(), "--fix", fixed.toString());

    assertThat(exit).isEqualTo(1);
    assertThat(out.toString())
        .contains("${IMG}")
        .contains(
            "Wrote the input (1 object) to "
                + fixed
                + " unchanged: nothing in it is for --fix to change.")
        .doesNotContain("corrected");
    assertThat(err.toString()).contains("note: ");
    assertThat(fixed).hasSameTextualContentAs(manifest);
  }

  /** A directory scan reports a bad file in one line and goes on with the rest. */
  @Test
  void aDirectoryScanSkipsABadFileAndGoesOn() throws Exception {
    Path directory = Files.createDirectories(temp.resolve("manifests"));
    Files.copy(BROKEN, directory.resolve("a-broken.yaml"));
    Files.copy(
        SCENARIOS.resolve("missing-uninitialized-toleration.yaml"),
        directory.resolve("b-ccm.yaml"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    var command =
        new picocli.CommandLine(new Ccm4j())
            .setOut(new PrintWriter(out, true))
            .setErr(new PrintWriter(err, true));

    int exit = command.execute("doctor", directory.toString());

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString().lines())
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .startsWith("skipped ")
                    .contains("a-broken.yaml:5: not valid YAML"));
    assertThat(out.toString()).contains("b-ccm.yaml").contains("tolerate-uninitialized");
  }

  /** --fix is a drop-in: every object of the input, in order; only the CCM changes. */
  @Test
  void theFixKeepsEveryObjectOfTheInputInOrder() throws Exception {
    Path manifest = temp.resolve("vendor.yaml");
    Files.writeString(
        manifest,
        """
        apiVersion: v1
        kind: ServiceAccount
        metadata: {name: cloud-controller-manager, namespace: kube-system}
        ---
        """
            + Files.readString(SCENARIOS.resolve("missing-uninitialized-toleration.yaml"))
            + """

            ---
            apiVersion: rbac.authorization.k8s.io/v1
            kind: ClusterRoleBinding
            metadata: {name: system:cloud-controller-manager}
            roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
            subjects: [{kind: ServiceAccount, name: cloud-controller-manager, namespace: kube-system}]
            ---
            apiVersion: v1
            kind: Secret
            metadata: {name: cloud-config, namespace: kube-system}
            stringData: {cloud.conf: "region: r1"}
            """);
    Path fixed = temp.resolve("fixed.yaml");
    StringWriter out = new StringWriter();

    assertThat(
            new picocli.CommandLine(new Ccm4j())
                .setOut(new PrintWriter(out, true))
                .execute("doctor", manifest.toString(), "--fix", fixed.toString()))
        .isEqualTo(1);

    assertThat(out.toString())
        .contains("Wrote the input (4 objects) to " + fixed + " with the CCM workloads corrected.");
    var documents = io.ccm4j.doctor.Manifests.read(java.util.List.of(fixed));
    assertThat(documents)
        .extracting(io.ccm4j.doctor.ManifestDocument::kind)
        .containsExactly("ServiceAccount", "Deployment", "ClusterRoleBinding", "Secret");
    assertThat(Files.readString(fixed))
        .contains("node.cloudprovider.kubernetes.io/uninitialized", "region: r1");
    assertThat(Ccm4j.execute("doctor", fixed.toString())).isZero();
  }

  /**
   * {@code --static-pod} judges a bare Pod that is not shaped like kubeadm's as the static pod the
   * user says it is: the scheduling rules and the scalable-workload advice no longer apply. Without
   * the switch the same Pod is a scheduled pod with a deadlock.
   */
  @Test
  void staticPodJudgesABarePodAsAStaticPod() throws Exception {
    Path pod = temp.resolve("ccm-static.yaml");
    Files.writeString(
        pod,
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: cloud-controller-manager, namespace: kube-system}
        spec:
          hostNetwork: true
          containers: [{name: ccm, image: registry.example/ccm:1, command: [ccm, --cloud-provider=example]}]
          volumes: [{name: kubeconfig, hostPath: {path: /var/lib/ccm/kubeconfig}}]
        """);
    StringWriter scheduled = new StringWriter();
    StringWriter declared = new StringWriter();

    int asScheduled =
        new picocli.CommandLine(new Ccm4j())
            .setOut(new PrintWriter(scheduled, true))
            .execute("doctor", pod.toString());
    int asStatic =
        new picocli.CommandLine(new Ccm4j())
            .setOut(new PrintWriter(declared, true))
            .execute("doctor", "--static-pod", pod.toString());

    assertThat(asScheduled).isEqualTo(1);
    assertThat(scheduled.toString()).contains("tolerate-uninitialized", "scalable-workload");
    assertThat(asStatic).as(declared.toString()).isZero();
    assertThat(declared.toString())
        .doesNotContain("tolerate-uninitialized", "scalable-workload", "ERROR");
  }

  @Test
  void staticPodWithALiveClusterIsRefusedNamingTheFlag() {
    StringWriter err = new StringWriter();

    int exit =
        new picocli.CommandLine(new Ccm4j())
            .setErr(new PrintWriter(err, true))
            .execute("doctor", "--static-pod", "--kubeconfig", "/nonexistent");

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains("--static-pod judges manifests");
  }

  @Test
  void aPodWithOnlyAGenerateNameIsReported() throws Exception {
    Path pod = temp.resolve("pod.yaml");
    Files.writeString(
        pod,
        """
        apiVersion: v1
        kind: Pod
        metadata: {generateName: ccm-, namespace: kube-system}
        spec: {hostNetwork: true, containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]}
        """);

    assertThat(Ccm4j.execute("doctor", pod.toString())).isEqualTo(1);
  }

  @Test
  void aMalformedWorkloadIsOneLineNamingFileAndLineWithExitCode2() throws Exception {
    Path manifest = temp.resolve("malformed.yaml");
    Files.writeString(
        manifest,
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: x}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm}
        spec:
          selector: {matchLabels: {app: ccm}}
          template:
            metadata: {labels: {app: ccm}}
            spec:
              tolerations: {key: node.kubernetes.io/not-ready}
              containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]
        """);
    StringWriter err = new StringWriter();

    int exit = Ccm4j.execute(new PrintWriter(err, true), "doctor", manifest.toString());

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString())
        .containsPattern(
            "malformed.yaml:5: not a valid Deployment \\(field spec.template.spec.tolerations\\)");
    assertThat(err.toString().lines()).hasSize(1);
  }

  /**
   * --diff prints the corrections as a unified diff of the input file and writes nothing; --fix
   * writes the same text, comments kept.
   */
  @Test
  void diffPrintsTheCorrectionsAndFixKeepsTheComments() throws Exception {
    Path manifest = temp.resolve("ccm.yaml");
    Files.copy(SCENARIOS.resolve("missing-uninitialized-toleration.yaml"), manifest);
    String before = Files.readString(manifest);
    StringWriter out = new StringWriter();
    var command = new picocli.CommandLine(new Ccm4j()).setOut(new PrintWriter(out, true));

    assertThat(command.execute("doctor", manifest.toString(), "--diff")).isEqualTo(1);

    assertThat(out.toString())
        .contains("--- " + manifest + "\n+++ " + manifest + "\n@@ ")
        .contains("\n+      - key: node.cloudprovider.kubernetes.io/uninitialized\n");
    assertThat(Files.readString(manifest)).isEqualTo(before);

    Path fixed = temp.resolve("fixed.yaml");
    assertThat(Ccm4j.execute("doctor", manifest.toString(), "--fix", fixed.toString()))
        .isEqualTo(1);
    List<String> comments =
        before.lines().filter(line -> line.stripLeading().startsWith("#")).toList();
    assertThat(comments).isNotEmpty();
    assertThat(Files.readString(fixed).lines().toList()).containsSubsequence(comments);
    assertThat(Ccm4j.execute("doctor", fixed.toString())).isZero();

    StringWriter err = new StringWriter();
    assertThat(
            Ccm4j.execute(
                new PrintWriter(err, true),
                "doctor",
                manifest.toString(),
                "--diff",
                "--fix",
                fixed.toString()))
        .isEqualTo(2);
    assertThat(err.toString()).contains("give --fix <file> or --diff");
  }
}
