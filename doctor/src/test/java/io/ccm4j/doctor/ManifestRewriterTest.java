package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.difflib.DiffUtils;
import com.github.difflib.patch.AbstractDelta;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --fix keeps the file: only the fixed fields' lines differ. */
class ManifestRewriterTest {

  private static final Path REWRITE = Path.of("src", "test", "resources", "rewrite");

  @TempDir Path temp;

  /** The files of the paths, each fixed: file to fixed text. */
  private static Map<Path, String> fix(List<Path> paths) throws Exception {
    List<ManifestDocument> documents = Manifests.read(paths);
    List<CcmWorkload> workloads = Doctor.workloads(documents);
    for (CcmWorkload workload : workloads) {
      Doctor.fix(workload);
    }
    List<String> notices = new ArrayList<>();
    Map<Path, String> texts = Doctor.fixedTexts(documents, workloads, notices::add);
    assertThat(notices).isEmpty();
    return texts;
  }

  private static List<String> removed(String before, String after) {
    return DiffUtils.diff(before.lines().toList(), after.lines().toList()).getDeltas().stream()
        .map(AbstractDelta::getSource)
        .flatMap(chunk -> chunk.getLines().stream())
        .toList();
  }

  private static List<String> added(String before, String after) {
    return DiffUtils.diff(before.lines().toList(), after.lines().toList()).getDeltas().stream()
        .map(AbstractDelta::getTarget)
        .flatMap(chunk -> chunk.getLines().stream())
        .toList();
  }

  @Test
  void aCommentedManifestKeepsEveryLineButTheFixedOnes() throws Exception {
    Path file = REWRITE.resolve("commented-vendor-daemonset.yaml");
    String before = Files.readString(file);

    String after = fix(List.of(file)).get(file);

    assertThat(removed(before, after))
        .containsExactly(
            "      # Only on the masters.",
            "      nodeSelector:",
            "        node-role.kubernetes.io/master: \"\"",
            "            - --leader-elect=false   # we thought one was enough");
    assertThat(added(before, after))
        .containsExactly(
            "        - key: node.cloudprovider.kubernetes.io/uninitialized",
            "          operator: Exists",
            "          effect: NoSchedule",
            "        - key: node.kubernetes.io/not-ready",
            "          operator: Exists",
            "        - key: node-role.kubernetes.io/control-plane",
            "          operator: Exists",
            "          effect: NoSchedule",
            "            - --leader-elect=true   # we thought one was enough",
            "      affinity:",
            "        nodeAffinity:",
            "          requiredDuringSchedulingIgnoredDuringExecution:",
            "            nodeSelectorTerms:",
            "              - matchExpressions:",
            "                  - key: node-role.kubernetes.io/control-plane",
            "                    operator: Exists",
            "        podAntiAffinity:",
            "          requiredDuringSchedulingIgnoredDuringExecution:",
            "            - labelSelector:",
            "                matchLabels:",
            "                  k8s-app: vendor-cloud-controller-manager",
            "              topologyKey: kubernetes.io/hostname",
            "      hostNetwork: true",
            "  strategy:",
            "    type: RollingUpdate",
            "    rollingUpdate:",
            "      maxSurge: 0",
            "      maxUnavailable: 1");
    List<ManifestDocument> fixed = Manifests.read(after, file);
    assertThat(Doctor.examine(fixed)).isEmpty();
  }

