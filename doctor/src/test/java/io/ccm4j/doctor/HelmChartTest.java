package io.ccm4j.doctor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.marcnuri.helm.Helm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Helm chart ({@code charts/ccm4j}), rendered by Helm's own library: with its default values
 * and {@code cloudProvider} (the one value without a default) it is the manifests of {@code
 * deploy/}, and the doctor judges what its values change.
 */
class HelmChartTest {

  private static final Path CHART = Path.of("..", "charts", "ccm4j");
  private static final Path DEPLOY = Path.of("..", "deploy");

  /** Labels Helm's bookkeeping adds to metadata; the rest must equal deploy/. */
  private static final List<String> HELM_LABELS =
      List.of("app.kubernetes.io/managed-by", "helm.sh/chart");

  @TempDir Path temp;

  /** Renders with {@code cloudProvider=sim} unless the values say otherwise. */
  private List<ManifestDocument> render(Map<String, Object> values) throws Exception {
    Map<String, Object> all = new LinkedHashMap<>(Map.of("cloudProvider", "sim"));
    all.putAll(values);
    return renderExactly(all);
  }

  private List<ManifestDocument> renderExactly(Map<String, Object> values) throws Exception {
    var template = new Helm(CHART).template().withName("ccm4j").withNamespace("kube-system");
    values.forEach(template::set);
    Path rendered = temp.resolve("rendered-" + values.hashCode() + ".yaml");
    Files.writeString(rendered, template.call());
    return Manifests.read(List.of(rendered));
  }

  /**
   * deploy/'s objects with {@code --cloud-provider=<name>} after {@code run}, as an operator adds
   * it.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> withCloudProvider(Map<String, Object> objects, String name) {
    Map<String, Object> deployment =
        (Map<String, Object>) objects.get("Deployment/kube-system/cloud-controller-manager");
    Map<String, Object> template =
        (Map<String, Object>) ((Map<String, Object>) deployment.get("spec")).get("template");
    List<Map<String, Object>> containers =
        (List<Map<String, Object>>) ((Map<String, Object>) template.get("spec")).get("containers");
    List<Object> args = (List<Object>) containers.getFirst().get("args");
    assertThat(args).noneMatch(arg -> arg.toString().startsWith("--cloud-provider"));
    args.add(args.indexOf("run") + 1, "--cloud-provider=" + name);
    return objects;
  }

  private static Map<String, Object> byKindAndName(List<ManifestDocument> documents) {
    Map<String, Object> objects = new LinkedHashMap<>();
    for (ManifestDocument document : documents) {
      Map<String, Object> object = withoutHelmLabels(document.object());
      @SuppressWarnings("unchecked")
      Map<String, Object> metadata = (Map<String, Object>) object.get("metadata");
      objects.put(
          document.kind() + "/" + metadata.get("namespace") + "/" + metadata.get("name"), object);
    }
    return objects;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> withoutHelmLabels(Map<String, Object> object) {
    Map<String, Object> copy = new LinkedHashMap<>(object);
    Map<String, Object> metadata = new LinkedHashMap<>((Map<String, Object>) copy.get("metadata"));
    if (metadata.get("labels") instanceof Map<?, ?> labels) {
      Map<String, Object> kept = new LinkedHashMap<>((Map<String, Object>) labels);
      HELM_LABELS.forEach(kept::remove);
      if (kept.isEmpty()) {
        metadata.remove("labels");
      } else {
        metadata.put("labels", kept);
      }
    }
    copy.put("metadata", metadata);
    return copy;
  }

  /**
   * deploy/ names no cloud (its manager refuses to start until the operator adds one); the chart
   * requires one and otherwise renders the same objects.
   */
  @Test
  void theDefaultValuesRenderTheManifestsOfDeployWithTheCloudProviderGiven() throws Exception {
    List<ManifestDocument> chart = render(Map.of());

    assertThat(byKindAndName(chart))
        .isEqualTo(withCloudProvider(byKindAndName(Manifests.read(List.of(DEPLOY))), "sim"));
    assertThat(chart)
        .allSatisfy(
            document ->
                assertThat(document.object())
                    .extractingByKey("metadata")
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .extractingByKey("labels")
                    .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                    .containsEntry("app.kubernetes.io/managed-by", "Helm"));
  }

