package io.ccm4j.provider.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.Routes;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimRoutesTest {

  @TempDir Path dir;

  private static Route wanted(String node, String cidr) {
    return new Route("", node, false, List.of(NodeAddress.internalIp("10.0.0.1")), cidr, false);
  }

  @Test
  void routesAreCreatedListedAndDeletedPerClusterAndCounted() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("");
    Routes routes = cloud.routes().orElseThrow();

    routes.createRoute("k", "uid-1", wanted("n1", "10.244.1.0/24"));
    routes.createRoute("k", "uid-1", wanted("n1", "fd00:0:0:1::/64"));
    routes.createRoute("other", "uid-2", wanted("n2", "10.244.1.0/24"));

    List<Route> listed = routes.listRoutes("k");
    assertThat(listed)
        .extracting(Route::name)
        .containsExactly("k-uid-1-10-244-1-0-24", "k-uid-1-fd00-0-0-1---64");
    assertThat(listed.get(0).targetNode()).isEqualTo("n1");
    assertThat(listed.get(0).enableNodeAddresses()).isFalse();
    assertThat(listed.get(0).targetNodeAddresses()).isEmpty();

    routes.deleteRoute("k", listed.get(0));
    assertThat(cloud.routeTable().routes("k")).hasSize(1);
    assertThat(cloud.routeTable().routes("other")).hasSize(1);
    assertThatThrownBy(() -> routes.deleteRoute("k", listed.get(0)))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("no route named");
    assertThat(cloud.calls())
        .containsEntry("CreateRoute", 3L)
        .containsEntry("ListRoutes", 1L)
        .containsEntry("DeleteRoute", 2L);
  }

  @Test
  void aSecondRouteForTheSameDestinationIsRefused() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("");
    Routes routes = cloud.routes().orElseThrow();
    routes.createRoute("k", "uid-1", wanted("n1", "10.244.1.0/24"));

    assertThatThrownBy(() -> routes.createRoute("k", "uid-2", wanted("n2", "10.244.1.0/24")))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("already exists");
  }

  @Test
  void injectedFailuresBlackholesAndAddressRouting() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("");
    SimRoutes table = cloud.routeTable();
    table.failCalls("CreateRoute", 1);

    assertThatThrownBy(() -> table.createRoute("k", "u", wanted("n", "10.244.1.0/24")))
        .hasMessageContaining("injected failure of CreateRoute");
    table.createRoute("k", "u", wanted("n", "10.244.1.0/24"));

    table.failCalls("ListRoutes", Integer.MAX_VALUE);
    assertThatThrownBy(() -> table.listRoutes("k")).isInstanceOf(CloudException.class);
    assertThatThrownBy(() -> table.listRoutes("k")).isInstanceOf(CloudException.class);
    table.clearFailures();
    assertThat(table.listRoutes("k")).hasSize(1);

    assertThat(table.markBlackhole("k", "10.244.1.0/24")).isTrue();
    assertThat(table.markBlackhole("k", "10.244.2.0/24")).isFalse();
    assertThat(table.routes("k").get(0).blackhole()).isTrue();

    table.setEnableNodeAddresses(true);
    table.createRoute("k", "u2", wanted("m", "10.244.2.0/24"));
    Route byAddress = table.routes("k").get(1);
    assertThat(byAddress.enableNodeAddresses()).isTrue();
    assertThat(byAddress.targetNodeAddresses()).containsExactly(NodeAddress.internalIp("10.0.0.1"));
  }

  @Test
  void routeCallsObeyTheSimsErrorRate() throws Exception {
    SimCloud cloud = SimCloudProviderFactory.fromYaml("errorRate: 1.0");

    assertThatThrownBy(() -> cloud.routes().orElseThrow().listRoutes("k"))
        .hasMessageContaining("injected error in ListRoutes");
    assertThat(cloud.calls()).containsEntry(SimCloud.INJECTED_ERRORS, 1L);
  }

  @Test
  void theAdminEndpointShowsTheRouteTable() throws Exception {
    Path config = dir.resolve("sim.yaml");
    Files.writeString(config, "admin: 127.0.0.1:0");
    SimCloud cloud = (SimCloud) new SimCloudProviderFactory().create(Optional.of(config));
    try {
      cloud.routeTable().createRoute("k", "u", wanted("n1", "10.244.1.0/24"));
      String base = "http://127.0.0.1:" + cloud.adminAddress().orElseThrow().getPort() + "/routes";

      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(base)).build(),
                  HttpResponse.BodyHandlers.ofString());

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body())
          .contains("\"k\":[", "\"targetNode\":\"n1\"", "\"destinationCIDR\":\"10.244.1.0/24\"");
    } finally {
      cloud.close();
    }
  }
}
