package io.ccm4j.provider.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.NodeAddress;
import io.ccm4j.cloudprovider.Route;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  /**
   * The route controller creates one route per pod CIDR, each with the node's UID as name hint: a
   * dual-stack node's IPv4 and IPv6 routes must both be made, and each deleted on its own.
   */
  @Test
  void aDualStackNodeGetsARoutePerFamilyUnderOneNameHint(@TempDir Path dir) throws Exception {
    for (LocalRoutes routes : List.of(new LocalRoutes(), new LocalRoutes(dir.resolve("r.json")))) {
      routes.createRoute(
          "c1", "uid-1", new Route("", "n1", false, List.of(), "10.244.1.0/24", false));
      routes.createRoute(
          "c1", "uid-1", new Route("", "n1", false, List.of(), "fd00:10:0:1::/64", false));
      // a retry of a route that exists is no error
      routes.createRoute(
          "c1", "uid-1", new Route("", "n1", false, List.of(), "fd00:10:0:1::/64", false));

      assertThat(routes.listRoutes("c1"))
          .extracting(Route::name, Route::targetNode, Route::destinationCidr)
          .containsExactly(
              tuple("c1-uid-1", "n1", "10.244.1.0/24"),
              tuple("c1-uid-1-ipv6", "n1", "fd00:10:0:1::/64"));
      // a second IPv6 pod CIDR under the same hint is still refused
      assertThatThrownBy(
              () ->
                  routes.createRoute(
                      "c1",
                      "uid-1",
                      new Route("", "n1", false, List.of(), "fd00:10:0:2::/64", false)))
          .isInstanceOf(CloudException.class)
          .hasMessageContaining("already exists for fd00:10:0:1::/64");

      Route ipv6 = routes.listRoutes("c1").get(1);
      routes.deleteRoute("c1", ipv6);
      assertThat(routes.listRoutes("c1"))
          .extracting(Route::destinationCidr)
          .containsExactly("10.244.1.0/24");
    }
  }

  /**
   * A table in a file is one table for every manager that shares the file: a route one replica made
   * is listed by another and by a new one (a restart), and a reader outside sees it.
   */
  @Test
  void aTableInAFileIsSharedAndOutlivesItsManager(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("routes.json");
    LocalRoutes leader = new LocalRoutes(file);
    LocalRoutes standby = new LocalRoutes(file);
    assertThat(standby.listRoutes("c1")).isEmpty();
    assertThat(LocalRoutes.read(file)).isEmpty();

    leader.createRoute(
        "c1",
        "uid-1",
        new Route(
            "",
            "n1",
            false,
            List.of(NodeAddress.internalIp("10.77.0.20")),
            "10.244.1.0/24",
            false));
    leader.createRoute(
        "c1", "uid-2", new Route("", "n2", false, List.of(), "10.244.2.0/24", false));

    assertThat(standby.listRoutes("c1"))
        .extracting(Route::name, Route::destinationCidr)
        .containsExactly(tuple("c1-uid-1", "10.244.1.0/24"), tuple("c1-uid-2", "10.244.2.0/24"));
    assertThat(new LocalRoutes(file).listRoutes("c1").getFirst().targetNodeAddresses())
        .containsExactly(NodeAddress.internalIp("10.77.0.20"));
    standby.deleteRoute("c1", standby.listRoutes("c1").getFirst());
    assertThat(LocalRoutes.read(file))
        .extracting(r -> r.route().targetNode())
        .containsExactly("n2");
    assertThatThrownBy(
            () ->
                leader.createRoute(
                    "c1", "uid-2", new Route("", "n2", false, List.of(), "10.244.9.0/24", false)))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("already exists for 10.244.2.0/24");
  }

  @Test
  void aDamagedTableFileIsAnErrorNamingIt(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("routes.json");
    Files.writeString(file, "{not a table");
    LocalRoutes routes = new LocalRoutes(file);

    assertThatThrownBy(() -> routes.listRoutes("c1"))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("route table " + file);
    assertThatThrownBy(
            () ->
                routes.createRoute(
                    "c1", "uid-1", new Route("", "n1", false, List.of(), "10.244.1.0/24", false)))
        .isInstanceOf(CloudException.class)
        .hasMessageContaining("route table " + file);
    // the damaged file is left for its owner to read
    assertThat(Files.readString(file)).isEqualTo("{not a table");
  }

  /** A table whose directory went away says so, not only its path. */
  @Test
  void aTableWhoseDirectoryIsGoneSaysSo(@TempDir Path dir) {
    Path file = dir.resolve("gone").resolve("routes.json");
    LocalRoutes routes = new LocalRoutes(file);

    assertThatThrownBy(
            () ->
                routes.createRoute(
                    "c1", "uid-1", new Route("", "n1", false, List.of(), "10.244.1.0/24", false)))
        .isInstanceOf(CloudException.class)
        .hasMessageStartingWith("route table " + file + ": no such file or directory: ");
    assertThat(LocalRoutes.why(new java.nio.file.AccessDeniedException("/x/routes.json.lock")))
        .isEqualTo("permission denied: /x/routes.json.lock");
  }

  /** Tables of one file in one JVM (two managers of a lab's process) take turns, losing nothing. */
  @Test
  void tablesOfOneFileChangeItAtOnceWithoutLosingARoute(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("routes.json");
    List<LocalRoutes> tables = List.of(new LocalRoutes(file), new LocalRoutes(file));
    try (var threads = java.util.concurrent.Executors.newFixedThreadPool(8)) {
      List<java.util.concurrent.Future<?>> made = new java.util.ArrayList<>();
      for (int i = 0; i < 64; i++) {
        int n = i;
        made.add(
            threads.submit(
                () -> {
                  tables
                      .get(n % 2)
                      .createRoute(
                          "c1",
                          "uid-" + n,
                          new Route("", "n" + n, false, List.of(), "10.244." + n + ".0/24", false));
                  return null;
                }));
      }
      for (var f : made) {
        f.get();
      }
    }

    assertThat(LocalRoutes.read(file)).hasSize(64);
  }
}