  /**
   * The lab's kubevirt scenario is what the KubeVirt guide (docs/kubevirt.md) installs: the chart
   * with the kubevirt provider, its cloud-config Secret and the VMs' cluster name.
   */
  @Test
  void theKubeVirtScenarioIsTheChartAsTheKubeVirtGuideInstallsIt() throws Exception {
    List<ManifestDocument> chart =
        renderExactly(
            Map.of(
                "cloudProvider", "kubevirt",
                "cloudConfig.secretName", "kubevirt-cloud-config",
                "clusterName", "kubevirt-lab"));
    Path scenario = temp.resolve("kubevirt.yaml");
    Files.writeString(scenario, Scenarios.manifest(Scenarios.KUBEVIRT));

    Map<String, Object> deployment =
        byKindAndName(chart).entrySet().stream()
            .filter(e -> e.getKey().startsWith("Deployment/"))
            .collect(LinkedHashMap::new, (m, e) -> m.put(e.getKey(), e.getValue()), Map::putAll);
    assertThat(deployment).isEqualTo(byKindAndName(Manifests.read(List.of(scenario))));
    assertThat(Doctor.examine(Manifests.read(List.of(scenario)))).isEmpty();
  }

  @Test
  void theDoctorFindsNothingInTheDefaultRendering() throws Exception {
    assertThat(Doctor.examine(render(Map.of()))).isEmpty();
  }

  @Test
  void valuesThatBreakTheRecommendationsAreCaughtByTheDoctor() throws Exception {
    List<Finding> findings =
        Doctor.examine(
            render(Map.of("replicas", 1, "leaderElection.enabled", false, "hostNetwork", false)));

    List<String> rules = new ArrayList<>(findings.stream().map(Finding::rule).toList());
    assertThat(rules).containsExactly("host-network");
  }

  @Test
  void severalReplicasWithoutLeaderElectionDoNotRender() {
    assertThatThrownBy(() -> render(Map.of("leaderElection.enabled", false)))
        .hasMessageContaining("replicas > 1 needs leaderElection.enabled");
  }

  @Test
  void extraArgsAreQuoted() throws Exception {
    CcmWorkload workload =
        Doctor.workloads(render(Map.of("extraArgs[0]", "--cluster-name=a: b"))).getFirst();

    assertThat(workload.pod().getContainers().getFirst().getArgs()).contains("--cluster-name=a: b");
  }

  @Test
  void theNodeLifecycleControllerGetsItsPermissionsOnlyWhenEnabled() throws Exception {
    assertThat(podRules(render(Map.of()))).isEmpty();
    assertThat(podRules(withControllers("*"))).isEmpty();
    assertThat(podRules(withControllers("*,-node-lifecycle,node-lifecycle"))).isEmpty();
    assertThat(podRules(withControllers("*, node-lifecycle")))
        .containsExactly(
            "leases:[get, list, watch]", "pods:[list, watch, delete]", "pods/status:[patch]");
    assertThat(podRules(withControllers("node-lifecycle-controller"))).hasSize(3);
  }

  /** With {@code controllers} from a values file ({@code --set} would split it at the commas). */
  private List<ManifestDocument> withControllers(String controllers) throws Exception {
    Path values = temp.resolve("controllers-" + controllers.hashCode() + ".yaml");
    Files.writeString(values, "controllers: \"%s\"%n".formatted(controllers));
    var template =
        new Helm(CHART)
            .template()
            .withName("ccm4j")
            .withNamespace("kube-system")
            .withValuesFile(values)
            .set("cloudProvider", "sim");
    Path rendered = temp.resolve("rendered-" + controllers.hashCode() + ".yaml");
    Files.writeString(rendered, template.call());
    return Manifests.read(List.of(rendered));
  }

  /** The manager's ClusterRole's rules on pods and leases, as {@code resource:verbs}. */
  @SuppressWarnings("unchecked")
  private static List<String> podRules(List<ManifestDocument> documents) {
    Map<String, Object> role =
        documents.stream()
            .filter(
                d -> d.kind().equals("ClusterRole") && name(d).equals("cloud-controller-manager"))
            .findFirst()
            .orElseThrow()
            .object();
    List<String> rules = new ArrayList<>();
    for (Map<String, Object> rule : (List<Map<String, Object>>) role.get("rules")) {
      for (String resource : (List<String>) rule.get("resources")) {
        if (resource.startsWith("pods") || resource.equals("leases")) {
          rules.add(resource + ":" + rule.get("verbs"));
        }
      }
    }
    return rules;
  }

