package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.Route;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalRoutesTest {

  @Test
  void routesAreKeptPerClusterAndVisibleInTheSnapshot() throws Exception {
    LocalRoutes routes = new LocalRoutes();
    routes.createRoute(
        "c1", "uid-1", new Route("", "n1", false, List.of(), "10.244.1.0/24", false));
    routes.createRoute(
        "c1", "uid-2", new Route("", "n2", false, List.of(), "10.244.2.0/24", false));
    routes.createRoute(
        "c2", "uid-3", new Route("", "n3", false, List.of(), "10.245.0.0/24", false));

    assertThat(routes.listRoutes("c1"))
        .extracting(Route::name, Route::targetNode, Route::destinationCidr)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("c1-uid-1", "n1", "10.244.1.0/24"),
            org.assertj.core.groups.Tuple.tuple("c1-uid-2", "n2", "10.244.2.0/24"));
    assertThat(routes.snapshot()).hasSize(3);

    routes.deleteRoute("c1", routes.listRoutes("c1").get(0));
    routes.deleteRoute("c2", new Route("", "n3", false, List.of(), "10.245.0.0/24", false));
    assertThat(routes.snapshot()).extracting(r -> r.route().name()).containsExactly("c1-uid-2");
    assertThatThrownBy(() -> routes.snapshot().add(null))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(
            () ->
                routes.createRoute(
                    "c1", "uid-9", new Route("", "n9", false, List.of(), "10.300.0.0/24", false)))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("n9");
  }
}