  /**
   * Flow style (one line per object, as `kubectl create --dry-run -o yaml` does not write but many
   * hand-written tests do), a kind: List and characters outside the BMP: edited in place, in the
   * flow style they are written in.
   */
  @Test
  void flowStyleAndListsAreEditedInTheirOwnStyle() throws Exception {
    Path file = temp.resolve("flow.yaml");
    String before =
        """
        # 🚀 a comment with a character outside the BMP
        apiVersion: v1
        kind: List
        items:
        - apiVersion: v1
          kind: ConfigMap
          metadata: {name: first}   # stays
        - apiVersion: apps/v1
          kind: DaemonSet
          metadata: {name: ccm, namespace: kube-system}
          spec:
            selector: {matchLabels: {app: ccm}}
            template:
              metadata: {labels: {app: ccm}}
              spec: {hostNetwork: true, containers: [{name: ccm, image: "ccm4j:0.1.0", args: [run, --cloud-provider=sim]}]}  # one line
        """;
    Files.writeString(file, before);

    String after = fix(List.of(file)).get(file);

    assertThat(removed(before, after))
        .containsExactly(
            "      spec: {hostNetwork: true, containers: [{name: ccm, image: \"ccm4j:0.1.0\", args:"
                + " [run, --cloud-provider=sim]}]}  # one line");
    assertThat(added(before, after))
        .singleElement()
        .satisfies(
            line ->
                assertThat(line)
                    .startsWith(
                        "      spec: {hostNetwork: true, containers: [{name: ccm, image:"
                            + " \"ccm4j:0.1.0\", args: [run, --cloud-provider=sim]}], affinity:"
                            + " {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
                            + " {nodeSelectorTerms: [{matchExpressions: [{key:"
                            + " node-role.kubernetes.io/control-plane, operator: Exists}]}]}}},"
                            + " tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized,"
                            + " operator: Exists, effect: NoSchedule}")
                    .endsWith("}  # one line"));
    assertThat(Doctor.examine(Manifests.read(after, file))).isEmpty();
  }

  /**
   * Every shipped scenario and vendor-shaped manifest: rewritten in place (no fallback), every
   * comment kept in order but those that annotated a deleted entry, and the result reads back with
   * no error.
   */
  @Test
  void everyScenarioIsRewrittenInPlaceKeepingItsComments() throws Exception {
    List<Path> files = new ArrayList<>();
    for (Path directory :
        List.of(
            Path.of("src", "main", "resources", "io", "ccm4j", "doctor", "scenarios"),
            Path.of("src", "test", "resources", "vendor"),
            REWRITE)) {
      try (var list = Files.list(directory)) {
        list.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(files::add);
      }
    }
    assertThat(files).hasSizeGreaterThan(5);
    for (Path file : files) {
      String before = Files.readString(file);
      String after = fix(List.of(file)).getOrDefault(file, before);
      List<String> gone = removed(before, after);
      List<String> comments =
          before
              .lines()
              .filter(line -> line.stripLeading().startsWith("#") && !gone.contains(line))
              .toList();
      if (!comments.isEmpty()) {
        assertThat(after.lines().toList()).as(file.toString()).containsSubsequence(comments);
      }
      // A placeholder is what only the user can fill in: --fix leaves it, and says so.
      assertThat(Doctor.examine(Manifests.read(after, file)))
          .as(file.toString())
          .noneMatch(
              finding ->
                  finding.severity() == Rule.Severity.ERROR
                      && !finding.rule().equals(Rule.PLACEHOLDER.id()));
    }
  }

  /** A changed value keeps its quotes; a file with CRLF line breaks gets CRLF in what is added. */
  @Test
  void aChangedValueKeepsItsQuotesAndAddedLinesTheFilesLineBreaks() throws Exception {
    Path file = temp.resolve("crlf.yaml");
    String before =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm, namespace: kube-system}
        spec:
          replicas: 2
          selector: {matchLabels: {app: ccm}}
          template:
            metadata: {labels: {app: ccm}}
            spec:
              hostNetwork: true
              containers:
              - name: ccm
                image: ccm4j:0.1.0
                args: ["run", "--cloud-provider=sim", 'x']
                command:
                - "--leader-elect=false"   # quoted
        """
            .replace("\n", "\r\n");
    Files.writeString(file, before);

    String after = fix(List.of(file)).get(file);

    assertThat(after).doesNotContainPattern("[^\\r]\\n");
    assertThat(removed(before, after))
        .containsExactly("        - \"--leader-elect=false\"   # quoted");
    assertThat(added(before, after)).contains("        - \"--leader-elect=true\"   # quoted");
    assertThat(Doctor.examine(Manifests.read(after, file)))
        .noneMatch(finding -> finding.severity() == Rule.Severity.ERROR);
  }

  /**
   * A nodeSelector on the master label that is the pod spec's last entry is deleted, and the keys
   * the fix adds go after the entry before it: the file keeps its formatting and comments.
   */
  @Test
  void keysAreAddedAfterTheLastEntryThatStays() throws Exception {
    Path file = temp.resolve("last-selector.yaml");
    String before =
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata:
          name: ccm
          namespace: kube-system
        spec:
          selector:
            matchLabels:
              app: ccm
          template:
            metadata:
              labels:
                app: ccm
            spec:
              containers:
              - name: ccm
                image: ccm4j:0.1.0
                args: [run, --cloud-provider=sim]
              tolerations:
              - key: node.cloudprovider.kubernetes.io/uninitialized  # bootstrap
                operator: Exists
              nodeSelector:
                node-role.kubernetes.io/master: ""
        """;
    Files.writeString(file, before);