  @Test
  @SuppressWarnings("unchecked")
  void serviceAccountCredentialsPassTheFlagBindTheControllersAndLetTheManagerMakeTheirTokens()
      throws Exception {
    assertThat(render(Map.of()))
        .noneMatch(d -> d.kind().equals("Role") && name(d).endsWith(":controller-accounts"));

    List<ManifestDocument> chart = render(Map.of("useServiceAccountCredentials", true));

    CcmWorkload workload = Doctor.workloads(chart).getFirst();
    assertThat(workload.pod().getContainers().getFirst().getArgs())
        .contains("--use-service-account-credentials");
    Map<String, Object> binding =
        chart.stream()
            .filter(d -> d.kind().equals("ClusterRoleBinding"))
            .findFirst()
            .orElseThrow()
            .object();
    assertThat((List<Map<String, Object>>) binding.get("subjects"))
        .extracting(subject -> subject.get("namespace") + "/" + subject.get("name"))
        // The controllers' own accounts are upstream's, bound by the API server's bootstrap policy.
        .containsExactly("kube-system/cloud-controller-manager");
    Map<String, Object> role =
        chart.stream()
            .filter(d -> d.kind().equals("Role") && name(d).endsWith(":controller-accounts"))
            .findFirst()
            .orElseThrow()
            .object();
    // The controllers' accounts only: another account's token is not the manager's to request.
    assertThat((List<Map<String, Object>>) role.get("rules"))
        .extracting(
            rule ->
                rule.get("resources") + ":" + rule.get("resourceNames") + ":" + rule.get("verbs"))
        .containsExactly(
            "[serviceaccounts]:null:[create]",
            "[serviceaccounts]:[node-controller, service-controller, route-controller]:[get]",
            "[serviceaccounts/token]:[node-controller, service-controller, route-controller]:"
                + "[create]");
    assertThat(((Map<String, Object>) role.get("metadata")).get("namespace"))
        .isEqualTo("kube-system");
    assertThat(chart)
        .anyMatch(d -> d.kind().equals("RoleBinding") && name(d).endsWith(":controller-accounts"));
  }

  @SuppressWarnings("unchecked")
  private static String name(ManifestDocument document) {
    return String.valueOf(((Map<String, Object>) document.object().get("metadata")).get("name"));
  }

  @Test
  void theCloudConfigSecretIsMountedAndPassed() throws Exception {
    List<ManifestDocument> chart =
        render(
            Map.of(
                "cloudConfig.secretName",
                "my-cloud",
                "extraArgs[0]",
                "--concurrent-node-syncs=20"));

    CcmWorkload workload = Doctor.workloads(chart).getFirst();
    var container = workload.pod().getContainers().getFirst();
    assertThat(container.getArgs())
        .contains("--cloud-config=/etc/ccm4j/cloud-config", "--concurrent-node-syncs=20");
    assertThat(container.getVolumeMounts()).extracting("mountPath").containsExactly("/etc/ccm4j");
    assertThat(workload.pod().getVolumes())
        .singleElement()
        .satisfies(volume -> assertThat(volume.getSecret().getSecretName()).isEqualTo("my-cloud"));
  }

  /** The leader-election Role grants the Lease the manager campaigns for, and no other. */
  @Test
  @SuppressWarnings("unchecked")
  void theLeaderElectionRoleNamesTheLease() throws Exception {
    List<ManifestDocument> chart = render(Map.of("leaderElection.name", "my-ccm"));

    Map<String, Object> role =
        chart.stream()
            .filter(d -> d.kind().equals("Role") && name(d).endsWith(":leader-election"))
            .findFirst()
            .orElseThrow()
            .object();
    assertThat((List<Map<String, Object>>) role.get("rules"))
        .extracting(
            rule ->
                rule.get("resources") + ":" + rule.get("resourceNames") + ":" + rule.get("verbs"))
        .containsExactly(
            "[leases]:null:[create]", "[leases]:[my-ccm]:[get, list, watch, update, patch]");
    assertThat(Doctor.workloads(chart).getFirst().pod().getContainers().getFirst().getArgs())
        .contains("--leader-elect-resource-name=my-ccm");
  }

