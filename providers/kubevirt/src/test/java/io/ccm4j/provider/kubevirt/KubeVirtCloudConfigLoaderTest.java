package io.ccm4j.provider.kubevirt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudProviders;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KubeVirtCloudConfigLoaderTest {

  @TempDir Path temp;

  private static final String KUBECONFIG =
      """
      apiVersion: v1
      kind: Config
      clusters:
      - name: infra
        cluster: {server: "https://127.0.0.1:6443"}
      users:
      - name: ccm
        user: {token: abc}
      contexts:
      - name: infra
        context: {cluster: infra, user: ccm, namespace: %s}
      current-context: infra
      """;

  private Path kubeconfig(String namespace) throws Exception {
    Path file = temp.resolve("infra-kubeconfig");
    Files.writeString(file, KUBECONFIG.formatted(namespace));
    return file;
  }

  @Test
  void k1_theProviderIsFoundByItsName() throws Exception {
    Path config = temp.resolve("cloud.yaml");
    Files.writeString(config, "kubeconfig: " + kubeconfig("tenant-a") + "\n");
    assertThat(
            CloudProviders.discover(getClass().getClassLoader())
                .create("kubevirt", Optional.of(config))
                .providerName())
        .isEqualTo("kubevirt");
  }

  @Test
  void k2_aCloudConfigIsRequired() {
    assertThatThrownBy(() -> new KubeVirtCloudProviderFactory().create(Optional.empty()))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("--cloud-config");
    assertThatThrownBy(
            () -> new KubeVirtCloudProviderFactory().create(Optional.of(temp.resolve("missing"))))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("cannot read");
  }

  @Test
  void k5_defaultsFillWhatAPartialBlockLeavesOut() throws Exception {
    KubeVirtSettings settings =
        KubeVirtCloudConfigLoader.parse(
            """
            kubeconfig: %s
            instancesV2: {zoneAndRegionEnabled: false}
            loadBalancer: {creationPollInterval: 0, creationPollTimeout: 60}
            infraLabels: {team: blue}
            """
                .formatted(kubeconfig("tenant-a")),
            "cloud.yaml");
    assertThat(settings.instancesEnabled()).isTrue();
    assertThat(settings.zoneAndRegionEnabled()).isFalse();
    assertThat(settings.loadBalancerEnabled()).isTrue();
    assertThat(settings.creationPollInterval()).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.creationPollTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(settings.selectorless()).isFalse();
    assertThat(settings.infraLabels()).isEqualTo(Map.of("team", "blue"));
    assertThat(settings.tenantFields()).isEqualTo(TenantFieldAllowList.NONE);
    assertThat(settings.kubeconfig()).hasValueSatisfying(k -> assertThat(k).contains("infra"));
  }

  @Test
  void aNumberOrABoolInQuotesIsReadAsItsValueAndAnythingElseNamesTheField() throws Exception {
    KubeVirtSettings settings =
        KubeVirtCloudConfigLoader.parse(
            """
            namespace: a
            loadBalancer: {creationPollTimeout: "60", selectorless: "true"}
            """,
            "cloud.yaml");
    assertThat(settings.creationPollTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(settings.selectorless()).isTrue();
    assertThatThrownBy(
            () ->
                KubeVirtCloudConfigLoader.parse(
                    "namespace: a\nloadBalancer: {creationPollTimeout: 1m}\n", "cloud.yaml"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("creationPollTimeout");
  }

  @Test
  void theAllowListOfTenantFieldsIsReadAndChecked() throws Exception {
    assertThat(
            KubeVirtCloudConfigLoader.parse(
                    """
                    namespace: a
                    loadBalancer:
                      allowedAnnotations: ["metallb.universe.tf/*", example.com/key]
                      allowExternalIPs: true
                      allowLoadBalancerIP: true
                    """,
                    "c")
                .tenantFields())
        .isEqualTo(
            new TenantFieldAllowList(
                List.of("metallb.universe.tf/*", "example.com/key"), true, true));
    assertThatThrownBy(
            () ->
                KubeVirtCloudConfigLoader.parse(
                    "namespace: a\nloadBalancer: {allowedAnnotations: [ok, \"a*b\"]}\n", "c"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("field \"loadBalancer.allowedAnnotations[1]\"");
  }

  @Test
  void k5_unknownKeysAreErrorsNamingThem() {
    assertThatThrownBy(() -> KubeVirtCloudConfigLoader.parse("namspace: tenant-a\n", "cloud.yaml"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("unknown field \"namspace\"");
    assertThatThrownBy(
            () ->
                KubeVirtCloudConfigLoader.parse(
                    "namespace: a\nloadBalancer: {enabled: maybe}\n", "cloud.yaml"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("loadBalancer.enabled");
  }

  @Test
  void k6_theNamespaceIsExplicitOrTheContextsOrDefault() throws Exception {
    Path kubeconfig = kubeconfig("from-context");
    assertThat(
            KubeVirtCloudConfigLoader.parse(
                    "kubeconfig: %s\nnamespace: explicit\n".formatted(kubeconfig), "c")
                .namespace())
        .isEqualTo("explicit");
    assertThat(
            KubeVirtCloudConfigLoader.parse("kubeconfig: %s\n".formatted(kubeconfig), "c")
                .namespace())
        .isEqualTo("from-context");
    Files.writeString(kubeconfig, KUBECONFIG.formatted("\"\""));
    assertThat(
            KubeVirtCloudConfigLoader.parse("kubeconfig: %s\n".formatted(kubeconfig), "c")
                .namespace())
        .isEqualTo("default");
  }

  @Test
  void k6_inClusterWithoutANamespaceIsRefused() throws Exception {
    assertThatThrownBy(() -> KubeVirtCloudConfigLoader.parse("instancesV2: {}\n", "cloud.yaml"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("cloud.yaml: field \"namespace\" is required");
    assertThat(KubeVirtCloudConfigLoader.parse("namespace: tenant-a\n", "c").kubeconfig())
        .isEmpty();
  }

  @Test
  void badValuesNameTheField() {
    assertThatThrownBy(
            () ->
                KubeVirtCloudConfigLoader.parse(
                    "kubeconfig: /nonexistent/kubeconfig\nnamespace: a\n", "cloud.yaml"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("field \"kubeconfig\"");
    assertThatThrownBy(() -> KubeVirtCloudConfigLoader.parse("namespace: Not_A_Name\n", "c"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("field \"namespace\" must be a namespace name");
  }

  @Test
  void k4_enableEpsControllerTurnsTheEndpointSliceControllerOn() throws Exception {
    assertThat(
            KubeVirtCloudConfigLoader.parse(
                    "namespace: a\nloadBalancer: {enableEPSController: true}\n", "c")
                .epsController())
        .isTrue();
    assertThat(KubeVirtCloudConfigLoader.parse("namespace: a\n", "c").epsController()).isFalse();
  }

  @Test
  void k20_k90_facetsFollowTheConfigAndThereAreNoRoutesOrZones() throws Exception {
    KubeVirtCloud cloud =
        KubeVirtCloudProviderFactory.fromYaml(
            """
            kubeconfig: %s
            loadBalancer: {enabled: false}
            instancesV2: {enabled: false}
            """
                .formatted(kubeconfig("a")));
    assertThat(cloud.loadBalancer()).isEmpty();
    assertThat(cloud.instancesV2()).isEmpty();
    assertThat(cloud.routes()).isEmpty();
    assertThat(cloud.zones()).isEmpty();
    assertThat(cloud.hasClusterId()).isTrue();
  }

  @Test
  void theShippedExampleCloudConfigIsValid() throws Exception {
    String example =
        Files.readString(Path.of("deploy", "cloud-config.yaml"))
            .replace("/etc/ccm4j/infra-kubeconfig", kubeconfig("ignored").toString());
    KubeVirtSettings settings = KubeVirtCloudConfigLoader.parse(example, "cloud-config.yaml");
    assertThat(settings.namespace()).isEqualTo("tenant-a");
    assertThat(settings.creationPollInterval()).isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void anInfraLabelWithoutAValueIsAnErrorNamingIt() {
    assertThatThrownBy(
            () -> KubeVirtCloudConfigLoader.parse("namespace: a\ninfraLabels: {team: }\n", "c"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessage("c: field \"infraLabels.team\" has no value; write \"\" for an empty one");
  }

  @Test
  void aRelativeKubeconfigIsInTheWorkingDirectoryAsUpstreamElseBesideTheCloudConfig()
      throws Exception {
    Path config = temp.resolve("cloud.yaml");
    Files.writeString(config, "kubeconfig: %s\n".formatted("infra-kubeconfig"));
    kubeconfig("beside-the-config");
    // Only beside the cloud config (not in the working directory): ccm4j's fallback.
    assertThat(Files.exists(Path.of("infra-kubeconfig"))).isFalse();
    assertThat(KubeVirtCloudConfigLoader.read(config).namespace()).isEqualTo("beside-the-config");

    // In both places: the working directory's, as upstream.
    Path inWorkingDirectory = Path.of("target", "kubeconfig-" + UUID.randomUUID());
    Files.createDirectories(inWorkingDirectory.getParent());
    Files.writeString(inWorkingDirectory, KUBECONFIG.formatted("in-the-working-directory"));
    Path besideConfig = temp.resolve(inWorkingDirectory.toString());
    Files.createDirectories(besideConfig.getParent());
    Files.writeString(besideConfig, KUBECONFIG.formatted("beside-the-config"));
    try {
      Files.writeString(config, "kubeconfig: %s\n".formatted(inWorkingDirectory));
      assertThat(KubeVirtCloudConfigLoader.read(config).namespace())
          .isEqualTo("in-the-working-directory");
    } finally {
      Files.delete(inWorkingDirectory);
    }

    // Neither: the error names both places.
    Files.writeString(config, "kubeconfig: nowhere-kubeconfig\n");
    assertThatThrownBy(() -> KubeVirtCloudConfigLoader.read(config))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("field \"kubeconfig\"")
        .hasMessageContaining(Path.of("nowhere-kubeconfig").toAbsolutePath().toString())
        .hasMessageContaining(temp.resolve("nowhere-kubeconfig").toString())
        .hasMessageEndingWith("no such file");
  }

  @Test
  void theSettingsNeverPrintTheInfrastructureCredentials() throws Exception {
    KubeVirtSettings settings =
        KubeVirtCloudConfigLoader.parse(
            "kubeconfig: %s\n".formatted(kubeconfig("tenant-a")), "cloud.yaml");
    assertThat(settings.kubeconfig()).hasValueSatisfying(k -> assertThat(k).contains("token"));
    assertThat(settings.toString())
        .contains("kubeconfig=(redacted)", "namespace=tenant-a")
        .doesNotContain("token")
        .doesNotContain("127.0.0.1");
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "'not: [yaml'                                                   | not a usable kubeconfig",
        "'apiVersion: v1\nkind: Config\n'                              | has no current-context",
        "'apiVersion: v1\nkind: Config\ncurrent-context: gone\n'       | no context \"gone\"",
        "'apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n' | names no cluster of the file (\"c\")",
        "'apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: [{name: x, context: {cluster: c}}]\nclusters: [{name: c, cluster: {}}]\n' | cluster \"c\" has no server",
        "'apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:6443\"}}]\nusers: [{name: u, user: {tokenFile: /nonexistent/token}}]\n' | user's tokenFile /nonexistent/token cannot be read: no such file",
        "'apiVersion: v1\nkind: Config\ncurrent-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:6443\", certificate-authority: /nonexistent/ca.crt}}]\nusers: [{name: u, user: {token: t}}]\n' | /nonexistent/ca.crt",
      })
  void anUnusableKubeconfigFailsAtStartNamingTheField(String kubeconfig, String problem)
      throws Exception {
    Path file = temp.resolve("bad-kubeconfig");
    Files.writeString(file, kubeconfig.replace("\\n", "\n"));
    assertThatThrownBy(
            () ->
                KubeVirtCloudConfigLoader.parse(
                    "kubeconfig: %s\nnamespace: a\n".formatted(file), "cloud.yaml"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageStartingWith("cloud.yaml: field \"kubeconfig\": ")
        .hasMessageContaining(problem)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void inClusterModeOutsideAPodFailsAtStartNamingTheField() throws Exception {
    Path config = temp.resolve("cloud.yaml");
    Files.writeString(config, "namespace: tenant-a\n");
    // The test JVM does not run in a pod.
    assertThat(System.getenv(KubeVirtCloud.SERVICE_HOST_ENV)).isNull();
    assertThatThrownBy(() -> new KubeVirtCloudProviderFactory().create(Optional.of(config)))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("field \"kubeconfig\" is empty (in-cluster mode)");
  }
}