    String after = fix(List.of(file)).get(file);

    assertThat(removed(before, after))
        .containsExactly("      nodeSelector:", "        node-role.kubernetes.io/master: \"\"");
    assertThat(after)
        .contains("      - key: node.cloudprovider.kubernetes.io/uninitialized  # bootstrap")
        .contains("      hostNetwork: true\n");
    assertThat(Doctor.examine(Manifests.read(after, file)))
        .noneMatch(finding -> finding.severity() == Rule.Severity.ERROR);
  }

  /**
   * The comment lines right above a deleted entry, at its indentation, go with it; a comment
   * separated from it by a blank line, one at another indentation and one after it stay.
   */
  @Test
  void commentsRightAboveADeletedEntryGoWithIt() throws Exception {
    Path file = temp.resolve("annotated-selector.yaml");
    String before =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm, namespace: kube-system}
        spec:
          selector: {matchLabels: {app: ccm}}
          template:
            metadata: {labels: {app: ccm}}
            spec:
              # Placement.

              # Only on the masters,
              # where the old label is.
              nodeSelector:
                node-role.kubernetes.io/master: ""
              # The CCM itself.
              containers:
              - name: ccm
                image: ccm4j:0.1.0
                args: [run, --cloud-provider=sim]
              tolerations:
              - key: node.kubernetes.io/not-ready
                operator: Exists
                # Evicted at once.
                tolerationSeconds: 0
        """;
    Files.writeString(file, before);

    String after = fix(List.of(file)).get(file);

    assertThat(removed(before, after))
        .containsExactly(
            "      # Only on the masters,",
            "      # where the old label is.",
            "      nodeSelector:",
            "        node-role.kubernetes.io/master: \"\"",
            "        # Evicted at once.",
            "        tolerationSeconds: 0");
    assertThat(after).contains("      # Placement.\n\n", "      # The CCM itself.\n");
    assertThat(Doctor.examine(Manifests.read(after, file)))
        .noneMatch(finding -> finding.severity() == Rule.Severity.ERROR);
  }

  /**
   * A CCM started by a shell script written as a literal block: the flag is changed inside the
   * block, which stays a block; nothing else of the script changes.
   */
  @Test
  void aFlagInsideAShellScriptBlockIsChangedInPlace() throws Exception {
    Path file = temp.resolve("shell.yaml");
    String before =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm, namespace: kube-system}
        spec:
          replicas: 2
          strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}
          selector: {matchLabels: {app: ccm}}
          template:
            metadata: {labels: {app: ccm}}
            spec:
              hostNetwork: true
              containers:
              - name: ccm
                image: alpine:3
                command:
                - /bin/sh
                - -c
                - |
                  # the region comes from the node
                  export AWS_REGION=eu-west-1
                  exec /bin/aws-cloud-controller-manager \\
                    --cloud-provider=aws \\
                    --leader-elect false \\
                    --v=2
        """;
    Files.writeString(file, before);

    String after = fix(List.of(file)).get(file);

    assertThat(removed(before, after)).containsExactly("            --leader-elect false \\");
    assertThat(added(before, after))
        .startsWith("            --leader-elect=true \\")
        .doesNotContain("            --v=2");
    assertThat(Doctor.examine(Manifests.read(after, file))).isEmpty();
  }

  /**
   * oracle/oci-cloud-controller-manager's DaemonSet indents its args under their key and its
   * tolerations not: the stray argument's fix (two items become one) rewrites the args in their own
   * style, so only the changed items differ.
   */
  @Test
  void aListRewrittenWhereItStandsKeepsItsOwnIndentation() throws Exception {
    Path file = temp.resolve("oci.yaml");
    String before =
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: oci-cloud-controller-manager, namespace: kube-system}
        spec:
          selector: {matchLabels: {app: ccm}}
          template:
            metadata: {labels: {app: ccm}}
            spec:
              hostNetwork: true
              nodeSelector: {node-role.kubernetes.io/control-plane: ""}
              tolerations:
              - key: node.cloudprovider.kubernetes.io/uninitialized
                operator: Exists
              - key: node-role.kubernetes.io/control-plane
                operator: Exists
              - key: node.kubernetes.io/not-ready
                operator: Exists
              containers:
                - name: oci-cloud-controller-manager
                  image: ghcr.io/oracle/cloud-provider-oci:v1.35.0
                  args:
                    - --cloud-provider=oci
                    - --v=2
                    - --leader-elect
                    - "false"
        """;
    Files.writeString(file, before);

    String after = fix(List.of(file)).get(file);

    assertThat(removed(before, after))
        .containsExactly("            - --leader-elect", "            - \"false\"");
    assertThat(added(before, after)).containsExactly("            - --leader-elect=true");
  }

  /**
   * A JSON manifest (kubectl reads a file starting with a brace as JSON) is fixed in JSON: added
   * keys and values quoted, so that it is still JSON.
   */
  @Test
  void aJsonManifestStaysJson() throws Exception {
    Path file = temp.resolve("ccm.json");
    String before =
        """
        {"apiVersion": "v1", "kind": "List", "items": [
         {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "ccm", "namespace": "kube-system"},
          "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "ccm"}}, "template": {"metadata": {"labels": {"app": "ccm"}},
           "spec": {"tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
            "containers": [{"name": "ccm", "image": "ccm4j:0.1.0", "args": ["run", "--cloud-provider=sim", "--leader-elect=false"]}]}}}}
        ]}
        """;
    Files.writeString(file, before);

    String after = fix(List.of(file)).get(file);

    Object parsed = new com.fasterxml.jackson.databind.ObjectMapper().readValue(after, Map.class);
    assertThat(parsed).isInstanceOf(Map.class);
    assertThat(after)
        .contains("\"--leader-elect=true\"")
        .contains("\"hostNetwork\": true")
        .contains(
            "{\"key\":\"node.cloudprovider.kubernetes.io/uninitialized\",\"operator\":\"Exists\","
                + "\"effect\":\"NoSchedule\"}");
    assertThat(Doctor.examine(Manifests.read(after, file)))
        .noneMatch(finding -> finding.severity() == Rule.Severity.ERROR);
  }

  /**
   * A mapping whose every entry goes and gets another (a required term moved to the preferred
   * ones), and a key added after the mapping that held the deleted entry: each lands where the
   * deleted lines were, the comments around them stay, with either line break.
   */
  @org.junit.jupiter.params.ParameterizedTest(name = "line break {0}")
  @org.junit.jupiter.params.provider.ValueSource(strings = {"LF", "CRLF"})
  void anEntryReplacedByAnotherInAMappingOfItsOwnKeepsTheLinesAround(String lineBreak) {
    String text =
        String.join(
            lineBreak.equals("LF") ? "\n" : "\r\n",
            "spec:",
            "  affinity:",
            "    podAntiAffinity:",
            "      # one per region",
            "      required:",
            "        - region",
            "  # the rest",
            "  hostNetwork: false",
            "");
    Map<String, Object> before =
        Map.of(
            "spec",
            Map.of(
                "affinity",
                Map.of("podAntiAffinity", Map.of("required", List.of("region"))),
                "hostNetwork",
                false));
    Map<String, Object> after =
        Map.of(
            "spec",
            new java.util.LinkedHashMap<String, Object>(
                Map.of(
                    "affinity",
                    new java.util.LinkedHashMap<String, Object>(
                        Map.of(
                            "podAntiAffinity", Map.of("preferred", List.of("region")),
                            "nodeAffinity", Map.of("required", List.of("control-plane")))),
                    "hostNetwork",
                    true)));

    String rewritten =
        ManifestRewriter.rewrite(text, List.of(new ManifestRewriter.Change(0, before, after)));

    assertThat(rewritten.lines().toList())
        .containsExactly(
            "spec:",
            "  affinity:",
            "    podAntiAffinity:",
            "      preferred:",
            "        - region",
            "    nodeAffinity:",
            "      required:",
            "        - control-plane",
            "  # the rest",
            "  hostNetwork: true");
    assertThat(rewritten.contains("\r\n")).isEqualTo(lineBreak.equals("CRLF"));
    assertThat(rewritten.replace("\r\n", "")).doesNotContain("\r");
  }
}