  /**
   * The scraper's ClusterRole (deploy/metrics-reader.yaml) is rendered by default and bound to the
   * subjects given; left out when not wanted, and when the manager serves another cluster, whose
   * API server then reviews the scrapers.
   */
  @Test
  @SuppressWarnings("unchecked")
  void theMetricsReaderRoleIsBoundToTheSubjectsGiven() throws Exception {
    String role = "ClusterRole/null/cloud-controller-manager:metrics-reader";
    String binding = "ClusterRoleBinding/null/cloud-controller-manager:metrics-reader";
    assertThat(byKindAndName(render(Map.of()))).containsKey(role).doesNotContainKey(binding);

    Map<String, Object> bound =
        byKindAndName(
            render(
                Map.of(
                    "metricsReader.subjects[0].kind", "ServiceAccount",
                    "metricsReader.subjects[0].name", "prometheus-k8s",
                    "metricsReader.subjects[0].namespace", "monitoring")));
    assertThat((List<Map<String, Object>>) ((Map<String, Object>) bound.get(role)).get("rules"))
        .containsExactly(
            Map.of(
                "nonResourceURLs", List.of("/metrics", "/metrics/slis"), "verbs", List.of("get")));
    Map<String, Object> roleBinding = (Map<String, Object>) bound.get(binding);
    assertThat(roleBinding.get("roleRef"))
        .isEqualTo(
            Map.of(
                "apiGroup", "rbac.authorization.k8s.io",
                "kind", "ClusterRole",
                "name", "cloud-controller-manager:metrics-reader"));
    assertThat(roleBinding.get("subjects"))
        .isEqualTo(
            List.of(
                Map.of(
                    "kind", "ServiceAccount",
                    "name", "prometheus-k8s",
                    "namespace", "monitoring")));

    assertThat(byKindAndName(render(Map.of("metricsReader.create", false))))
        .doesNotContainKeys(role, binding);
    assertThat(byKindAndName(renderKubeVirtInfrastructure(Map.of())))
        .doesNotContainKeys(role, binding);
  }

  @Test
  void theCloudProviderHasNoDefault() {
    // No default cloud may judge a real cluster's nodes.
    assertThatThrownBy(() -> renderExactly(Map.of()))
        .hasMessageContaining("cloudProvider is required: name your cloud");
  }

  /** values-kubevirt-infrastructure.yaml in namespace tenant-a, with the tenant's kubeconfig. */
  private List<ManifestDocument> renderKubeVirtInfrastructure(Map<String, String> values)
      throws Exception {
    var template =
        new Helm(CHART)
            .template()
            .withName("ccm4j")
            .withNamespace("tenant-a")
            .withValuesFile(CHART.resolve("values-kubevirt-infrastructure.yaml"))
            .set("servedCluster.kubeconfigSecretName", "tenant-a-kubeconfig")
            .set("cloudConfig.secretName", "kubevirt-cloud-config");
    values.forEach(template::set);
    Path rendered = temp.resolve("kubevirt-infrastructure-" + values.hashCode() + ".yaml");
    Files.writeString(rendered, template.call());
    return Manifests.read(List.of(rendered));
  }

