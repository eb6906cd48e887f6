package io.ccm4j.provider.sim;

import static org.assertj.core.api.Assertions.assertThat;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.NodeAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimAdminServerTest {

  @TempDir Path dir;

  @Test
  void theAdminEndpointChangesInstancesWhileTheCloudRuns() throws Exception {
    Path config = dir.resolve("sim.yaml");
    Files.writeString(config, "admin: 127.0.0.1:0\ngenerate: {count: 2, prefix: n-}");
    SimCloud cloud = (SimCloud) new SimCloudProviderFactory().create(Optional.of(config));
    try {
      String base =
          "http://"
              + cloud.adminAddress().orElseThrow().getHostString()
              + ":"
              + cloud.adminAddress().get().getPort();
      HttpClient http = HttpClient.newHttpClient();

      assertThat(post(http, base + "/instances/n-0/shutdown").statusCode()).isEqualTo(200);
      assertThat(cloud.instance("n-0").orElseThrow().state()).isEqualTo(SimInstance.State.SHUTDOWN);
      assertThat(post(http, base + "/instances/n-0/start").statusCode()).isEqualTo(200);
      assertThat(cloud.instance("n-0").orElseThrow().state()).isEqualTo(SimInstance.State.RUNNING);
      assertThat(post(http, base + "/instances/n-1/delete").statusCode()).isEqualTo(200);
      assertThat(cloud.instance("n-1")).isEmpty();
      assertThat(post(http, base + "/instances/n-9/delete").statusCode()).isEqualTo(404);
      assertThat(post(http, base + "/instances/n-0/reboot").statusCode()).isEqualTo(400);
      assertThat(post(http, base + "/error-rate?value=0.5").statusCode()).isEqualTo(200);
      assertThat(post(http, base + "/instances/n-0/internal-ip?value=10.9.9.9").statusCode())
          .isEqualTo(200);
      assertThat(cloud.instance("n-0").orElseThrow().firstAddress(NodeAddress.Type.InternalIP))
          .isEqualTo("10.9.9.9");
      assertThat(post(http, base + "/instances/n-0/internal-ip?value=nine").statusCode())
          .isEqualTo(400);

      HttpResponse<String> instances =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/instances")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(instances.body())
          .contains("\"name\":\"n-0\"", "\"state\":\"running\"")
          .doesNotContain("n-1");
      HttpResponse<String> calls =
          http.send(
              HttpRequest.newBuilder(URI.create(base + "/calls")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(calls.statusCode()).isEqualTo(200);
    } finally {
      cloud.close();
    }
  }

  @Test
  void theAdminEndpointListsLoadBalancers() throws Exception {
    Path config = dir.resolve("sim.yaml");
    Files.writeString(config, "admin: 127.0.0.1:0\nloadBalancers: {ingressPool: 127.0.202.0/24}");
    SimCloud cloud = (SimCloud) new SimCloudProviderFactory().create(Optional.of(config));
    try {
      cloud
          .loadBalancers()
          .ensureLoadBalancer(
              "kubernetes",
              new io.fabric8.kubernetes.api.model.ServiceBuilder()
                  .withNewMetadata()
                  .withNamespace("ns")
                  .withName("web")
                  .withUid("0d2c1a5e-0000-4000-8000-000000000001")
                  .endMetadata()
                  .withNewSpec()
                  .addNewPort()
                  .withPort(80)
                  .endPort()
                  .endSpec()
                  .build(),
              java.util.List.of());
      HttpResponse<String> list =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:"
                                  + cloud.adminAddress().orElseThrow().getPort()
                                  + "/load-balancers"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(list.statusCode()).isEqualTo(200);
      assertThat(list.body())
          .contains("\"service\":\"ns/web\"", "\"ip\":\"127.0.202.1\"", "\"TCP/80\"");
    } finally {
      cloud.close();
    }
  }

  @Test
  void theAdminEndpointListensOnLoopbackOnly() throws Exception {
    Path config = dir.resolve("sim.yaml");
    Files.writeString(config, "admin: 192.0.2.1:0");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new SimCloudProviderFactory().create(Optional.of(config)))
        .isInstanceOf(CloudConfigException.class)
        .hasMessageContaining("field \"admin\"")
        .hasMessageContaining("loopback only");
  }

  private static HttpResponse<String> post(HttpClient http, String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
