package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudProviders;
import io.ccm4j.cloudprovider.net.Cidr;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LocalCloudConfigTest {

  @Test
  void noConfigMeansTheDefaults() throws Exception {
    LocalCloudSettings settings = LocalCloudConfigLoader.parse("", "x");
    assertThat(settings).isEqualTo(LocalCloudSettings.defaults());
    assertThat(settings.addressPoolText()).isEqualTo("127.0.100.0/24");
    assertThat(settings.kubeProxyHealthPort()).isEqualTo(10256);
  }

  @Test
  void everyFieldIsRead() throws Exception {
    LocalCloudSettings settings =
        LocalCloudConfigLoader.parse(
            """
            addressPool: 127.0.200.0/28
            balancing: least-connections
            connectTimeout: 250ms
            drainTimeout: 1m30s
            udpIdleTimeout: 5s
            healthCheck:
              interval: 500ms
              timeout: 200ms
              healthyThreshold: 2
              unhealthyThreshold: 3
              kubeProxyPort: 10257
            backendNetworks: [10.77.0.0/24]
            """,
            "x");
    assertThat(settings.addressPoolText()).isEqualTo("127.0.200.0/28");
    assertThat(settings.balancing()).isEqualTo(LocalCloudSettings.Balancing.LEAST_CONNECTIONS);
    assertThat(settings.connectTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(settings.drainTimeout()).isEqualTo(Duration.ofSeconds(90));
    assertThat(settings.udpIdleTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.healthCheckInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.healthCheckTimeout()).isEqualTo(Duration.ofMillis(200));
    assertThat(settings.healthyThreshold()).isEqualTo(2);
    assertThat(settings.unhealthyThreshold()).isEqualTo(3);
    assertThat(settings.kubeProxyHealthPort()).isEqualTo(10257);
    assertThat(settings.backendNetworks()).containsExactly(Cidr.parse("10.77.0.0/24"));
    assertThat(settings.routeTable()).isEmpty();
  }

  @Test
  void theRouteTableIsAFileInADirectoryThatExists(@TempDir Path dir) throws Exception {
    LocalCloudSettings settings =
        LocalCloudConfigLoader.parse("routeTable: " + dir.resolve("routes.json") + "\n", "x");

    assertThat(settings.routeTable()).contains(dir.resolve("routes.json"));
  }

  @ParameterizedTest(name = "{0} names {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "addressPool: 10.0.0.0/24                 | addressPool",
        "addressPool: 127.0.0.0/33                | addressPool",
        "addressPool: 127.0.0.1                   | addressPool",
        "addressPool: 127.0.0100.0/24             | addressPool",
        "addressPool: '::1/128'                   | addressPool",
        "balancing: random                        | balancing",
        "drainTimeout: soon                       | drainTimeout",
        "connectTimeout: 0                        | connectTimeout",
        "udpIdleTimeout: 10                       | udpIdleTimeout",
        "udpMaxSessions: 0                        | udpMaxSessions",
        "healthCheck: {interval: -1s}             | healthCheck.interval",
        "healthCheck: {timeout: 0}                | healthCheck.timeout",
        "healthCheck: {timeout: 600h}             | healthCheck.timeout",
        "drainTimeout: 9999999999h9999999999h     | drainTimeout",
        "healthCheck: {healthyThreshold: 0}       | healthCheck.healthyThreshold",
        "healthCheck: {unhealthyThreshold: -2}    | healthCheck.unhealthyThreshold",
        "healthCheck: {kubeProxyPort: 70000}      | healthCheck.kubeProxyPort",
        "healthCheck: {intervall: 1s}             | healthCheck.intervall",
        "adressPool: 127.0.0.0/24                 | adressPool",
        // backends on this machine only: private networks of its other network namespaces
        "backendNetworks: [8.8.8.0/24]            | backendNetworks",
        "backendNetworks: [10.0.0.0/7]            | backendNetworks",
        "backendNetworks: ['fd00::/64']           | backendNetworks",
        "backendNetworks: [10.77.0.0/33]          | backendNetworks",
        // the route table's file: absolute, in a directory that exists
        "routeTable: routes.json                  | routeTable",
        "routeTable: /no/such/directory/r.json    | routeTable",
        "routeTable: /tmp                         | routeTable",
      })
  void invalidFieldsAreNamed(String yaml, String field) {
    assertThatThrownBy(() -> LocalCloudConfigLoader.parse(yaml, "local.yaml"))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("local.yaml")
        .hasMessageContaining("\"" + field + "\"");
  }

  @Test
  void theFactoryIsFoundByNameAndReadsTheFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("local.yaml");
    Files.writeString(file, "addressPool: 127.0.201.0/24\n");
    CloudProviders providers = CloudProviders.discover(getClass().getClassLoader());
    assertThat(providers.names()).contains("local");
    try (var cloud = (LocalCloud) providers.create("local", Optional.of(file))) {
      assertThat(cloud.providerName()).isEqualTo("local");
      assertThat(cloud.settings().addressPoolText()).isEqualTo("127.0.201.0/24");
      assertThat(cloud.instancesV2()).isPresent();
      assertThat(cloud.loadBalancer()).isPresent();
      assertThat(cloud.routes()).isPresent();
    }
    Files.writeString(file, "balancing: [a]\n");
    assertThatThrownBy(() -> providers.create("local", Optional.of(file)))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("balancing");
  }
}