  /**
   * Upstream kubevirt's default layout: the manager in the infrastructure cluster, in the VMs'
   * namespace, the tenant reached through {@code --kubeconfig}; its ServiceAccount has exactly the
   * rights of {@code providers/kubevirt/deploy/infra-rbac.yaml} and none of the tenant's.
   */
  @Test
  @SuppressWarnings("unchecked")
  void theKubeVirtInfrastructureLayoutReachesTheTenantThroughItsKubeconfig() throws Exception {
    List<ManifestDocument> chart = renderKubeVirtInfrastructure(Map.of("clusterName", "tenant-a"));

    var pod = Doctor.workloads(chart).getFirst().pod();
    assertThat(pod.getContainers().getFirst().getArgs())
        .contains(
            "--cloud-provider=kubevirt",
            "--kubeconfig=/etc/ccm4j-served/value",
            "--cloud-config=/etc/ccm4j/cloud-config",
            "--cluster-name=tenant-a");
    assertThat(pod.getVolumes())
        .extracting(v -> v.getSecret().getSecretName())
        .containsExactly("kubevirt-cloud-config", "tenant-a-kubeconfig");
    assertThat(pod.getHostNetwork()).isFalse();
    assertThat(pod.getPriorityClassName()).isNull();

    // The infrastructure rights of infra-rbac.yaml, for the pod's own ServiceAccount.
    Map<String, Object> shipped =
        byKindAndName(
            Manifests.read(
                List.of(Path.of("..", "providers", "kubevirt", "deploy", "infra-rbac.yaml"))));
    Map<String, Object> objects = byKindAndName(chart);
    assertThat(
            ((Map<String, Object>) objects.get("Role/tenant-a/cloud-controller-manager"))
                .get("rules"))
        .isEqualTo(
            ((Map<String, Object>) shipped.get("Role/tenant-a/kubevirt-cloud-controller-manager"))
                .get("rules"));
    assertThat(
            ((Map<String, Object>)
                    objects.get("ClusterRole/null/cloud-controller-manager-tenant-a"))
                .get("rules"))
        .isEqualTo(
            ((Map<String, Object>)
                    shipped.get("ClusterRole/null/kubevirt-cloud-controller-manager-tenant-a"))
                .get("rules"));
    // None of the tenant's RBAC: it belongs to the kubeconfig's identity in the tenant cluster.
    assertThat(objects.keySet())
        .containsExactlyInAnyOrder(
            "ServiceAccount/tenant-a/cloud-controller-manager",
            "Role/tenant-a/cloud-controller-manager",
            "RoleBinding/tenant-a/cloud-controller-manager",
            "ClusterRole/null/cloud-controller-manager-tenant-a",
            "ClusterRoleBinding/null/cloud-controller-manager-tenant-a",
            "Deployment/tenant-a/cloud-controller-manager");
  }

  /**
   * K95, K98: with {@code kubevirt.endpointSliceController} the served cluster's ClusterRole lists
   * and watches EndpointSlices, and in the infrastructure layout the namespace's extra Role is
   * exactly {@code providers/kubevirt/deploy/infra-rbac-endpointslices.yaml}'s.
   */
  @Test
  @SuppressWarnings("unchecked")
  void theKubeVirtEndpointSliceControllerGetsItsRightsOnlyWhenOn() throws Exception {
    Map<String, Object> endpointSlices =
        Map.of(
            "apiGroups", List.of("discovery.k8s.io"),
            "resources", List.of("endpointslices"),
            "verbs", List.of("list", "watch"));
    Map<String, Object> on =
        byKindAndName(
            render(
                Map.of("cloudProvider", "kubevirt", "kubevirt.endpointSliceController", "true")));
    assertThat(
            (List<Object>)
                ((Map<String, Object>) on.get("ClusterRole/null/cloud-controller-manager"))
                    .get("rules"))
        .contains(endpointSlices);
    Map<String, Object> off = byKindAndName(render(Map.of("cloudProvider", "kubevirt")));
    assertThat(
            (List<Object>)
                ((Map<String, Object>) off.get("ClusterRole/null/cloud-controller-manager"))
                    .get("rules"))
        .doesNotContain(endpointSlices);

    Map<String, Object> objects =
        byKindAndName(
            renderKubeVirtInfrastructure(Map.of("kubevirt.endpointSliceController", "true")));
    Map<String, Object> shipped =
        byKindAndName(
            Manifests.read(
                List.of(
                    Path.of(
                        "..",
                        "providers",
                        "kubevirt",
                        "deploy",
                        "infra-rbac-endpointslices.yaml"))));
    assertThat(
            ((Map<String, Object>)
                    objects.get("Role/tenant-a/cloud-controller-manager-endpointslices"))
                .get("rules"))
        .isEqualTo(
            ((Map<String, Object>)
                    shipped.get("Role/tenant-a/kubevirt-cloud-controller-manager-endpointslices"))
                .get("rules"));
    assertThat(objects).containsKey("RoleBinding/tenant-a/cloud-controller-manager-endpointslices");
  }
}
