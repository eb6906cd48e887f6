package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Scheduling terms keyed on a label only the CCM sets (the {@code topology-key-set-by-ccm} finding
 * and its fix), as kube-scheduler treats nodes without the key: filtered for a spread constraint
 * that must be satisfied or a required pod affinity term, feasible for a required anti-affinity
 * term.
 */
class CcmLabelTermsTest {

  private static final Path IONOS =
      Path.of("src", "test", "resources", "vendor", "ionos-cloud-deployment.yaml");

  private static final String RULE = "topology-key-set-by-ccm";

  @TempDir Path temp;

  private int files;

  /**
   * A ccm4j Deployment with every recommendation (host network, tolerations, control-plane
   * placement, hostname anti-affinity, one pod at a time) and these replicas, extra pod-spec fields
   * (flow YAML) and arguments.
   */
  private static String deployment(int replicas, String pod, String args) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: ccm, namespace: kube-system}
        spec: {replicas: %d, strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}},
          selector: {matchLabels: {app: ccm}}, template: {metadata: {labels: {app: ccm}},
          spec: {hostNetwork: true, %s
            tolerations: [{key: node.cloudprovider.kubernetes.io/uninitialized, operator: Exists, effect: NoSchedule},
              {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule},
              {key: node.kubernetes.io/not-ready, operator: Exists}],
            containers: [{name: ccm, image: ccm4j:0.1.0, args: [run, --cloud-provider=sim, --leader-elect=true%s]}]}}}
        """
        .formatted(replicas, pod.isEmpty() ? "" : pod + ",", args.isEmpty() ? "" : ", " + args);
  }

  private static String affinity(String more) {
    return "affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
        + " {nodeSelectorTerms: [{matchExpressions: [{key: node-role.kubernetes.io/control-plane,"
        + " operator: Exists}]}]}}, podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
        + " [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: ccm}}}"
        + more
        + "]}}";
  }

  private List<ManifestDocument> yaml(String text) throws Exception {
    Path file = temp.resolve("manifest-" + files++ + ".yaml");
    Files.writeString(file, text);
    return Manifests.read(List.of(file));
  }

  private List<CcmWorkload> fixed(String text) throws Exception {
    List<CcmWorkload> workloads = Doctor.workloads(yaml(text));
    for (CcmWorkload workload : workloads) {
      Doctor.fix(workload);
    }
    return Doctor.workloads(
        yaml(workloads.stream().map(CcmWorkload::toYaml).collect(Collectors.joining("---\n"))));
  }

  @Test
  void theRecommendedShapeHasNoSuchTerm() throws Exception {
    assertThat(Doctor.examine(yaml(deployment(2, affinity(""), "")))).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                   | replicas | pod spec fields                                                                                                                               | args                       | severity | said
          spread on the zone, DoNotSchedule        | 2 | topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: ccm}}}] |  | ERROR | spec.template.spec.topologySpreadConstraints[0] (whenUnsatisfiable: DoNotSchedule) is keyed on topology.kubernetes.io/zone
          spread on the region, DoNotSchedule      | 1 | topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}, {maxSkew: 1, topologyKey: topology.kubernetes.io/region, whenUnsatisfiable: DoNotSchedule}] |  | ERROR | spec.template.spec.topologySpreadConstraints[1] (whenUnsatisfiable: DoNotSchedule) is keyed on topology.kubernetes.io/region
          required pod affinity on the zone         | 1 | POD_AFFINITY_ON_ZONE |  | ERROR | spec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey is topology.kubernetes.io/zone
          spread on the zone, no node initialised  | 2 | topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}] | "--controllers=*,-cloud-node" | WARNING | it schedules only once the component that does has labelled a node
          anti-affinity on the region, 2 replicas  | 2 | AFFINITY_WITH_REGION |  | WARNING | spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[1].topologyKey is topology.kubernetes.io/region
          anti-affinity on the instance type       | 2 | AFFINITY_WITH_INSTANCE_TYPE |  | WARNING | so the CCM schedules at bootstrap: no deadlock
          """)
  void aTermOnALabelOnlyTheCcmSetsIsReportedAndFixed(
      String name, int replicas, String pod, String args, String severity, String said)
      throws Exception {
    String fields =
        switch (pod) {
          case "AFFINITY_WITH_REGION" ->
              affinity(
                  ", {topologyKey: topology.kubernetes.io/region, labelSelector: {matchLabels:"
                      + " {app: ccm}}}");
          case "POD_AFFINITY_ON_ZONE" ->
              affinity("")
                  .replaceFirst(
                      "}$",
                      ", podAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
                          + " [{topologyKey: topology.kubernetes.io/zone, labelSelector:"
                          + " {matchLabels: {app: ccm}}}]}}");
          case "AFFINITY_WITH_INSTANCE_TYPE" ->
              affinity(
                  ", {topologyKey: node.kubernetes.io/instance-type, labelSelector: {matchLabels:"
                      + " {app: ccm}}}");
          default -> affinity("") + ", " + pod;
        };
    String text = deployment(replicas, fields, args == null ? "" : args);

    List<Finding> findings = Doctor.examine(yaml(text));

    assertThat(findings).extracting(Finding::rule).contains(RULE);
    Finding finding =
        findings.stream().filter(f -> f.rule().equals(RULE)).findFirst().orElseThrow();
    assertThat(finding.severity()).isEqualTo(Rule.Severity.valueOf(severity));
    assertThat(finding.consequence()).contains(said);
    assertThat(finding.fix()).contains("--fix does so");
    assertThat(Doctor.check(fixed(text).getFirst())).doesNotContain(Rule.TOPOLOGY_KEY_SET_BY_CCM);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                     | replicas | pod spec fields
          a spread that only prefers                 | 2 | topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}]
          a spread on the hostname                   | 2 | topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}]
          an anti-affinity on the zone to other pods | 2 | ZONE_ANTI_AFFINITY_TO_OTHER_PODS
          """)
  void aTermTheKubeletsLabelOrAPreferenceAllowsIsNoFinding(String name, int replicas, String pod)
      throws Exception {
    String fields =
        pod.equals("ZONE_ANTI_AFFINITY_TO_OTHER_PODS")
            // Where not to run, beside other pods: the user's choice, not the replicas' spread.
            ? affinity(
                ", {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app:"
                    + " other}}}")
            : affinity("") + ", " + pod;

    assertThat(Doctor.examine(yaml(deployment(replicas, fields, ""))))
        .extracting(Finding::rule)
        .doesNotContain(RULE);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # selector (flow YAML)                                                       | selects app=ccm, tier=control-plane
          {matchLabels: {app: ccm}}                                                    | true
          {matchLabels: {app: ccm, other: x}}                                          | false
          {}                                                                           | true
          {matchExpressions: [{key: app, operator: In, values: [ccm, other]}]}         | true
          {matchExpressions: [{key: app, operator: NotIn, values: [ccm]}]}             | false
          {matchExpressions: [{key: tier, operator: Exists}]}                          | true
          {matchExpressions: [{key: tier, operator: DoesNotExist}]}                    | false
          """)
  void aSelectorIsMatchedAgainstThePodsOwnLabels(String selector, boolean selects)
      throws Exception {
    var read =
        new com.fasterxml.jackson.databind.ObjectMapper(
                new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
            .readValue(selector, io.fabric8.kubernetes.api.model.LabelSelector.class);

    assertThat(CcmLabelTerms.selects(read, java.util.Map.of("app", "ccm", "tier", "control-plane")))
        .isEqualTo(selects);
    assertThat(CcmLabelTerms.selects(null, java.util.Map.of("app", "ccm")))
        .as("no selector selects no pod")
        .isFalse();
  }

  /** One pod that never surges: a required anti-affinity term compares it with nothing. */
  @Test
  void aRegionAntiAffinityOfOnePodRolledOutOneAtATimeIsNoFinding() throws Exception {
    String text =
        deployment(
            1,
            affinity(
                ", {topologyKey: topology.kubernetes.io/region, labelSelector: {matchLabels:"
                    + " {app: ccm}}}"),
            "");

    assertThat(Doctor.examine(yaml(text))).extracting(Finding::rule).doesNotContain(RULE);
  }

  /** The recommended affinity with these requirements added to its control-plane term. */
  private static String requiring(String requirements) {
    return affinity("")
        .replaceFirst(
            "operator: Exists\\}\\]",
            "operator: Exists}, " + requirements.replace("$", "\\$") + "]");
  }

  /**
   * A nodeSelector entry, or a required node affinity whose every term asks for the label (In,
   * Exists, Gt, Lt), on a label only the CCM sets: kube-scheduler's NodeAffinity filter rejects
   * every node without it, as the DaemonSet controller does, so the CCM never schedules.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                   | pod spec fields                                                                 | args                          | severity | said
          nodeSelector on the zone                 | NODE_SELECTOR {topology.kubernetes.io/zone: eu-1a}                               |                               | ERROR    | spec.template.spec.nodeSelector asks for topology.kubernetes.io/zone: eu-1a
          nodeSelector on the instance type        | NODE_SELECTOR {node.kubernetes.io/instance-type: cx22}                           |                               | ERROR    | spec.template.spec.nodeSelector asks for node.kubernetes.io/instance-type: cx22
          nodeSelector on the beta region          | NODE_SELECTOR {failure-domain.beta.kubernetes.io/region: eu}                     |                               | ERROR    | spec.template.spec.nodeSelector asks for failure-domain.beta.kubernetes.io/region: eu
          required node affinity, region Exists    | {key: topology.kubernetes.io/region, operator: Exists}                          |                               | ERROR    | spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1] asks for topology.kubernetes.io/region Exists
          required node affinity, beta zone In     | {key: failure-domain.beta.kubernetes.io/zone, operator: In, values: [eu-1a]}    |                               | ERROR    | nodeSelectorTerms[0].matchExpressions[1] asks for failure-domain.beta.kubernetes.io/zone In [eu-1a]
          nodeSelector, no node initialised        | NODE_SELECTOR {topology.kubernetes.io/zone: eu-1a}                               | "--controllers=*,-cloud-node" | WARNING  | it schedules only once the component that does has labelled a node
          """)
  void aNodeSelectionOnALabelOnlyTheCcmSetsIsReportedAndFixed(
      String name, String pod, String args, String severity, String said) throws Exception {
    String fields =
        pod.startsWith("NODE_SELECTOR ")
            ? affinity("") + ", nodeSelector: " + pod.substring("NODE_SELECTOR ".length())
            : requiring(pod);
    String text = deployment(1, fields, args == null ? "" : args);

    List<Finding> findings = Doctor.examine(yaml(text));

    Finding finding =
        findings.stream().filter(f -> f.rule().equals(RULE)).findFirst().orElseThrow();
    assertThat(finding.severity()).isEqualTo(Rule.Severity.valueOf(severity));
    assertThat(finding.consequence())
        .contains(said)
        .contains("didn't match Pod's node affinity/selector");
    assertThat(finding.fix()).contains("preferred node affinity", "--fix does so");
    CcmWorkload fixed = fixed(text).getFirst();
    assertThat(Doctor.check(fixed)).isEmpty();
    assertThat(PodSpecs.preferredNodeSelectorTerms(fixed.pod())).isNotEmpty();
  }

  /**
   * NotIn and DoesNotExist hold on a node without the label, and a term that asks for none of the
   * CCM's labels lets the pod on such nodes (the terms are ORed): the scheduler places it.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          # case                                  | requirements added to the control-plane term, or a second term
          zone NotIn                              | {key: topology.kubernetes.io/zone, operator: NotIn, values: [eu-1c]}
          region DoesNotExist                     | {key: topology.kubernetes.io/region, operator: DoesNotExist}
          another term asks for no such label     | OR {key: topology.kubernetes.io/zone, operator: In, values: [eu-1a]}
          """)
  void aNodeSelectionAnUnlabelledNodeMeetsIsNoFinding(String name, String requirements)
      throws Exception {
    String fields =
        requirements.startsWith("OR ")
            ? affinity("")
                .replaceFirst(
                    "operator: Exists\\}\\]\\}",
                    "operator: Exists}]}, {matchExpressions: [" + requirements.substring(3) + "]}")
            : requiring(requirements);
    assertThat(fields).contains(requirements.replaceFirst("^OR ", ""));

    assertThat(Doctor.examine(yaml(deployment(1, fields, ""))))
        .extracting(Finding::rule)
        .doesNotContain(RULE);
  }

  /**
   * The fix: a nodeSelector entry on such a label leaves it (a nodeSelector has no preferred form)
   * and the preferred node affinity asks for the same value; a required term that asks for such a
   * label is kept as a preference and stays required without it; the rest stays as written.
   */
  @Test
  void theFixMovesTheNodeSelectionOnSuchALabelToThePreferredNodeAffinity() throws Exception {
    String text =
        deployment(
            1,
            requiring("{key: topology.kubernetes.io/region, operator: In, values: [eu]}")
                + ", nodeSelector: {topology.kubernetes.io/zone: eu-1a, disk: ssd}",
            "");
    List<ManifestDocument> documents = yaml(text);
    List<CcmWorkload> workloads = Doctor.workloads(documents);
    Finding finding =
        Doctor.examine(documents).stream()
            .filter(f -> f.rule().equals(RULE))
            .findFirst()
            .orElseThrow();
    assertThat(finding.fix())
        .contains(
            "it removes topology.kubernetes.io/zone from the nodeSelector (which has no preferred"
                + " form)");

    Doctor.fix(workloads.getFirst());
    List<String> notices = new ArrayList<>();
    Path file = documents.getFirst().file();
    String written = Doctor.fixedTexts(documents, workloads, notices::add).get(file);
    CcmWorkload fixed = Doctor.workloads(yaml(written)).getFirst();

    assertThat(notices).as("edited in the file's own text").isEmpty();
    assertThat(fixed.pod().getNodeSelector()).containsExactly(java.util.Map.entry("disk", "ssd"));
    var nodeAffinity = fixed.pod().getAffinity().getNodeAffinity();
    assertThat(
            nodeAffinity.getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms())
        .singleElement()
        .satisfies(
            term ->
                assertThat(term.getMatchExpressions())
                    .extracting(r -> r.getKey() + " " + r.getOperator())
                    .containsExactly("node-role.kubernetes.io/control-plane Exists"));
    assertThat(nodeAffinity.getPreferredDuringSchedulingIgnoredDuringExecution())
        .allSatisfy(t -> assertThat(t.getWeight()).isEqualTo(CcmLabelTerms.PREFERRED_WEIGHT))
        .extracting(
            t ->
                t.getPreference().getMatchExpressions().stream()
                    .map(r -> r.getKey() + " " + r.getOperator() + " " + r.getValues())
                    .toList())
        .containsExactlyInAnyOrder(
            List.of("topology.kubernetes.io/zone In [eu-1a]"),
            List.of(
                "node-role.kubernetes.io/control-plane Exists []",
                "topology.kubernetes.io/region In [eu]"));
    assertThat(Doctor.check(fixed)).isEmpty();
  }

  /** A DaemonSet with such a nodeSelector: its controller creates no pod for an unlabelled node. */
  @Test
  void aDaemonSetsNodeSelectionOnSuchALabelIsSaidToCreateNoPod() throws Exception {
    String text =
        deployment(1, affinity("") + ", nodeSelector: {topology.kubernetes.io/region: eu}", "")
            .replace("kind: Deployment", "kind: DaemonSet")
            .replace(
                "replicas: 1, strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 0,"
                    + " maxUnavailable: 1}},",
                "");
    assertThat(text).contains("kind: DaemonSet").doesNotContain("replicas");

    Finding finding =
        Doctor.examine(yaml(text)).stream()
            .filter(f -> f.rule().equals(RULE))
            .findFirst()
            .orElseThrow();

    assertThat(finding.kind()).isEqualTo("DaemonSet");
    assertThat(finding.severity()).isEqualTo(Rule.Severity.ERROR);
    assertThat(finding.consequence())
        .contains("the DaemonSet controller creates no pod for such a node");
    assertThat(Doctor.check(fixed(text).getFirst())).isEmpty();
  }

  /** Terms that filter unlabelled nodes and an anti-affinity term on such a label, said apart. */
  @Test
  void aNodeSelectionAndARegionAntiAffinityAreSaidInTurn() throws Exception {
    String text =
        deployment(
            2,
            affinity(
                    ", {topologyKey: topology.kubernetes.io/region, labelSelector: {matchLabels:"
                        + " {app: ccm}}}")
                + ", nodeSelector: {topology.kubernetes.io/zone: eu-1a}",
            "");

    Finding finding =
        Doctor.examine(yaml(text)).stream()
            .filter(f -> f.rule().equals(RULE))
            .findFirst()
            .orElseThrow();

    assertThat(finding.severity()).isEqualTo(Rule.Severity.ERROR);
    assertThat(finding.consequence())
        .startsWith("spec.template.spec.nodeSelector asks for topology.kubernetes.io/zone: eu-1a,")
        .contains(
            " Also spec.template.spec.affinity.podAntiAffinity"
                + ".requiredDuringSchedulingIgnoredDuringExecution[1].topologyKey is"
                + " topology.kubernetes.io/region. Until the nodes are labelled");
  }

  /**
   * A required node term that asks only for such a label is dropped by the fix; the control-plane
   * placement then asks for the control-plane label in a term of its own.
   */
  @Test
  void aRequiredTermThatAsksOnlyForSuchALabelIsDropped() throws Exception {
    String text =
        deployment(
            1,
            affinity("")
                .replace(
                    "{key: node-role.kubernetes.io/control-plane, operator: Exists}",
                    "{key: topology.kubernetes.io/zone, operator: Exists}"),
            "");
    assertThat(Doctor.examine(yaml(text)))
        .extracting(Finding::rule)
        .contains(RULE, "control-plane-placement");

    CcmWorkload fixed = fixed(text).getFirst();

    assertThat(Doctor.check(fixed)).isEmpty();
    assertThat(PodSpecs.requiredNodeSelectorTerms(fixed.pod()))
        .singleElement()
        .satisfies(
            term ->
                assertThat(term.getMatchExpressions())
                    .extracting(r -> r.getKey())
                    .containsExactly("node-role.kubernetes.io/control-plane"));
  }

  /**
   * IONOS Cloud's chart: a required pod anti-affinity on topology.kubernetes.io/region, one replica
   * whose rollout surges. The scheduler lets it on unlabelled nodes, so it is a warning, not a
   * deadlock; --fix makes the term preferred, in the file's own text.
   */
  @Test
  void theIonosChartsRegionAntiAffinityIsAWarningAndTheFixMakesItPreferred() throws Exception {
    List<ManifestDocument> documents = Manifests.read(List.of(IONOS));
    List<Finding> findings = Doctor.examine(documents);

    Finding finding =
        findings.stream().filter(f -> f.rule().equals(RULE)).findFirst().orElseThrow();
    assertThat(finding.severity()).isEqualTo(Rule.Severity.WARNING);
    assertThat(finding.consequence())
        .startsWith(
            "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
                + ".topologyKey is topology.kubernetes.io/region, a label only the"
                + " cloud-controller-manager sets")
        .contains("no deadlock", "at most one of them runs per value of the label");
    assertThat(finding.fix()).contains("preferred").doesNotContain("kubernetes.io/hostname");

    List<CcmWorkload> workloads = Doctor.workloads(documents);
    Doctor.fix(workloads.getFirst());
    List<String> notices = new ArrayList<>();
    String text = Doctor.fixedTexts(documents, workloads, notices::add).get(IONOS);

    assertThat(notices).as("edited in the file's own text").isEmpty();
    assertThat(text).contains("# NOTE(piepmatz)");
    CcmWorkload fixed = Doctor.workloads(yaml(text)).getFirst();
    var antiAffinity = fixed.pod().getAffinity().getPodAntiAffinity();
    assertThat(antiAffinity.getRequiredDuringSchedulingIgnoredDuringExecution()).isNullOrEmpty();
    assertThat(antiAffinity.getPreferredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .satisfies(
            weighted -> {
              assertThat(weighted.getWeight()).isEqualTo(CcmLabelTerms.PREFERRED_WEIGHT);
              assertThat(weighted.getPodAffinityTerm().getTopologyKey())
                  .isEqualTo("topology.kubernetes.io/region");
              assertThat(weighted.getPodAffinityTerm().getLabelSelector().getMatchLabels())
                  .containsEntry("app.kubernetes.io/name", "ionoscloud-cloud-controller-manager");
            });
    assertThat(Doctor.check(fixed)).doesNotContain(Rule.TOPOLOGY_KEY_SET_BY_CCM);
  }
}
