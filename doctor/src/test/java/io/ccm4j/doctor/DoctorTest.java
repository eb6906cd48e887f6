package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DoctorTest {

  private static final Path DEPLOY = Path.of("..", "deploy");
  private static final Path SCENARIOS =
      Path.of("src", "main", "resources", "io", "ccm4j", "doctor", "scenarios");
  private static final Path BROKEN = Path.of("src", "test", "resources", "broken.yaml");

  @TempDir Path temp;

  private static final String TOLERATIONS =
      "tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, operator: Exists,"
          + " effect: NoSchedule}, {key: node-role.kubernetes.io/control-plane, operator: Exists,"
          + " effect: NoSchedule}, {key: node.kubernetes.io/not-ready, operator: Exists}]";
  private static final String CONTROL_PLANE_AFFINITY =
      "nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms:"
          + " [{matchExpressions: [{key: node-role.kubernetes.io/control-plane, operator: Exists}]},"
          + " {matchExpressions: [{key: node-role.kubernetes.io/master, operator: Exists}]}]}}";
  private static final String HOSTNAME_ANTI_AFFINITY =
      "podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey:"
          + " kubernetes.io/hostname, labelSelector: {matchLabels: {app: ccm}}}]}";
  private static final String ONE_AT_A_TIME =
      "strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}";

  private int files;

  /** A two-replica ccm4j Deployment with the given spec, pod spec and arguments (flow YAML). */
  private static String deployment(String spec, String pod, String args) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm, namespace: kube-system}
        spec: {replicas: 2, %s selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}},
          spec: {hostNetwork: true, %s containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim, %s]}]}}}
        """
        .formatted(spec.isEmpty() ? "" : spec + ",", pod.isEmpty() ? "" : pod + ",", args);
  }

  /** The recommended Deployment, with this placement (and anti-affinity). */
  private static String recommendedWith(String placement) {
    return deployment(ONE_AT_A_TIME, TOLERATIONS + ", " + placement, "--leader-elect=true");
  }

  private List<ManifestDocument> yaml(String text) throws Exception {
    Path file = temp.resolve("manifest-" + files++ + ".yaml");
    Files.writeString(file, text);
    return Manifests.read(List.of(file));
  }

  private List<String> rules(String text) throws Exception {
    return Doctor.examine(yaml(text)).stream().map(Finding::rule).toList();
  }

  /** The workloads of the text, fixed, written out and read back. */
  private List<CcmWorkload> fixed(String text) throws Exception {
    List<CcmWorkload> workloads = Doctor.workloads(yaml(text));
    for (CcmWorkload workload : workloads) {
      Doctor.fix(workload);
    }
    return Doctor.workloads(
        yaml(workloads.stream().map(CcmWorkload::toYaml).collect(Collectors.joining("---\n"))));
  }

  /** The text's workloads, fixed, written out. */
  private String fixedYaml(String text) throws Exception {
    return fixed(text).stream().map(CcmWorkload::toYaml).collect(Collectors.joining("---\n"));
  }

  private static List<String> errors(List<Finding> findings) {
    return findings.stream()
        .filter(f -> f.severity() == Rule.Severity.ERROR)
        .map(Finding::rule)
        .toList();
  }

  @Test
  void theRecommendedDeploymentReportsNothing() throws Exception {
    List<ManifestDocument> documents = Manifests.read(List.of(DEPLOY));

    assertThat(Doctor.workloads(documents)).hasSize(1);
    assertThat(Doctor.examine(documents)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "missing-uninitialized-toleration.yaml, tolerate-uninitialized",
    "pod-network.yaml, host-network",
    "replicas-without-leader-election.yaml, leader-election",
    "control-plane-only-taint.yaml, tolerate-control-plane",
    "master-only-toleration.yaml, tolerate-control-plane",
    "network-unavailable-with-routes.yaml, tolerate-network-unavailable",
  })
  void eachDeadlockingScenarioIsAnErrorOfItsRule(String file, String rule) throws Exception {
    List<Finding> findings = Doctor.examine(Manifests.read(List.of(SCENARIOS.resolve(file))));

    assertThat(errors(findings)).containsExactly(rule);
    Finding finding = findings.getFirst();
    assertThat(finding.source()).startsWith("The Cloud Controller Manager Chicken and Egg Problem");
    assertThat(finding.sourceUrl())
        .isEqualTo(
            "https://kubernetes.io/blog/2025/02/14/cloud-controller-manager-chicken-egg-problem/");
    assertThat(finding.consequence()).isNotBlank();
    assertThat(finding.fix()).isNotBlank();
    assertThat(finding.file()).endsWith(file);
  }

  @Test
  void fixingEveryScenarioLeavesNoError() throws Exception {
    for (Path file : Files.list(SCENARIOS).toList()) {
      List<CcmWorkload> workloads = Doctor.workloads(Manifests.read(List.of(file)));
      for (CcmWorkload workload : workloads) {
        Doctor.fix(workload);
      }
      Path fixed = temp.resolve(file.getFileName());
      Files.writeString(
          fixed, workloads.stream().map(CcmWorkload::toYaml).collect(Collectors.joining("---\n")));

      assertThat(errors(Doctor.examine(Manifests.read(List.of(fixed)))))
          .as(file.toString())
          .isEmpty();
    }
  }

  @Test
  void workloadsInsideAListAreFoundAndADaemonSetNeedsNoAntiAffinity() throws Exception {
    List<Finding> findings =
        Doctor.examine(Manifests.read(List.of(SCENARIOS.resolve("list-daemonset.yaml"))));

    assertThat(findings).extracting(Finding::kind).containsOnly("DaemonSet");
    assertThat(findings)
        .extracting(Finding::rule)
        .containsExactlyInAnyOrder(
            "tolerate-uninitialized",
            "tolerate-not-ready",
            "host-network",
            "control-plane-placement");
  }

  /**
   * kube-vip/kube-vip-cloud-provider manifest/kube-vip-cloud-controller.yaml: its binary registers
   * only upstream's service controller, so it cannot hold up a new node whatever it tolerates.
   */
  @Test
  void aCcmBuiltWithItsServiceControllerAloneHoldsUpNoNode() throws Exception {
    String kubeVip =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: kube-vip-cloud-provider, namespace: kube-system}
        spec:
          replicas: 1
          selector: {matchLabels: {app: kube-vip}}
          template:
            metadata: {labels: {app: kube-vip}}
            spec:
              containers:
              - command: [/kube-vip-cloud-provider, --leader-elect-resource-name=kube-vip-cloud-controller]
                image: ghcr.io/kube-vip/kube-vip-cloud-provider:v0.0.12
                name: kube-vip-cloud-provider
              tolerations:
              - {key: node-role.kubernetes.io/master, effect: NoSchedule}
              - {key: node-role.kubernetes.io/control-plane, effect: NoSchedule}
        """;

    List<Finding> findings = Doctor.examine(yaml(kubeVip));

    assertThat(findings).extracting(Finding::rule).doesNotContain("tolerate-uninitialized");
    assertThat(errors(findings)).doesNotContain("tolerate-not-ready", "host-network");
    assertThat(only(findings, "tolerate-not-ready").consequence())
        .contains(
            "This CCM does not initialise nodes (kube-vip-cloud-provider runs only its service"
                + " controller) and hands out no pod CIDRs or routes (kube-vip-cloud-provider runs"
                + " only its service controller)");
    // Another CCM's image with the same flags initialises nodes: an error, as before.
    String other = kubeVip.replace("kube-vip/kube-vip-cloud-provider:", "example/cloud-provider:");
    assertThat(errors(Doctor.examine(yaml(other)))).contains("tolerate-uninitialized");
  }

  /**
   * kubernetes/cloud-provider-aws examples/existing-cluster: a base and an overlay whose
   * kustomization patches the base's DaemonSet. The patch is no DaemonSet of its own.
   */
  @Test
  void aKustomizePatchIsNoObjectOfItsOwn() throws Exception {
    Path example = temp.resolve("existing-cluster");
    Path base = Files.createDirectories(example.resolve("base"));
    Path overlay = Files.createDirectories(example.resolve("overlays/superset-role"));
    Files.writeString(
        base.resolve("kustomization.yaml"),
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
            + "- aws-cloud-controller-manager-daemonset.yaml\n");
    Files.writeString(
        base.resolve("aws-cloud-controller-manager-daemonset.yaml"),
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: aws-cloud-controller-manager, namespace: kube-system}
        spec:
          selector: {matchLabels: {k8s-app: aws-cloud-controller-manager}}
          template:
            metadata: {labels: {k8s-app: aws-cloud-controller-manager}}
            spec:
              nodeSelector: {node-role.kubernetes.io/control-plane: ""}
              hostNetwork: true
              tolerations:
              - {key: node.cloudprovider.kubernetes.io/uninitialized, value: "true", effect: NoSchedule}
              - {key: node-role.kubernetes.io/control-plane, effect: NoSchedule}
              containers:
              - name: aws-cloud-controller-manager
                image: registry.k8s.io/provider-aws/cloud-controller-manager:v1.28.1
                args: [--v=2, --cloud-provider=aws]
        """);
    Files.writeString(
        overlay.resolve("kustomization.yaml"),
        "resources:\n- ../../base\npatches:\n"
            + "- path: aws-cloud-controller-manager-daemonset-patch.yaml\n");
    Path patch = overlay.resolve("aws-cloud-controller-manager-daemonset-patch.yaml");
    Files.writeString(
        patch,
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: aws-cloud-controller-manager, namespace: kube-system}
        spec:
          template:
            spec:
              containers:
              - name: aws-cloud-controller-manager
                args: [--v=2, --cloud-provider=aws, --use-service-account-credentials=true]
        """);
    List<ManifestException> skipped = new ArrayList<>();

    List<ManifestDocument> documents = Manifests.read(List.of(example), skipped::add);

    assertThat(documents)
        .extracting(ManifestDocument::file)
        .containsExactly(base.resolve("aws-cloud-controller-manager-daemonset.yaml"));
    assertThat(skipped)
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getMessage())
                    .isEqualTo(
                        patch
                            + ": a kustomize patch ("
                            + overlay.resolve("kustomization.yaml")
                            + " names it), no object of its own: the objects as applied are what"
                            + " kubectl kustomize prints"));

    // The overlay alone: its base is outside it, not read, and said so, rather than "no CCM".
    List<ManifestException> overlaySkipped = new ArrayList<>();

    assertThat(Manifests.read(List.of(overlay), overlaySkipped::add)).isEmpty();
    assertThat(overlaySkipped)
        .extracting(ManifestException::getMessage)
        .contains(
            base.toAbsolutePath().normalize()
                + ": a resource "
                + overlay.resolve("kustomization.yaml")
                + " names, outside the paths given: not read. The objects as applied are what"
                + " kubectl kustomize prints: ccm4j doctor <(kubectl kustomize "
                + overlay
                + ")");

    // The overlay given relative to the working directory: the base is named the same way.
    Path here = Path.of("").toAbsolutePath();
    Path relativeOverlay = here.relativize(overlay.toAbsolutePath());
    List<ManifestException> relativeSkipped = new ArrayList<>();

    assertThat(Manifests.read(List.of(relativeOverlay), relativeSkipped::add)).isEmpty();
    assertThat(relativeSkipped)
        .extracting(ManifestException::getMessage)
        .contains(
            here.relativize(base.toAbsolutePath().normalize())
                + ": a resource "
                + relativeOverlay.resolve("kustomization.yaml")
                + " names, outside the paths given: not read. The objects as applied are what"
                + " kubectl kustomize prints: ccm4j doctor <(kubectl kustomize "
                + relativeOverlay
                + ")");
  }

  /**
   * kubernetes-sigs/cloud-provider-equinix-metal deploy/template/deployment.yaml: three terms,
   * ORed, each asking for a control-plane role (the legacy kubernetes.io/role=master among them).
   * No term lets it onto a worker, so nothing is said of its placement and --fix leaves it alone.
   */
  @Test
  void oredTermsThatEachAskForTheControlPlaneKeepItThere() throws Exception {
    String equinix =
        single(
            "hostNetwork: true, tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized,"
                + " operator: Exists}, {key: node-role.kubernetes.io/control-plane, operator:"
                + " Exists}, {key: node.kubernetes.io/not-ready, operator: Exists}], affinity:"
                + " {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
                + " {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/role, operator:"
                + " In, values: [master]}]}, {matchExpressions: [{key:"
                + " node-role.kubernetes.io/control-plane, operator: Exists}]}, {matchExpressions:"
                + " [{key: node-role.kubernetes.io/master, operator: Exists}]}]}}}",
            "--v=2");

    assertThat(rules(equinix))
        .doesNotContain("control-plane-placement", "master-selector", "tolerate-control-plane");
    // The legacy role label alone asks for nodes of the master role, as the master label does.
    String legacyOnly =
        equinix.replace(
            ", {matchExpressions: [{key: node-role.kubernetes.io/control-plane, operator:"
                + " Exists}]}, {matchExpressions: [{key: node-role.kubernetes.io/master, operator:"
                + " Exists}]}",
            "");
    assertThat(legacyOnly).isNotEqualTo(equinix);
    assertThat(rules(legacyOnly))
        .contains("master-selector")
        .doesNotContain("control-plane-placement");
    // Fixed, it asks for the control-plane label instead, and nothing is left to say.
    assertThat(fixedYaml(legacyOnly)).doesNotContain("kubernetes.io/role");
    assertThat(rules(fixedYaml(legacyOnly))).isEmpty();
    // A nodeSelector on the legacy label selects the master role alike.
    String bySelector =
        legacyOnly.replace(
            "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
                + " {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/role, operator:"
                + " In, values: [master]}]}]}}}",
            "nodeSelector: {kubernetes.io/role: master}");
    assertThat(bySelector).isNotEqualTo(legacyOnly);
    assertThat(rules(bySelector)).contains("master-selector");
    assertThat(rules(fixedYaml(bySelector))).isEmpty();
  }

  @Test
  void aDocumentThatIsNoMappingIsNamedInYamlsWords() throws Exception {
    Path list = temp.resolve("list.yaml");
    Files.writeString(list, "- a\n- b\n");
    Path scalar = temp.resolve("scalar.yaml");
    Files.writeString(scalar, "just words\n");

    assertThatThrownBy(() -> Manifests.read(List.of(list)))
        .hasMessage(list + ":1: expected a Kubernetes object (a mapping), found a list");
    assertThatThrownBy(() -> Manifests.read(List.of(scalar)))
        .hasMessage(scalar + ":1: expected a Kubernetes object (a mapping), found a string");
  }

  /** A Helm chart's {@code env:} with no variables renders as a key without a value: null. */
  @Test
  void aKeyWithoutAValueIsNull() throws Exception {
    String ccm =
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: ccm, namespace: kube-system}
        spec:
          selector: {matchLabels: {app: ccm}}
          template:
            metadata: {labels: {app: ccm}}
            spec:
              containers:
              - name: ccm
                image: example/cloud-controller-manager:v1
                args: [--cloud-provider=example]
                env:
                resources: {}
        """;

    List<ManifestDocument> documents = yaml(ccm);

    assertThat(documents.getFirst().object()).extractingByKey("spec").isNotNull();
    assertThat(Doctor.workloads(documents)).hasSize(1);
  }

  @Test
  void aTabIsNamedAtItsOwnLine() throws Exception {
    Path file = temp.resolve("tab.yaml");
    Files.writeString(
        file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n\tkey: value\n");

    assertThatThrownBy(() -> Manifests.read(List.of(file)))
        .hasMessageStartingWith(file + ":6: not valid YAML: ");
  }

  @Test
  void theItemsOfAListAreFoundAtTheirOwnLines() throws Exception {
    List<ManifestDocument> documents =
        yaml(
            """
            apiVersion: v1
            kind: List
            items:
            - apiVersion: v1
              kind: ConfigMap
              metadata: {name: first}
            - apiVersion: v1
              kind: ConfigMap
              metadata:
                name: second
            """);

    assertThat(documents).extracting(ManifestDocument::line).containsExactly(4, 7);
  }

  /** kubectl get -A -o yaml of a modest cluster is one document of several MiB. */
  @Test
  void aDocumentOfManyMebibytesIsRead() throws Exception {
    StringBuilder text = new StringBuilder("apiVersion: v1\nkind: List\nitems:\n");
    int items = 0;
    while (text.length() < 4 * 1024 * 1024) {
      text.append("- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c")
          .append(items++)
          .append("}\n  data: {payload: \"")
          .append("x".repeat(2_000))
          .append("\"}\n");
    }
    Path file = temp.resolve("dump.yaml");
    Files.writeString(file, text);

    assertThat(Manifests.read(List.of(file))).hasSize(items);
  }

  @Test
  void unreadableInputNamesTheFileAndLine() {
    assertThatThrownBy(() -> Manifests.read(List.of(BROKEN)))
        .isInstanceOf(ManifestException.class)
        .hasMessageMatching("(?s).*broken.yaml:[1-9][0-9]*: .*")
        .hasMessageContaining("not valid YAML");
    assertThatThrownBy(() -> Manifests.read(List.of(temp.resolve("missing.yaml"))))
        .isInstanceOf(ManifestException.class)
        .hasMessageContaining("missing.yaml: no such file or directory");
  }

  /**
   * YAML anchors and aliases are read as kubectl reads them: an alias is the anchored value (not
   * the anchor's name), a merge key adds the anchored mapping's entries; anchors are per document.
   */
  @Test
  void aliasesAndMergeKeysAreResolved() throws Exception {
    String manifest =
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: acme-ccm, namespace: kube-system, labels: &labels {app: ccm}}
        spec:
          selector: {matchLabels: *labels}
          template:
            metadata: {labels: *labels}
            spec:
              hostNetwork: true
              nodeSelector: {node-role.kubernetes.io/control-plane: ""}
              tolerations:
              - &uninitialized {key: node.cloudprovider.kubernetes.io/uninitialized, operator: Exists}
              - {<<: *uninitialized, key: node-role.kubernetes.io/control-plane}
              - {<<: *uninitialized, key: node.kubernetes.io/not-ready}
              containers:
              - {name: ccm, image: &image acme/acme-cloud-controller-manager:v1, args: [--cloud-provider=acme]}
              initContainers:
              - {name: init, image: *image}
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: other}
        data: {image: *image}
        """;

    assertThatThrownBy(() -> yaml(manifest))
        .isInstanceOf(ManifestException.class)
        .hasMessageMatching("(?s).*manifest-0.yaml:23: the alias \\*image names no anchor.*");
    List<ManifestDocument> documents = yaml(manifest.substring(0, manifest.indexOf("---")));
    CcmWorkload workload = Doctor.workloads(documents).getFirst();
    assertThat(workload.podLabels()).containsExactly(java.util.Map.entry("app", "ccm"));
    assertThat(workload.pod().getInitContainers().getFirst().getImage())
        .isEqualTo("acme/acme-cloud-controller-manager:v1");
    assertThat(workload.pod().getTolerations())
        .extracting(t -> t.getKey() + " " + t.getOperator())
        .containsExactly(
            "node.cloudprovider.kubernetes.io/uninitialized Exists",
            "node-role.kubernetes.io/control-plane Exists",
            "node.kubernetes.io/not-ready Exists");
    assertThat(Doctor.examine(documents)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "node affinity on either role label | affinity: {CP_AFFINITY, HOSTNAME}                  |",
        "nodeSelector control-plane ''      | nodeSelector: {node-role.kubernetes.io/control-plane: ''}, affinity: {HOSTNAME} |",
        "nodeSelector control-plane true    | nodeSelector: {node-role.kubernetes.io/control-plane: 'true'}, affinity: {HOSTNAME} | control-plane-label-value",
        "nodeSelector master only           | nodeSelector: {node-role.kubernetes.io/master: ''}, affinity: {HOSTNAME} | master-selector",
        "no placement                       | affinity: {HOSTNAME}                                | control-plane-placement",
      })
  void controlPlanePlacementIsRecognisedInEveryForm(String name, String placement, String expected)
      throws Exception {
    String pod =
        placement
            .replace("CP_AFFINITY", CONTROL_PLANE_AFFINITY)
            .replace("HOSTNAME", HOSTNAME_ANTI_AFFINITY);

    assertThat(rules(recommendedWith(pod)))
        .containsExactlyElementsOf(expected == null ? List.of() : List.of(expected));
  }

  /**
   * On the clusters users run (1.25+) the control-plane nodes carry neither the master label nor
   * the master taint: tolerating only the old taint, or selecting only the old label, leaves the
   * pod unschedulable — both are errors.
   */
  @Test
  void theMasterTaintOrLabelAloneIsAnError() throws Exception {
    String masterToleration =
        deployment(
            "",
            "nodeSelector: {node-role.kubernetes.io/control-plane: ''}, tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, operator: Exists}, {key: node.kubernetes.io/not-ready, operator: Exists}, {key: node-role.kubernetes.io/master, operator: Exists, effect: NoSchedule}]",
            "--leader-elect=true");
    assertThat(rules(masterToleration)).contains("tolerate-control-plane");
    assertThat(Rule.TOLERATE_CONTROL_PLANE.severity()).isEqualTo(Rule.Severity.ERROR);
    assertThat(Rule.MASTER_SELECTOR.severity()).isEqualTo(Rule.Severity.ERROR);
  }

  /** A template not yet rendered is one line saying so, not the parser's internals. */
  @Test
  void anUnrenderedTemplateIsOneLineSayingSo() throws Exception {
    Path helm = temp.resolve("deployment.yaml");
    Files.writeString(
        helm,
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ include "ccm.fullname" . }}
        spec:
          replicas: {{ .Values.replicas }}
        """);
    assertThatThrownBy(() -> Manifests.read(List.of(helm)))
        .isInstanceOf(ManifestException.class)
        .hasMessageMatching(
            "(?s).*deployment.yaml:[0-9]+: an unrendered Helm template \\(\\{\\{ \\.\\.\\. \\}\\}\\):"
                + " render it with helm template first");

    Path envsubst = temp.resolve("envsubst.yaml");
    Files.writeString(
        envsubst,
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm}
        spec:
          replicas: ${REPLICAS}
          template: {spec: ${POD_SPEC}
        """);
    assertThatThrownBy(() -> Manifests.read(List.of(envsubst)))
        .isInstanceOf(ManifestException.class)
        .hasMessageContaining("an unrendered template (${...}): render it first");

    // A vendor's example with a value for its user to fill in, as DigitalOcean's, Vultr's and
    // Linode's CCM manifests have (digitalocean/digitalocean-cloud-controller-manager
    // releases/digitalocean-cloud-controller-manager/*.yml): no Helm to render it with.
    Path placeholder = temp.resolve("secret.yaml");
    Files.writeString(
        placeholder,
        """
        apiVersion: v1
        kind: Secret
        metadata: {name: digitalocean, namespace: kube-system}
        stringData:
          access-token: {{ DO_ACCESS_TOKEN }}
          region: {{ REGION }}
        """);
    assertThatThrownBy(() -> Manifests.read(List.of(placeholder)))
        .isInstanceOf(ManifestException.class)
        .hasMessageMatching(
            "(?s).*secret.yaml:[0-9]+: a placeholder to fill in \\(\\{\\{ DO_ACCESS_TOKEN \\}\\}\\):"
                + " put your value in its place first");
  }

  /**
   * One replica is two managers during every rollout that surges (the default): without leader
   * election that is a finding; host networking with a surge stalls the rollout on a single
   * control-plane node. The fix turns leader election on and rolls out one pod at a time.
   */
  @Test
  void aSurgingRolloutCountsAsTwoManagersAndHostNetworkRollsOutOneAtATime() throws Exception {
    String single =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm, namespace: kube-system}
        spec: {replicas: 1, selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}},
          spec: {%s, containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim, --leader-elect=false]}]}}}
        """
            .formatted(TOLERATIONS + ", affinity: {" + CONTROL_PLANE_AFFINITY + "}");
    assertThat(rules(single))
        .contains("leader-election", "host-network")
        .doesNotContain("anti-affinity");
    assertThat(rules(single.replace("replicas: 1,", "replicas: 1, strategy: {type: Recreate},")))
        .as("Recreate: the old pod stops first")
        .doesNotContain("leader-election");
    assertThat(
            rules(
                single.replace(
                    "spec: {" + TOLERATIONS, "spec: {hostNetwork: true, " + TOLERATIONS)))
        .contains("rolling-update");

    CcmWorkload fixed = fixed(single).getFirst();

    assertThat(Doctor.check(fixed)).isEmpty();
    assertThat(fixed.pod().getHostNetwork()).isTrue();
    assertThat(fixed.pod().getContainers().getFirst().getArgs())
        .doesNotContain("--leader-elect=false");
    assertThat(
            ((io.fabric8.kubernetes.api.model.apps.Deployment) fixed.object())
                .getSpec()
                .getStrategy()
                .getRollingUpdate()
                .getMaxSurge()
                .getIntVal())
        .isZero();
  }

  /**
   * The not-ready toleration is an ERROR only when the CCM is on the CNI's critical path (it needs
   * the pod network, or hands out the pod CIDRs or routes the CNI waits for); a CCM on the host
   * network that gives the CNI nothing is a WARNING. The message names the missing effects; a CCM
   * that creates routes must also tolerate network-unavailable; one whose nodes another component
   * initialises need not tolerate the uninitialized taint.
   */
  @Test
  void theCcmsOwnFlagsDecideWhatDeadlocks() throws Exception {
    Path scenario = SCENARIOS.resolve("not-ready-noexecute.yaml");
    List<Finding> hostNetwork = Doctor.examine(Manifests.read(List.of(scenario)));
    assertThat(hostNetwork)
        .singleElement()
        .satisfies(
            finding -> {
              assertThat(finding.rule()).isEqualTo("tolerate-not-ready");
              assertThat(finding.severity()).isEqualTo(Rule.Severity.WARNING);
              assertThat(finding.consequence())
                  .contains("node.kubernetes.io/not-ready:NoSchedule")
                  .contains("node.kubernetes.io/not-ready:NoExecute")
                  .contains("not a deadlock, unless the CNI waits for the node addresses");
            });

    String withCidrs =
        Files.readString(scenario).replace("- run", "- run\n        - --allocate-node-cidrs=true");
    assertThat(withCidrs).contains("--allocate-node-cidrs=true");
    List<Finding> routes = Doctor.examine(yaml(withCidrs));
    assertThat(routes)
        .filteredOn(f -> f.rule().equals("tolerate-not-ready"))
        .singleElement()
        .satisfies(f -> assertThat(f.severity()).isEqualTo(Rule.Severity.ERROR));
    assertThat(errors(routes)).contains("tolerate-network-unavailable");
    CcmWorkload fixed = fixed(withCidrs).getFirst();
    assertThat(Doctor.check(fixed)).isEmpty();

    String nodeManagerElsewhere =
        Files.readString(SCENARIOS.resolve("missing-uninitialized-toleration.yaml"))
            .replace("- run", "- run\n        - --controllers=*,-cloud-node");
    assertThat(nodeManagerElsewhere).contains("--controllers=*,-cloud-node");
    assertThat(rules(nodeManagerElsewhere)).doesNotContain("tolerate-uninitialized");
  }

  /**
   * A bare Pod shaped like a kubeadm static pod (tier: control-plane, the kubeconfigs from
   * /etc/kubernetes) is judged as a static pod: no scheduling rules, no scalable-workload advice. A
   * bare Pod without that shape still gets both.
   */
  @Test
  void aPodShapedLikeAKubeadmStaticPodIsJudgedAsOne() throws Exception {
    String staticPod =
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: cloud-controller-manager, namespace: kube-system, labels: {component: cloud-controller-manager, tier: control-plane}}
        spec:
          hostNetwork: true
          priorityClassName: system-node-critical
          containers: [{name: cloud-controller-manager, image: registry.k8s.io/cloud-controller-manager:v1.37.0,
            command: [cloud-controller-manager, --cloud-provider=openstack, --kubeconfig=/etc/kubernetes/controller-manager.conf]}]
          volumes: [{name: kubeconfig, hostPath: {path: /etc/kubernetes/controller-manager.conf, type: FileOrCreate}}]
        """;
    CcmWorkload workload = Doctor.workloads(yaml(staticPod)).getFirst();
    assertThat(workload.isStaticPod()).isTrue();
    assertThat(rules(staticPod)).isEmpty();
    assertThat(
            rules(
                staticPod
                    .replace(", tier: control-plane", "")
                    .replace(
                        "/etc/kubernetes/controller-manager.conf, type",
                        "/var/lib/ccm/kubeconfig, type")))
        .contains("scalable-workload", "tolerate-uninitialized");
  }

  /** The vendor example of docs/doctor.md: what it prints is what the doctor finds. */
  @Test
  void theVendorShapedDaemonSetOfTheReadme() throws Exception {
    Path vendor = Path.of("src", "test", "resources", "vendor", "aws-style-daemonset.yaml");
    List<Finding> findings = Doctor.examine(Manifests.read(List.of(vendor)));

    assertThat(findings)
        .extracting(Finding::rule, Finding::severity)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("tolerate-not-ready", Rule.Severity.WARNING),
            org.assertj.core.groups.Tuple.tuple("tolerate-control-plane", Rule.Severity.ERROR),
            org.assertj.core.groups.Tuple.tuple("master-selector", Rule.Severity.ERROR));
    // It tolerates only the master taint: selecting control-plane nodes, it must tolerate theirs.
    assertThat(only(findings, "master-selector").fix())
        .contains("node-role.kubernetes.io/control-plane:NoSchedule: then tolerate it too");
    assertThat(Doctor.check(fixed(Files.readString(vendor)).getFirst())).isEmpty();
  }

  private static final Path VENDOR = Path.of("src", "test", "resources", "vendor");

  /**
   * A Deployment still written as extensions/v1beta1 is refused by every API server since 1.16: the
   * doctor says so first, and --fix makes it apps/v1 with the selector the old version defaulted
   * (the pod template's labels), keeping the file's comments.
   */
  @Test
  void aWorkloadInAnApiVersionNoLongerServedIsAnErrorAndTheFixMakesItAppsV1() throws Exception {
    Path vendor = VENDOR.resolve("tencent-style-deployment.yaml");
    List<ManifestDocument> documents = Manifests.read(List.of(vendor));
    List<Finding> findings = Doctor.examine(documents);

    assertThat(findings)
        .extracting(Finding::rule)
        .startsWith("removed-api-version", "placeholder")
        .contains("tolerate-network-unavailable", "host-network");
    Finding removed = only(findings, "removed-api-version");
    assertThat(removed.severity()).isEqualTo(Rule.Severity.ERROR);
    assertThat(removed.consequence()).contains("Deployment extensions/v1beta1");
    assertThat(removed.fix()).contains("apps/v1", "spec.selector", "--fix does both");

    List<CcmWorkload> workloads = Doctor.workloads(documents);
    List<String> byHand = Doctor.fix(workloads.getFirst());
    List<String> notices = new ArrayList<>();
    String text = Doctor.fixedTexts(documents, workloads, notices::add).get(vendor);

    assertThat(notices).isEmpty();
    assertThat(text).contains("apiVersion: apps/v1", "# the API server's address");
    CcmWorkload fixed = Doctor.workloads(yaml(text)).getFirst();
    assertThat(fixed.object().getApiVersion()).isEqualTo("apps/v1");
    assertThat(fixed.selector().orElseThrow().getMatchLabels())
        .containsExactly(java.util.Map.entry("app", "vendor-cloud-controller-manager"));
    // What only the user can fill in is left, and said.
    assertThat(Doctor.check(fixed)).containsExactly(Rule.PLACEHOLDER);
    assertThat(byHand).singleElement().asString().contains("--master=<KUBERNETES_MASTER_ENDPOINT>");
  }

  /**
   * A placeholder the vendor's example leaves to fill in reaches the container as written:
   * Kubernetes expands only $(VAR). An image "${IMG}" never pulls; the rest of the manifest follows
   * every recommendation, so the placeholder is the one finding.
   */
  @Test
  void aPlaceholderLeftInTheImageIsAnError() throws Exception {
    List<Finding> findings =
        Doctor.examine(Manifests.read(List.of(VENDOR.resolve("nutanix-style-deployment.yaml"))));

    assertThat(findings).extracting(Finding::rule).containsExactly("placeholder");
    Finding placeholder = findings.getFirst();
    assertThat(placeholder.severity()).isEqualTo(Rule.Severity.ERROR);
    assertThat(placeholder.consequence()).contains("image ${IMG}", "InvalidImageName");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--cluster-name=$(CLUSTER_NAME)|false",
        "--region=${REGION}|true",
        "--master=<API_SERVER>|true",
        "--cloud-config={{ .Values.cloudConfig }}|true",
        "--cluster-cidr=10.0.0.0/8|false"
      })
  void placeholdersAreTheTextsKubernetesDoesNotExpand(String flag, boolean placeholder)
      throws Exception {
    // Quoted: braces cannot stand plain in the flow YAML the test writes.
    assertThat(
            rules(deployment(ONE_AT_A_TIME, TOLERATIONS, "'" + flag + "'")).contains("placeholder"))
        .isEqualTo(placeholder);
  }

  /** A shell expands ${NAME} itself: in a script it is no placeholder. */
  @Test
  void aShellScriptsOwnExpansionIsNoPlaceholder() throws Exception {
    String script =
        deployment(ONE_AT_A_TIME, TOLERATIONS, "--leader-elect=true")
            .replace(
                "args: [run, --cloud-provider=sim, --leader-elect=true]",
                "command: [/bin/sh, -c, 'exec ccm4j run --cloud-provider=sim --region=${REGION}']");

    assertThat(rules(script)).doesNotContain("placeholder");
  }

  /**
   * A CCM that runs only the service controller initialises no node: the control-plane placement is
   * still advised, but not because it "must initialise" the workers first.
   */
  @Test
  void aCcmThatInitialisesNoNodeIsNotSaidToInitialiseTheWorkers() throws Exception {
    List<Finding> findings =
        Doctor.examine(Manifests.read(List.of(VENDOR.resolve("stackit-style-deployment.yaml"))));

    assertThat(findings).extracting(Finding::rule).doesNotContain("placeholder");
    Finding placement = only(findings, "control-plane-placement");
    assertThat(placement.consequence())
        .doesNotContain("must initialise")
        .contains("initialises no node", "--controllers leaves out cloud-node");
  }

  /**
   * A host-network CCM that may run on any node (Scaleway's, Exoscale's, Civo's examples) hangs its
   * rollout only when the new pod lands on the old one's node, where its port is taken: the finding
   * says so, and that declaring the port keeps the scheduler off that node.
   */
  @ParameterizedTest(name = "ports declared: {0}")
  @CsvSource({"false, the port the CCM listens on", "true, declares its ports"})
  void aSurgingRolloutOfAPodThatMayRunAnywhereSaysWhenItHangs(boolean ports, String said)
      throws Exception {
    String manifest =
        deployment("", "", "--leader-elect=true")
            .replace(
                "image: ccm4j:0.1.0,",
                ports
                    ? "image: ccm4j:0.1.0, ports: [{containerPort: 10258}],"
                    : "image: ccm4j:0.1.0,");

    Finding rollout = only(Doctor.examine(yaml(manifest)), "rolling-update");

    assertThat(rollout.consequence())
        .contains("may run on any node", said)
        .doesNotContain("control-plane nodes only");
  }

  @Test
  void theFixPlacesByNodeAffinityAndRollsOutOnePodAtATime() throws Exception {
    String bare =
        deployment(
            "",
            "nodeSelector: {node-role.kubernetes.io/master: ''}, tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, operator: Exists}, {key: node.kubernetes.io/not-ready, operator: Exists}]",
            "--leader-elect=true");
    assertThat(rules(bare)).contains("master-selector", "tolerate-control-plane", "anti-affinity");

    CcmWorkload fixed = fixed(bare).getFirst();

    assertThat(Doctor.check(fixed)).isEmpty();
    assertThat(fixed.pod().getNodeSelector()).isNullOrEmpty();
    assertThat(
            fixed
                .pod()
                .getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
                .getNodeSelectorTerms())
        .extracting(t -> t.getMatchExpressions().getFirst().getKey())
        .containsExactly("node-role.kubernetes.io/control-plane");
    assertThat(fixed.pod().getTolerations())
        .extracting("key")
        .contains("node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/master");
    var strategy =
        ((io.fabric8.kubernetes.api.model.apps.Deployment) fixed.object())
            .getSpec()
            .getStrategy()
            .getRollingUpdate();
    assertThat(strategy.getMaxSurge().getIntVal()).isZero();
    assertThat(strategy.getMaxUnavailable().getIntVal()).isEqualTo(1);
  }

  @Test
  void requiredAntiAffinityWithTheDefaultRollingUpdateIsReportedAndFixed() throws Exception {
    String surging =
        deployment(
            "",
            TOLERATIONS
                + ", affinity: {"
                + CONTROL_PLANE_AFFINITY
                + ", "
                + HOSTNAME_ANTI_AFFINITY
                + "}",
            "--leader-elect=true");

    assertThat(rules(surging)).containsExactly("rolling-update");
    assertThat(Doctor.check(fixed(surging).getFirst())).isEmpty();
  }

  /**
   * A ccm4j DaemonSet on the control-plane nodes with every recommendation, this update strategy.
   */
  private static String daemonSet(String updateStrategy) {
    return """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: ccm, namespace: kube-system}
        spec: {%s selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}},
          spec: {hostNetwork: true, %s, affinity: {%s}, containers: [{name: ccm, image: ccm4j:0.1.0,
            args: [run, --cloud-provider=sim, --leader-elect=true]}]}}}
        """
        .formatted(
            updateStrategy.isEmpty() ? "" : updateStrategy + ",",
            TOLERATIONS,
            CONTROL_PLANE_AFFINITY);
  }

  @Test
  void aHostNetworkDaemonSetWhoseRolloutSurgesIsReportedAndFixed() throws Exception {
    assertThat(rules(daemonSet("")))
        .as("a DaemonSet's default rollout: one node at a time")
        .isEmpty();
    assertThat(rules(daemonSet("updateStrategy: {type: OnDelete}"))).isEmpty();
    assertThat(
            rules(
                daemonSet(
                    "updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}")))
        .isEmpty();

    String surging =
        daemonSet(
            "updateStrategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}");
    assertThat(rules(surging)).containsExactly("rolling-update");
    assertThat(only(Doctor.examine(yaml(surging)), "rolling-update").consequence())
        .contains("a DaemonSet's new pod is bound to the old one's node")
        .doesNotContain("one replica is already that many");
    CcmWorkload fixed = fixed(surging).getFirst();
    assertThat(Doctor.check(fixed)).isEmpty();
    var rollingUpdate =
        ((io.fabric8.kubernetes.api.model.apps.DaemonSet) fixed.object())
            .getSpec()
            .getUpdateStrategy()
            .getRollingUpdate();
    assertThat(rollingUpdate.getMaxSurge().getIntVal()).isZero();
    assertThat(rollingUpdate.getMaxUnavailable().getIntVal()).isEqualTo(1);

    assertThat(rules(surging.replace("--leader-elect=true", "--leader-elect=false")))
        .as("a surge runs two on one node: leader election is needed")
        .contains("leader-election", "rolling-update");
  }

  @Test
  void theFixKeepsTheAntiAffinityTermsThereAre() throws Exception {
    String zoned =
        deployment(
            ONE_AT_A_TIME,
            TOLERATIONS
                + ", affinity: {"
                + CONTROL_PLANE_AFFINITY
                + ", podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey:"
                + " topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: other}}}]}}",
            "--leader-elect=true");

    CcmWorkload fixed = fixed(zoned).getFirst();

    assertThat(
            fixed
                .pod()
                .getAffinity()
                .getPodAntiAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution())
        .extracting("topologyKey")
        .containsExactly("topology.kubernetes.io/zone", "kubernetes.io/hostname");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "--leader-elect=false    | true",
        "--leader-elect=0        | true",
        "--leader-elect=f        | true",
        "--leader-elect=F        | true",
        "--leader-elect=FALSE    | true",
        "--leader-elect=False    | true",
        "--leader-elect=true     | false",
        "--leader-elect          | false",
        "'--leader-elect=false, --leader-elect=true' | false",
        "--leader-elect-resource-name=false | false",
      })
  void leaderElectionIsOffForEveryFalseSpellingAndTheFixTurnsItOn(String args, boolean off)
      throws Exception {
    String manifest =
        deployment(
            ONE_AT_A_TIME,
            TOLERATIONS
                + ", affinity: {"
                + CONTROL_PLANE_AFFINITY
                + ", "
                + HOSTNAME_ANTI_AFFINITY
                + "}",
            args);

    assertThat(rules(manifest)).isEqualTo(off ? List.of("leader-election") : List.of());
    assertThat(Doctor.check(fixed(manifest).getFirst())).isEmpty();
  }

  /** An upstream-built CCM (pflag) with the given replicas, strategy and container. */
  private static String upstreamCcm(int replicas, String strategy, String container) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: aws-cloud-controller-manager, namespace: kube-system}
        spec: {replicas: %d, %s selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}},
          spec: {hostNetwork: true, %s, affinity: {%s, %s}, containers: [{name: ccm,
            image: registry.k8s.io/provider-aws/cloud-controller-manager:v1.30.0, %s}]}}}
        """
        .formatted(
            replicas,
            strategy.isEmpty() ? "" : strategy + ",",
            TOLERATIONS,
            CONTROL_PLANE_AFFINITY,
            HOSTNAME_ANTI_AFFINITY,
            container);
  }

  /**
   * pflag takes a bool flag's value only after '=': {@code --leader-elect false} is leader election
   * on and an argument "false", which the upstream manager refuses (it exits at start). That is its
   * own error, naming the flag and the word; the other rules read the flag as on. --fix writes what
   * was meant, {@code --leader-elect=false}, and the leader-election rule then applies to it: with
   * two managers at once it is turned on.
   */
  @Test
  void aBoolFlagsValueAfterASpaceIsAnArgumentTheCcmRefuses() throws Exception {
    String one =
        upstreamCcm(
            1,
            ONE_AT_A_TIME,
            "command: [/bin/aws-cloud-controller-manager], args: [--cloud-provider=aws,"
                + " --leader-elect, false, --v=2]");

    List<Finding> findings = Doctor.examine(yaml(one));

    assertThat(findings).extracting(Finding::rule).containsExactly("stray-argument");
    Finding stray = findings.getFirst();
    assertThat(stray.severity()).isEqualTo(Rule.Severity.ERROR);
    assertThat(stray.consequence())
        .startsWith("--leader-elect false is read as --leader-elect on and an argument \"false\". ")
        .contains("does not take any arguments", "exits at start");
    assertThat(stray.fix()).isEqualTo("Write --leader-elect=false.");
    assertThat(stray.sourceUrl())
        .isEqualTo("https://github.com/spf13/pflag#command-line-flag-syntax");
    CcmWorkload fixedOne = fixed(one).getFirst();
    assertThat(fixedOne.pod().getContainers().getFirst().getArgs())
        .containsExactly("--cloud-provider=aws", "--leader-elect=false", "--v=2");
    assertThat(Doctor.check(fixedOne)).isEmpty();

    String two = one.replace("replicas: 1,", "replicas: 2,");
    assertThat(rules(two)).containsExactly("stray-argument");
    assertThat(Doctor.examine(yaml(two)).getFirst().fix())
        .isEqualTo(
            "Write --leader-elect=false if that was meant; but two managers may run at once, so"
                + " leader election must stay on (leader-election): --fix writes"
                + " --leader-elect=true.");
    CcmWorkload fixedTwo = fixed(two).getFirst();
    assertThat(fixedTwo.pod().getContainers().getFirst().getArgs())
        .containsExactly("--cloud-provider=aws", "--leader-elect=true", "--v=2");
    assertThat(Doctor.check(fixedTwo)).isEmpty();
  }

  /**
   * Every bool flag the doctor reads is read so: {@code --allocate-node-cidrs false} allocates pod
   * CIDRs (so the CCM creates routes and must tolerate network-unavailable), and its fix writes
   * {@code --allocate-node-cidrs=false}, also across the command and the arguments; a word that is
   * no bool is reported, and left to the user.
   */
  @Test
  void everyBoolFlagTakesItsValueOnlyAfterAnEqualsSign() throws Exception {
    String cidrs =
        upstreamCcm(
            1,
            ONE_AT_A_TIME,
            "command: [/bin/aws-cloud-controller-manager, --cloud-provider=aws,"
                + " --cluster-cidr=10.244.0.0/16, --allocate-node-cidrs], args: [false,"
                + " --configure-cloud-routes, '0']");

    assertThat(rules(cidrs)).containsExactly("stray-argument", "tolerate-network-unavailable");
    assertThat(Doctor.examine(yaml(cidrs)).getFirst().consequence())
        .startsWith(
            "--allocate-node-cidrs false is read as --allocate-node-cidrs on and an argument"
                + " \"false\"; --configure-cloud-routes 0 is read as --configure-cloud-routes on and"
                + " an argument \"0\".");
    CcmWorkload fixed = fixed(cidrs).getFirst();
    assertThat(fixed.pod().getContainers().getFirst().getCommand())
        .containsExactly(
            "/bin/aws-cloud-controller-manager",
            "--cloud-provider=aws",
            "--cluster-cidr=10.244.0.0/16",
            "--allocate-node-cidrs=false");
    assertThat(fixed.pod().getContainers().getFirst().getArgs())
        .containsExactly("--configure-cloud-routes=0");
    assertThat(fixed.allocatesNodeCidrs()).isFalse();
    assertThat(fixed.whyNoRoutes()).contains("--configure-cloud-routes is false");
    assertThat(Doctor.check(fixed)).isEmpty();

    String notABool =
        upstreamCcm(
            1,
            ONE_AT_A_TIME,
            "command: [/bin/aws-cloud-controller-manager, --cloud-provider=aws, --leader-elect,"
                + " kube-system]");
    assertThat(Doctor.examine(yaml(notABool)).getFirst().fix())
        .isEqualTo("Remove \"kube-system\" or give --leader-elect a value with '='.");
    assertThat(rules(fixedYaml(notABool))).containsExactly("stray-argument");
  }

  /**
   * A CCM started by a shell ({@code sh -c "exec ..."}, or {@code args: [-c, ...]} for bash) is
   * recognised and judged by the flags in the script's command that runs it; --fix edits the flag
   * inside the script, the rest of it as it was.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiterString = " => ",
      quoteCharacter = '~',
      value = {
        "~command: [/bin/sh, -c, 'mkdir -p /tmp/ccm && AWS_REGION=eu-west-1 exec"
            + " /bin/aws-cloud-controller-manager --cloud-provider=aws --leader-elect=false --v=2']~"
            + " => ~mkdir -p /tmp/ccm && AWS_REGION=eu-west-1 exec /bin/aws-cloud-controller-manager"
            + " --cloud-provider=aws --leader-elect=true --v=2~",
        "~command: [bash], args: [-ec, 'exec /bin/aws-cloud-controller-manager"
            + " \"--cloud-provider=aws\" --leader-elect false; echo done']~"
            + " => ~exec /bin/aws-cloud-controller-manager \"--cloud-provider=aws\" --leader-elect=true;"
            + " echo done~",
      })
  void theFlagsOfACcmStartedByAShellAreReadAndFixedInsideTheScript(String container, String fixed)
      throws Exception {
    String manifest =
        upstreamCcm(2, ONE_AT_A_TIME, container)
            .replace("registry.k8s.io/provider-aws/cloud-controller-manager:v1.30.0", "alpine:3");

    CcmWorkload workload = Doctor.workloads(yaml(manifest)).getFirst();

    assertThat(workload.recognisedBy())
        .isEqualTo("binary aws-cloud-controller-manager, flag --cloud-provider=aws");
    assertThat(rules(manifest)).containsAnyOf("leader-election", "stray-argument");
    assertThat(Doctor.fix(workload)).isEmpty();
    var ccm = workload.pod().getContainers().getFirst();
    List<String> words = CcmWorkload.words(ccm);
    assertThat(ccm.getArgs().isEmpty() ? ccm.getCommand().getLast() : ccm.getArgs().getLast())
        .isEqualTo(fixed);
    assertThat(words).contains("--leader-elect=true");
    assertThat(Doctor.check(workload)).isEmpty();
  }

  /**
   * A script this reading cannot rewrite safely ($(...) in it) is left as it is: the finding and
   * --fix say the flag must be changed by hand inside the shell command.
   */
  @Test
  void aFlagInAScriptThatCannotBeRewrittenIsLeftToTheUser() throws Exception {
    String script =
        "exec /bin/aws-cloud-controller-manager --cloud-provider=aws --leader-elect=false"
            + " --cluster-name=$(hostname)";
    String manifest = upstreamCcm(2, ONE_AT_A_TIME, "command: [/bin/sh, -c, '" + script + "']");

    List<Finding> findings = Doctor.examine(yaml(manifest));
    CcmWorkload workload = Doctor.workloads(yaml(manifest)).getFirst();
    List<String> byHand = Doctor.fix(workload);

    assertThat(findings).extracting(Finding::rule).containsExactly("leader-election");
    assertThat(findings.getFirst().fix())
        .endsWith(
            " The flag is inside the shell command: change it there by hand (--fix does not"
                + " rewrite this script: it has a command substitution).");
    assertThat(byHand)
        .singleElement()
        .satisfies(
            note ->
                assertThat(note)
                    .endsWith(
                        "Deployment/aws-cloud-controller-manager: write --leader-elect=true by hand"
                            + " inside the shell command (--fix does not rewrite this script: it"
                            + " has a command substitution)"));
    assertThat(workload.pod().getContainers().getFirst().getCommand().getLast()).isEqualTo(script);
  }

  @Test
  void componentsThatOnlyTakeACloudProviderFlagAreNoCcm() throws Exception {
    String others =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: cluster-autoscaler, namespace: kube-system}
        spec: {selector: {matchLabels: {app: ca}}, template: {metadata: {labels: {app: ca}}, spec: {containers: [
          {name: cluster-autoscaler, image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.0,
           command: [./cluster-autoscaler, --cloud-provider=aws, --leader-elect=false]}]}}}
        ---
        apiVersion: v1
        kind: Pod
        metadata: {name: kube-controller-manager, namespace: kube-system}
        spec: {containers: [{name: kube-controller-manager, image: registry.k8s.io/kube-controller-manager:v1.30.0,
          command: [kube-controller-manager, --cloud-provider=external]}]}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: sim-cni, namespace: kube-system}
        spec: {selector: {matchLabels: {app: cni}}, template: {metadata: {labels: {app: cni}}, spec: {containers: [
          {name: cni, image: ccm4j/sim-cni:1}]}}}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: aws-ccm, namespace: kube-system}
        spec: {selector: {matchLabels: {app: aws}}, template: {metadata: {labels: {app: aws}}, spec: {containers: [
          {name: aws-cloud-controller-manager, image: registry.k8s.io/provider-aws/cloud-controller-manager:v1.30.0,
           args: [--v=2, --cloud-provider=aws]}]}}}
        """;

    assertThat(Doctor.workloads(yaml(others)))
        .extracting(CcmWorkload::name)
        .containsExactly("aws-ccm");
  }

  /**
   * Vendors name their CCM containers after the provider; a container passing
   * --cloud-provider=<name> is a CCM unless it is kube-controller-manager, cluster-autoscaler or a
   * node agent. When none is found, the doctor says which workloads pass the flag all the same.
   */
  @Test
  void everyVendorsCcmIsRecognisedAndTheRestAreNamedWhenNoneIs() throws Exception {
    String vendors =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: cloud-provider-equinix-metal, namespace: kube-system}
        spec: {selector: {matchLabels: {app: em}}, template: {metadata: {labels: {app: em}}, spec: {containers: [
          {name: cloud-provider-equinix-metal, image: quay.io/equinix-oss/cloud-provider-equinix-metal:v3.8.0,
           command: [./cloud-provider-equinix-metal, --cloud-provider=equinixmetal, --leader-elect=false]}]}}}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: hcloud, namespace: kube-system}
        spec: {selector: {matchLabels: {app: h}}, template: {metadata: {labels: {app: h}}, spec: {containers: [
          {name: manager, image: example.com/hcloud/manager:v1.20.0, command: [/bin/manager, --cloud-provider=hcloud]}]}}}
        """;
    assertThat(Doctor.workloads(yaml(vendors)))
        .extracting(CcmWorkload::name)
        .containsExactly("cloud-provider-equinix-metal", "hcloud");

    String others =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: cluster-autoscaler, namespace: kube-system}
        spec: {selector: {matchLabels: {app: ca}}, template: {metadata: {labels: {app: ca}}, spec: {containers: [
          {name: cluster-autoscaler, image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.0,
           command: [./cluster-autoscaler, --cloud-provider=aws]}]}}}
        ---
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: cloud-node-manager, namespace: kube-system}
        spec: {selector: {matchLabels: {app: cnm}}, template: {metadata: {labels: {app: cnm}}, spec: {containers: [
          {name: cloud-node-manager, image: mcr.microsoft.com/oss/kubernetes/azure-cloud-node-manager:v1.30.0,
           command: [cloud-node-manager, --node-name=$(NODE_NAME), --cloud-provider=azure]}]}}}
        """;
    assertThat(Doctor.workloads(yaml(others))).isEmpty();
    assertThat(Doctor.notTakenForCcms(yaml(others)))
        .hasSize(2)
        .anySatisfy(
            line ->
                assertThat(line)
                    .startsWith("Deployment/cluster-autoscaler (")
                    .contains("--cloud-provider=aws"))
        .anySatisfy(line -> assertThat(line).startsWith("DaemonSet/cloud-node-manager ("));
  }

  @Test
  void objectsAControllerOwnsAreJudgedThroughTheirOwner() throws Exception {
    String owned =
        """
        apiVersion: v1
        kind: List
        items:
        - apiVersion: apps/v1
          kind: ReplicaSet
          metadata: {name: ccm-5d4f, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: ccm, uid: u1, controller: true}]}
          spec: {replicas: 2, selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}}, spec: {containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]}}}
        - apiVersion: v1
          kind: Pod
          metadata: {name: ccm-5d4f-x2, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: ccm-5d4f, uid: u2, controller: true}]}
          spec: {containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]}
        """;

    assertThat(Doctor.workloads(yaml(owned))).isEmpty();
  }

  @Test
  void podsTheSchedulerNeverSeesNeedNoPlacementOrNoScheduleTolerations() throws Exception {
    String bound =
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: ccm-on-cp-0, namespace: kube-system}
        spec: {nodeName: cp-0, hostNetwork: true, containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]}
        ---
        apiVersion: v1
        kind: Pod
        metadata:
          name: cloud-controller-manager-cp-0
          namespace: kube-system
          annotations: {kubernetes.io/config.mirror: abc, kubernetes.io/config.source: file}
          ownerReferences: [{apiVersion: v1, kind: Node, name: cp-0, uid: u3, controller: true}]
        spec: {nodeName: cp-0, hostNetwork: true, containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]}
        """;

    List<Finding> findings = Doctor.examine(yaml(bound));

    // The kubelet still refuses a non-static pod that does not tolerate a NoExecute taint.
    assertThat(findings)
        .extracting(f -> f.name() + " " + f.rule())
        .containsExactly("ccm-on-cp-0 tolerate-not-ready", "ccm-on-cp-0 scalable-workload");
  }

  @Test
  void aDaemonSetNeedsNoNotReadyNoExecuteToleration() throws Exception {
    String daemonSet =
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: ccm, namespace: kube-system}
        spec: {selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}}, spec: {
          hostNetwork: true, nodeSelector: {node-role.kubernetes.io/control-plane: ''},
          tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, operator: Exists},
            {key: node-role.kubernetes.io/control-plane, operator: Exists},
            {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule}],
          containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]}}}
        """;

    assertThat(rules(daemonSet)).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "tolerations as a mapping | 'tolerations: {key: x}'  | tolerations",
        "an empty container       | ''                       | containers",
        "an empty toleration      | 'tolerations: [~]'       | tolerations",
      })
  void aMalformedWorkloadIsAManifestErrorNamingFileLineAndField(
      String name, String pod, String field) throws Exception {
    String manifest = deployment("", pod, "--leader-elect=true");
    if (field.equals("containers")) {
      manifest = manifest.replace("containers: [{", "containers: [~, {");
    }
    List<ManifestDocument> documents = yaml("# a comment\n" + manifest);

    assertThatThrownBy(() -> Doctor.examine(documents))
        .isInstanceOf(ManifestException.class)
        .hasMessageMatching("(?s).*manifest-[0-9]+\\.yaml:2: not a valid Deployment.*")
        .hasMessageContaining(field);
  }

  @Test
  void aPodWithOnlyAGenerateNameIsNamedByIt() throws Exception {
    String generated =
        """
        apiVersion: v1
        kind: Pod
        metadata: {generateName: ccm-, namespace: kube-system}
        spec: {hostNetwork: true, containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]}
        """;

    assertThat(Doctor.examine(yaml(generated))).extracting(Finding::name).containsOnly("ccm-");
  }

  /**
   * One replica, rolled out one at a time, with this pod spec (flow YAML, may be empty) and these
   * arguments: no host networking unless the pod spec says so.
   */
  private static String single(String pod, String args) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm, namespace: kube-system}
        spec: {replicas: 1, %s, selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}},
          spec: {%s containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim, %s]}]}}}
        """
        .formatted(ONE_AT_A_TIME, pod.isEmpty() ? "" : pod + ",", args);
  }

  private static Finding only(List<Finding> findings, String rule) {
    return findings.stream().filter(f -> f.rule().equals(rule)).findFirst().orElseThrow();
  }

  /**
   * The required node affinity is read like the nodeSelector: a term (terms ORed, expressions
   * ANDed) on the master label is master-only, however the label is asked for; a control-plane term
   * next to it is enough; a preferred affinity is only a preference.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "master Exists            | {matchExpressions: [{key: node-role.kubernetes.io/master, operator: Exists}]}                      |        | master-selector",
        "master In ''             | {matchExpressions: [{key: node-role.kubernetes.io/master, operator: In, values: ['']}]}              |        | master-selector",
        "master In true           | {matchExpressions: [{key: node-role.kubernetes.io/master, operator: In, values: ['true']}]}          |        | master-selector",
        "master AND control-plane | {matchExpressions: [{key: node-role.kubernetes.io/control-plane, operator: Exists}, {key: node-role.kubernetes.io/master, operator: Exists}]} | | master-selector",
        "master OR control-plane  | {matchExpressions: [{key: node-role.kubernetes.io/master, operator: Exists}]}, {matchExpressions: [{key: node-role.kubernetes.io/control-plane, operator: Exists}]} | |",
        "preferred master         | {matchExpressions: [{key: node-role.kubernetes.io/control-plane, operator: Exists}]}               | preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [{key: node-role.kubernetes.io/master, operator: Exists}]}}] |",
      })
  void aRequiredNodeAffinityOnTheMasterLabelIsMasterOnlyAndTheFixRewritesIt(
      String name, String terms, String preferred, String expected) throws Exception {
    String nodeAffinity =
        "nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: ["
            + terms
            + "]}"
            + (preferred == null ? "" : ", " + preferred)
            + "}";
    String manifest =
        recommendedWith("affinity: {" + nodeAffinity + ", " + HOSTNAME_ANTI_AFFINITY + "}");

    assertThat(rules(manifest))
        .containsExactlyElementsOf(expected == null ? List.of() : List.of(expected));

    CcmWorkload fixed = fixed(manifest).getFirst();
    assertThat(Doctor.check(fixed)).as(name).isEmpty();
    if (expected != null) {
      assertThat(
              fixed
                  .pod()
                  .getAffinity()
                  .getNodeAffinity()
                  .getRequiredDuringSchedulingIgnoredDuringExecution()
                  .getNodeSelectorTerms())
          .singleElement()
          .satisfies(
              term ->
                  assertThat(term.getMatchExpressions())
                      .extracting(r -> r.getKey() + " " + r.getOperator())
                      .containsExactly("node-role.kubernetes.io/control-plane Exists"));
    }
  }

  /**
   * kubeadm labels its control-plane nodes node-role.kubernetes.io/control-plane="" (k3s and RKE2
   * with "true"): a selector asking for a value matches no kubeadm node. A warning naming what the
   * pod asks for; the fix asks for the label with Exists, which matches both.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "nodeSelector true | nodeSelector: {node-role.kubernetes.io/control-plane: 'true'}, affinity: {HOSTNAME} | nodeSelector node-role.kubernetes.io/control-plane: \"true\"",
        "affinity In true  | affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: node-role.kubernetes.io/control-plane, operator: In, values: ['true']}]}]}}, HOSTNAME} | required node affinity node-role.kubernetes.io/control-plane In [true]",
      })
  void aControlPlaneLabelAskedWithAValueIsWarnedAboutAndTheFixAsksExists(
      String name, String placement, String asked) throws Exception {
    String manifest = recommendedWith(placement.replace("HOSTNAME", HOSTNAME_ANTI_AFFINITY));
    List<Finding> findings = Doctor.examine(yaml(manifest));

    assertThat(findings)
        .extracting(Finding::rule, Finding::severity)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(
                "control-plane-label-value", Rule.Severity.WARNING));
    assertThat(only(findings, "control-plane-label-value").consequence())
        .contains("It asks for " + asked, "kubeadm sets that label with an empty value", "k3s");

    CcmWorkload fixed = fixed(manifest).getFirst();
    assertThat(Doctor.check(fixed)).as(name).isEmpty();
    for (String value : List.of("", "true")) {
      io.fabric8.kubernetes.api.model.Node controlPlane =
          new io.fabric8.kubernetes.api.model.NodeBuilder()
              .withNewMetadata()
              .withName("cp-1")
              .addToLabels("node-role.kubernetes.io/control-plane", value)
              .endMetadata()
              .build();
      assertThat(NodePlacement.allows(fixed.pod(), controlPlane)).as(value).isTrue();
    }
  }

  /** A DaemonSet placed by a required affinity on the master label only, as many publish. */
  @Test
  void aMasterAffinityDaemonSetIsNotCleanAndItsFixSchedulesOnCurrentClusters() throws Exception {
    String daemonSet =
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: example-cloud-controller-manager, namespace: kube-system}
        spec:
          selector: {matchLabels: {k8s-app: example-ccm}}
          template:
            metadata: {labels: {k8s-app: example-ccm}}
            spec:
              hostNetwork: true
              affinity:
                nodeAffinity:
                  requiredDuringSchedulingIgnoredDuringExecution:
                    nodeSelectorTerms:
                    - matchExpressions:
                      - {key: node-role.kubernetes.io/master, operator: Exists}
              tolerations:
              - {key: node.cloudprovider.kubernetes.io/uninitialized, value: "true", effect: NoSchedule}
              - {key: node-role.kubernetes.io/master, effect: NoSchedule}
              - {key: node.kubernetes.io/not-ready, operator: Exists}
              containers:
              - name: cloud-controller-manager
                image: example/cloud-controller-manager:v1.0.0
                args: [--cloud-provider=example, --leader-elect=true]
        """;

    assertThat(errors(Doctor.examine(yaml(daemonSet))))
        .containsExactlyInAnyOrder("master-selector", "tolerate-control-plane");
    CcmWorkload fixed = fixed(daemonSet).getFirst();
    assertThat(Doctor.check(fixed)).isEmpty();
    io.fabric8.kubernetes.api.model.Node controlPlane =
        new io.fabric8.kubernetes.api.model.NodeBuilder()
            .withNewMetadata()
            .withName("cp-1")
            .addToLabels("node-role.kubernetes.io/control-plane", "")
            .endMetadata()
            .build();
    assertThat(NodePlacement.allows(fixed.pod(), controlPlane)).isTrue();
  }

  /**
   * The real matching rules (Equal, the default, compares values; the uninitialized taint's value
   * is "true", the control-plane taint's is empty; an empty effect matches every effect), and a
   * toleration naming the taint that cannot match is said so, with why.
   */
  @Test
  void aTolerationThatCannotMatchItsTaintIsNamedWithWhy() throws Exception {
    String placement = "affinity: {" + CONTROL_PLANE_AFFINITY + ", " + HOSTNAME_ANTI_AFFINITY + "}";
    String equalTrue =
        deployment(
            ONE_AT_A_TIME,
            "tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, value: 'true',"
                + " effect: NoSchedule}, {key: node-role.kubernetes.io/control-plane, value: 'true',"
                + " effect: NoSchedule}, {key: node.kubernetes.io/not-ready, operator: Exists}], "
                + placement,
            "--leader-elect=true");

    List<Finding> findings = Doctor.examine(yaml(equalTrue));
    assertThat(findings).extracting(Finding::rule).containsExactly("tolerate-control-plane");
    assertThat(findings.getFirst().consequence())
        .contains(
            "It tolerates node-role.kubernetes.io/control-plane=true:NoSchedule with operator"
                + " Equal, but the taint's value is empty");
    assertThat(Doctor.check(fixed(equalTrue).getFirst())).isEmpty();

    String wrongValueAndEffect =
        deployment(
            ONE_AT_A_TIME,
            "tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, value: 'yes'},"
                + " {key: node.cloudprovider.kubernetes.io/uninitialized, operator: Exists, effect:"
                + " NoExecute}, {key: node-role.kubernetes.io/control-plane, operator: Exists},"
                + " {key: node.kubernetes.io/not-ready, operator: Exists}], "
                + placement,
            "--leader-elect=true");
    Finding uninitialized =
        only(Doctor.examine(yaml(wrongValueAndEffect)), "tolerate-uninitialized");
    assertThat(uninitialized.consequence())
        .contains(
            "It tolerates node.cloudprovider.kubernetes.io/uninitialized=yes:(all effects) with"
                + " operator Equal, but the taint's value is \"true\", so it does not match"
                + " (operator: Exists matches any value).")
        .contains(
            "It tolerates node.cloudprovider.kubernetes.io/uninitialized:NoExecute with operator"
                + " Exists, but the taint's effect is NoSchedule, so it does not match (a"
                + " toleration without an effect matches every effect).");
  }

  /**
   * Leader election is the CCM's: a sidecar's --leader-elect=false is neither reported nor changed,
   * while the CCM container's is.
   */
  @Test
  void onlyTheCcmContainersLeaderElectionCounts() throws Exception {
    String withSidecar =
        recommendedWith(
                "affinity: {" + CONTROL_PLANE_AFFINITY + ", " + HOSTNAME_ANTI_AFFINITY + "}")
            .replace(
                "]}]}}}",
                "]}, {name: labeler, image: example.com/node-labeler:1, args: [--leader-elect=false]}]}}}");

    assertThat(Doctor.examine(yaml(withSidecar))).isEmpty();
    CcmWorkload fixed = fixed(withSidecar).getFirst();
    assertThat(fixed.pod().getContainers().get(1).getArgs())
        .containsExactly("--leader-elect=false");

    String ccmOff = withSidecar.replace("--leader-elect=true", "--leader-elect=false");
    assertThat(rules(ccmOff)).containsExactly("leader-election");
    assertThat(fixed(ccmOff).getFirst().pod().getContainers())
        .extracting(c -> c.getArgs().getLast())
        .containsExactly("--leader-elect=true", "--leader-elect=false");
  }

  /**
   * The DaemonSet controller adds the network-unavailable toleration to the pods of a DaemonSet on
   * the host network: a CCM DaemonSet that creates routes needs it in its template only without
   * host networking.
   */
  @ParameterizedTest(name = "hostNetwork: {0}")
  @CsvSource({"true, ''", "false, 'tolerate-network-unavailable,host-network'"})
  void aHostNetworkDaemonSetGetsTheNetworkUnavailableTolerationFromItsController(
      boolean hostNetwork, String expected) throws Exception {
    String daemonSet =
        """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: ccm, namespace: kube-system}
        spec: {selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}},
          spec: {hostNetwork: %s, nodeSelector: {node-role.kubernetes.io/control-plane: ''}, %s,
            containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim, --allocate-node-cidrs, --cluster-cidr=10.0.0.0/16]}]}}}
        """
            .formatted(hostNetwork, TOLERATIONS);

    List<Finding> findings = Doctor.examine(yaml(daemonSet));
    assertThat(findings)
        .extracting(Finding::rule)
        .containsExactlyElementsOf(expected.isEmpty() ? List.of() : List.of(expected.split(",")));
    assertThat(fixed(daemonSet).getFirst().pod().getTolerations())
        .extracting(t -> t.getKey())
        .containsExactlyElementsOf(
            hostNetwork
                ? List.of(
                    "node.cloudprovider.kubernetes.io/uninitialized",
                    "node-role.kubernetes.io/control-plane",
                    "node.kubernetes.io/not-ready")
                : List.of(
                    "node.cloudprovider.kubernetes.io/uninitialized",
                    "node-role.kubernetes.io/control-plane",
                    "node.kubernetes.io/not-ready",
                    "node.kubernetes.io/network-unavailable"));
  }

  /**
   * The taint manager evicts after the least tolerationSeconds of the tolerations that match the
   * NoExecute taint, and at once when one of them is 0: such a not-ready toleration does not keep
   * the CCM, even next to one without tolerationSeconds; the fix leaves the 0 out.
   */
  @Test
  void aNotReadyTolerationOfZeroSecondsEvictsAtOnce() throws Exception {
    String placement = "affinity: {" + CONTROL_PLANE_AFFINITY + ", " + HOSTNAME_ANTI_AFFINITY + "}";
    String zero =
        deployment(
            ONE_AT_A_TIME,
            "tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, operator: Exists},"
                + " {key: node-role.kubernetes.io/control-plane, operator: Exists}, {key:"
                + " node.kubernetes.io/not-ready, operator: Exists, effect: NoSchedule}, {key:"
                + " node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute,"
                + " tolerationSeconds: 0}, {operator: Exists, effect: NoExecute}], "
                + placement,
            "--leader-elect=true");

    Finding notReady = only(Doctor.examine(yaml(zero)), "tolerate-not-ready");
    assertThat(notReady.consequence())
        .startsWith("It does not tolerate node.kubernetes.io/not-ready:NoExecute (evicts it);")
        .contains(
            "It tolerates node.kubernetes.io/not-ready:NoExecute with tolerationSeconds: 0, which"
                + " evicts it at once");
    CcmWorkload fixed = fixed(zero).getFirst();
    assertThat(Doctor.check(fixed)).isEmpty();
    assertThat(fixed.pod().getTolerations())
        .hasSize(5)
        .allMatch(t -> t.getTolerationSeconds() == null);
  }

  /**
   * A CCM that does not initialise nodes (and hands out no pod CIDRs or routes) cannot hold up a
   * new node: without host networking or the not-ready toleration it starts late, no deadlock.
   * Upstream's names and aliases and ccm4j's long names count; the first entry naming a controller
   * decides.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "'--controllers=*,-cloud-node', WARNING",
    "'--controllers=service,route', WARNING",
    "'--controllers=*,-cloud-node-controller', WARNING",
    "'--controllers=-cloud-node,cloud-node,*', WARNING",
    "'--controllers=cloud-node-controller', ERROR",
    "'--controllers=cloud-node,-cloud-node', ERROR",
    "'--controllers=*', ERROR",
    "'--controllers=-cloud-node,nodeipam', ERROR",
  })
  void aCcmThatInitialisesNoNodesCannotDeadlockTheBootstrap(String controllers, String severity)
      throws Exception {
    String args =
        "\""
            + controllers
            + "\""
            + (controllers.contains("nodeipam") ? ", --allocate-node-cidrs" : "");
    String manifest =
        single(
            "tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, operator: Exists},"
                + " {key: node-role.kubernetes.io/control-plane, operator: Exists}, {key:"
                + " node.kubernetes.io/network-unavailable, operator: Exists}], affinity: {"
                + CONTROL_PLANE_AFFINITY
                + "}",
            args);

    List<Finding> findings = Doctor.examine(yaml(manifest));
    assertThat(findings).extracting(Finding::rule).contains("host-network", "tolerate-not-ready");
    for (String rule : List.of("host-network", "tolerate-not-ready")) {
      Finding finding = only(findings, rule);
      assertThat(finding.severity()).as(rule).isEqualTo(Rule.Severity.valueOf(severity));
      if (severity.equals("WARNING")) {
        assertThat(finding.consequence()).contains("This CCM does not initialise nodes");
      } else {
        assertThat(finding.consequence()).doesNotContain("does not initialise nodes");
      }
    }
  }

  /**
   * A CCM that leaves node initialisation to another component is not told to tolerate the
   * uninitialized taint, and the fix does not add the toleration either: a manifest with nothing to
   * report is written back unchanged.
   */
  @Test
  void theFixAddsNoUninitializedTolerationToACcmThatInitialisesNoNodes() throws Exception {
    String manifest =
        single(
            "hostNetwork: true, tolerations: [{key: node-role.kubernetes.io/control-plane,"
                + " operator: Exists, effect: NoSchedule}, {key: node.kubernetes.io/not-ready,"
                + " operator: Exists}], affinity: {"
                + CONTROL_PLANE_AFFINITY
                + "}",
            "'--controllers=*,-cloud-node'");

    assertThat(Doctor.examine(yaml(manifest))).isEmpty();
    assertThat(fixed(manifest).getFirst().pod().getTolerations())
        .extracting(t -> t.getKey())
        .containsExactly("node-role.kubernetes.io/control-plane", "node.kubernetes.io/not-ready");
  }

  /**
   * The wording follows the CCM: a route controller that is on is not said to be off; the rollout
   * of pods not placed on control-plane nodes is not explained by control-plane nodes; a CCM told
   * to select control-plane nodes, tolerating only the old master taint, is told to tolerate the
   * control-plane taint (which the fix adds).
   */
  @Test
  void theMessagesSayWhatThisCcmDoes() throws Exception {
    String routeControllerOn =
        single(
            "hostNetwork: true, tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized,"
                + " operator: Exists}, {key: node-role.kubernetes.io/control-plane, operator:"
                + " Exists}], affinity: {"
                + CONTROL_PLANE_AFFINITY
                + "}",
            "'--controllers=cloud-node,route', --cluster-cidr=10.244.0.0/16");
    List<Finding> routing = Doctor.examine(yaml(routeControllerOn));
    assertThat(errors(routing)).contains("tolerate-network-unavailable", "tolerate-not-ready");
    assertThat(only(routing, "tolerate-not-ready").consequence())
        .contains("gives the pod CIDRs or routes the CNI waits for")
        .doesNotContain("no pod CIDRs or routes")
        .doesNotContain("creates none");
    String configured =
        routeControllerOn.replace(
            "'--controllers=cloud-node,route'", "--configure-cloud-routes=true");
    assertThat(errors(Doctor.examine(yaml(configured)))).contains("tolerate-network-unavailable");
    String noRouteController = routeControllerOn.replace("cloud-node,route", "cloud-node");
    assertThat(only(Doctor.examine(yaml(noRouteController)), "tolerate-not-ready").consequence())
        .contains("creates no routes (--controllers leaves out its route controller)");
    // Selected by * alone, it routes the cluster CIDR as upstream's has since 1.21: without
    // --allocate-node-cidrs too (kube-controller-manager may hand out the pod CIDRs).
    String byDefault = routeControllerOn.replace("'--controllers=cloud-node,route'", "--v=2");
    assertThat(errors(Doctor.examine(yaml(byDefault))))
        .contains("tolerate-network-unavailable", "tolerate-not-ready");
    String withoutClusterCidr = byDefault.replace(", --cluster-cidr=10.244.0.0/16", "");
    assertThat(only(Doctor.examine(yaml(withoutClusterCidr)), "tolerate-not-ready").consequence())
        .contains(
            "creates no routes (its route controller does not start without --cluster-cidr or"
                + " --allocate-node-cidrs)")
        .doesNotContain("creates none");

    String anywhere =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm, namespace: kube-system}
        spec: {replicas: 1, selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}},
          spec: {hostNetwork: true, %s, containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim]}]}}}
        """
            .formatted(
                "tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, operator:"
                    + " Exists}, {key: node-role.kubernetes.io/master, operator: Exists, effect:"
                    + " NoSchedule}, {key: node.kubernetes.io/not-ready, operator: Exists}]");
    List<Finding> findings = Doctor.examine(yaml(anywhere));
    assertThat(only(findings, "rolling-update").consequence()).doesNotContain("control-plane");
    assertThat(only(findings, "control-plane-placement").fix())
        .contains("node-role.kubernetes.io/control-plane:NoSchedule: then tolerate it too")
        .contains("tolerating only node-role.kubernetes.io/master")
        .doesNotContain("also tolerates");
    CcmWorkload fixed = fixed(anywhere).getFirst();
    assertThat(Doctor.check(fixed)).isEmpty();
    assertThat(PodSpecs.tolerates(fixed.pod(), PodSpecs.CONTROL_PLANE)).isTrue();

    // What the fix adds is what the finding says: the master toleration too, where the pod has
    // none (as the Proxmox CCM's published DaemonSet, which tolerates only the control-plane
    // taint).
    String withoutMaster =
        anywhere.replace(
            "{key: node-role.kubernetes.io/master, operator: Exists, effect: NoSchedule}",
            "{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}");
    assertThat(only(Doctor.examine(yaml(withoutMaster)), "control-plane-placement").fix())
        .doesNotContain("then tolerate it too")
        .contains("The fix also tolerates node-role.kubernetes.io/master:NoSchedule");
    assertThat(PodSpecs.tolerates(fixed(withoutMaster).getFirst().pod(), PodSpecs.MASTER)).isTrue();
    String selectsMaster =
        withoutMaster.replace(
            "spec: {hostNetwork: true,",
            "spec: {hostNetwork: true, nodeSelector: {node-role.kubernetes.io/master: ''},");
    assertThat(only(Doctor.examine(yaml(selectsMaster)), "master-selector").fix())
        .contains("The fix also tolerates node-role.kubernetes.io/master:NoSchedule");
    assertThat(PodSpecs.tolerates(fixed(selectsMaster).getFirst().pod(), PodSpecs.MASTER)).isTrue();

    String onControlPlane =
        anywhere.replace(
            "spec: {hostNetwork: true,",
            "spec: {hostNetwork: true, affinity: {" + CONTROL_PLANE_AFFINITY + "},");
    assertThat(only(Doctor.examine(yaml(onControlPlane)), "rolling-update").consequence())
        .contains("with one control-plane node");
  }

  /** A CCM Deployment in the cluster that hosts another cluster's control plane (KubeVirt-like). */
  private static final String REMOTE =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: kubevirt-cloud-controller-manager, namespace: tenant-a}
      spec:
        replicas: 1
        selector: {matchLabels: {app: ccm}}
        template:
          metadata: {labels: {app: ccm}}
          spec:
            containers:
            - name: kubevirt-cloud-controller-manager
              image: quay.io/kubevirt/kubevirt-cloud-controller-manager:v0.5.1
              command: [/bin/kubevirt-cloud-controller-manager]
              args:
              - --cloud-provider=kubevirt
              - --cloud-config=/etc/cloud/cloud-config
              - --kubeconfig=/etc/kubernetes/kubeconfig/value
              volumeMounts:
              - {name: kubeconfig, mountPath: /etc/kubernetes/kubeconfig, readOnly: true}
              - {name: cloud-config, mountPath: /etc/cloud, readOnly: true}
            volumes:
            - name: kubeconfig
              %s
            - name: cloud-config
              configMap: {name: cloud-config}
      """;

  /**
   * A CCM whose --kubeconfig comes from a Secret manages another cluster: no in-cluster scheduling
   * finding, an INFO naming the kubeconfig and the risks that live elsewhere, and --fix adds no
   * control-plane placement, toleration or host networking. A kubeconfig from the host (kubeadm's)
   * is the cluster's own.
   */
  @Test
  void aCcmWithAKubeconfigToAnotherClusterGetsNoInClusterSchedulingFindings() throws Exception {
    String remote = REMOTE.formatted("secret: {secretName: tenant-a-kubeconfig}");

    List<Finding> findings = Doctor.examine(yaml(remote));

    assertThat(findings).extracting(Finding::rule).containsExactly("manages-remote-cluster");
    Finding info = findings.getFirst();
    assertThat(info.severity()).isEqualTo(Rule.Severity.INFO);
    assertThat(info.consequence())
        .startsWith(
            "Taken for managing another cluster: --kubeconfig=/etc/kubernetes/kubeconfig/value,"
                + " mounted from Secret tenant-a-kubeconfig.")
        .contains(
            "the managed cluster's new nodes keep node.cloudprovider.kubernetes.io/uninitialized")
        .contains("it must be running here and reach that cluster's API server");
    CcmWorkload fixed = fixed(remote).getFirst();
    assertThat(fixed.pod().getTolerations()).isNullOrEmpty();
    assertThat(fixed.pod().getHostNetwork()).isNull();
    assertThat(fixed.pod().getAffinity()).isNull();

    String local = REMOTE.formatted("hostPath: {path: /etc/kubernetes/kubeconfig}");
    assertThat(rules(local)).contains("tolerate-uninitialized", "control-plane-placement");
  }

  /**
   * One replica whose rollout surges (the default strategy), with a required anti-affinity against
   * its own pods on the region or zone: once the nodes are labelled one pod per value fits, so on a
   * cluster in one region the new pod has nowhere to go and the rollout hangs. Here for a CCM that
   * manages another cluster (its nodes are labelled by then, and topology-key-set-by-ccm is not
   * raised for it); --fix rolls it out one at a time.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # topology key                           | selects  | strategy                                                      | hangs
          topology.kubernetes.io/region            | ccm      |                                                               | true
          topology.kubernetes.io/zone              | ccm      |                                                               | true
          failure-domain.beta.kubernetes.io/region | ccm      |                                                               | true
          topology.kubernetes.io/region            | other    |                                                               | false
          topology.kubernetes.io/region            | ccm      | {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}} | false
          kubernetes.io/hostname                   | ccm      |                                                               | false
          """)
  void aSurgingRolloutOfOnePodPerRegionOrZoneHangs(
      String key, String selects, String strategy, boolean hangs) throws Exception {
    String remote =
        REMOTE
            .formatted("secret: {secretName: tenant-a-kubeconfig}")
            .replace(
                "      containers:",
                ("      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
                        + " [{topologyKey: %s, labelSelector: {matchLabels: {app: %s}}}]}}\n"
                        + "      containers:")
                    .formatted(key, selects))
            .replace(
                "  replicas: 1\n",
                strategy == null
                    ? "  replicas: 1\n"
                    : "  replicas: 1\n  strategy: " + strategy + "\n");
    assertThat(remote).contains("topologyKey: " + key);

    List<Finding> findings = Doctor.examine(yaml(remote));

    if (!hangs) {
      assertThat(findings).extracting(Finding::rule).containsExactly("manages-remote-cluster");
      return;
    }
    assertThat(findings)
        .extracting(Finding::rule)
        .containsExactlyInAnyOrder("rolling-update", "manages-remote-cluster");
    assertThat(only(findings, "rolling-update").consequence())
        .contains(
            "Its required anti-affinity against its own pods on "
                + key
                + " allows one pod per value of the label once the nodes are labelled")
        .contains("on a cluster in one region or one zone even with one replica");
    CcmWorkload fixed = fixed(remote).getFirst();
    assertThat(Doctor.check(fixed)).containsExactly(Rule.MANAGES_REMOTE_CLUSTER);
    assertThat(PodSpecs.surges(fixed)).isFalse();
  }

  /** The same on a CCM of this cluster without host networking: the rollout hangs there too. */
  @Test
  void aSurgingRolloutOfOnePodPerRegionHangsWithoutHostNetworkToo() throws Exception {
    String local =
        REMOTE
            .formatted("hostPath: {path: /etc/kubernetes/kubeconfig}")
            .replace(
                "      containers:",
                "      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
                    + " [{topologyKey: topology.kubernetes.io/region, labelSelector: {matchLabels:"
                    + " {app: ccm}}}]}}\n"
                    + "      containers:");

    assertThat(rules(local)).contains("host-network", "topology-key-set-by-ccm", "rolling-update");
  }

  /**
   * A bare Pod shaped like kubeadm's (tier: control-plane) that references a ServiceAccount or a
   * ConfigMap is no static pod (the kubelet refuses those for one): it is applied with kubectl and
   * gets the scalable-workload and placement advice, saying why.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "serviceAccountName: cloud-controller-manager, | ServiceAccount cloud-controller-manager",
        "volumes: [{name: c, configMap: {name: cloud-config}}], | ConfigMap cloud-config",
      })
  void aBarePodReferencingApiObjectsIsNoStaticPod(String reference, String named) throws Exception {
    String pod =
        """
        apiVersion: v1
        kind: Pod
        metadata: {name: cloud-controller-manager, namespace: kube-system, labels: {tier: control-plane}}
        spec: {hostNetwork: true, %s containers: [{name: ccm, image: example.com/cloud-controller-manager:v1,
          args: [--cloud-provider=acme, --leader-elect=true]}]}
        """;

    List<Finding> findings = Doctor.examine(yaml(pod.formatted(reference)));

    assertThat(findings)
        .extracting(Finding::rule)
        .contains("scalable-workload", "tolerate-uninitialized", "control-plane-placement");
    assertThat(only(findings, "scalable-workload").consequence())
        .contains("It references " + named + ", which a static pod cannot");
    assertThat(rules(pod.formatted("")))
        .doesNotContain("scalable-workload", "tolerate-uninitialized");
  }

  /**
   * A preferred node affinity is only a preference: the pod may run anywhere, and the finding says
   * so; one on the master label prefers nothing on a current cluster, and --fix rewrites it.
   */
  @Test
  void aPreferredNodeAffinityIsSaidAndItsMasterLabelRewritten() throws Exception {
    String preferred =
        single(
            "hostNetwork: true, tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized,"
                + " operator: Exists}, {key: node-role.kubernetes.io/control-plane, operator:"
                + " Exists}, {key: node.kubernetes.io/not-ready, operator: Exists}], affinity:"
                + " {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100,"
                + " preference: {matchExpressions: [{key: node-role.kubernetes.io/master, operator:"
                + " In, values: ['']}]}}]}}",
            "--leader-elect=true");

    Finding placement = only(Doctor.examine(yaml(preferred)), "control-plane-placement");

    assertThat(placement.consequence())
        .contains("Its preferred node affinity for node-role.kubernetes.io/master matches no node");
    CcmWorkload fixed = fixed(preferred).getFirst();
    assertThat(Doctor.check(fixed)).isEmpty();
    var preference =
        fixed
            .pod()
            .getAffinity()
            .getNodeAffinity()
            .getPreferredDuringSchedulingIgnoredDuringExecution()
            .getFirst();
    assertThat(preference.getWeight()).isEqualTo(100);
    assertThat(preference.getPreference().getMatchExpressions())
        .singleElement()
        .satisfies(r -> assertThat(r.getKey()).isEqualTo("node-role.kubernetes.io/control-plane"));
  }
}
