package io.ccm4j.provider.sim;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.ccm4j.cloudprovider.Route;
import io.ccm4j.cloudprovider.net.SocketUrls;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sim cloud's admin endpoint, on loopback only:
 *
 * <ul>
 *   <li>{@code GET /instances}: every instance with its state;
 *   <li>{@code POST /instances/<name>/delete}, {@code .../shutdown}, {@code .../start};
 *   <li>{@code POST /instances/<name>/internal-ip?value=10.9.9.9}: the instance's addresses become
 *       that one InternalIP (an address changed in the cloud);
 *   <li>{@code GET /calls}: calls so far by method;
 *   <li>{@code GET /routes}: the route table, by cluster name;
 *   <li>{@code GET /load-balancers}: every load balancer with its ingress IP, ports and backends;
 *   <li>{@code POST /error-rate?value=0.3}: change the fraction of failing calls.
 * </ul>
 */
final class SimAdminServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SimAdminServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final ExecutorService executor;
  private final SimCloud cloud;

  private SimAdminServer(HttpServer server, ExecutorService executor, SimCloud cloud) {
    this.server = server;
    this.executor = executor;
    this.cloud = cloud;
  }

  static SimAdminServer start(SimCloud cloud, String listen, String source) throws IOException {
    int colon = listen.lastIndexOf(':');
    if (colon < 0) {
      throw new IOException("expected host:port, got " + listen);
    }
    String host = listen.substring(0, colon).replace("[", "").replace("]", "");
    int port;
    try {
      port = Integer.parseInt(listen.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IOException("port is not a number in " + listen);
    }
    InetAddress address = InetAddress.getByName(host);
    if (!address.isLoopbackAddress()) {
      throw new IOException("the admin endpoint listens on loopback only, not " + host);
    }
    HttpServer server = HttpServer.create(new InetSocketAddress(address, port), 0);
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().daemon().name("sim-admin").unstarted(r));
    SimAdminServer admin = new SimAdminServer(server, executor, cloud);
    server.createContext("/", admin::handle);
    server.setExecutor(executor);
    server.start();
    log.info(
        "sim cloud admin endpoint on {} ({})", SocketUrls.url("http", server.getAddress()), source);
    return admin;
  }

  InetSocketAddress address() {
    return server.getAddress();
  }

  private void handle(HttpExchange exchange) throws IOException {
    String method = exchange.getRequestMethod();
    String[] path = exchange.getRequestURI().getPath().replaceAll("^/+|/+$", "").split("/");
    try {
      if (method.equals("GET") && path.length == 1 && path[0].equals("instances")) {
        List<Map<String, Object>> list =
            cloud.instances().stream()
                .sorted(Comparator.comparing(SimInstance::name))
                .map(SimAdminServer::describe)
                .toList();
        respond(exchange, 200, JSON.writeValueAsString(list));
      } else if (method.equals("GET") && path.length == 1 && path[0].equals("routes")) {
        Map<String, List<Map<String, Object>>> routes = new LinkedHashMap<>();
        cloud
            .routeTable()
            .allRoutes()
            .forEach(
                (cluster, list) ->
                    routes.put(cluster, list.stream().map(SimAdminServer::describe).toList()));
        respond(exchange, 200, JSON.writeValueAsString(routes));
      } else if (method.equals("GET") && path.length == 1 && path[0].equals("load-balancers")) {
        respond(exchange, 200, JSON.writeValueAsString(cloud.loadBalancers().loadBalancers()));
      } else if (method.equals("GET") && path.length == 1 && path[0].equals("calls")) {
        respond(exchange, 200, JSON.writeValueAsString(cloud.calls()));
      } else if (method.equals("POST") && path.length == 3 && path[0].equals("instances")) {
        boolean found =
            switch (path[2]) {
              case "delete" -> cloud.delete(path[1]);
              case "shutdown" -> cloud.shutdown(path[1]);
              case "start" -> cloud.start(path[1]);
              case "internal-ip" -> {
                String query = exchange.getRequestURI().getQuery();
                yield cloud.setInternalIp(
                    path[1], query == null ? "" : query.replaceFirst("^value=", ""));
              }
              default ->
                  throw new IllegalArgumentException(
                      "unknown action " + path[2] + " (delete, shutdown, start, internal-ip)");
            };
        respond(
            exchange,
            found ? 200 : 404,
            found ? "{}" : "{\"error\":\"no instance " + path[1] + "\"}");
      } else if (method.equals("POST") && path.length == 1 && path[0].equals("error-rate")) {
        String query = exchange.getRequestURI().getQuery();
        cloud.setErrorRate(
            Double.parseDouble(query == null ? "" : query.replaceFirst("^value=", "")));
        respond(exchange, 200, "{}");
      } else {
        respond(exchange, 404, "{\"error\":\"no such endpoint\"}");
      }
    } catch (IllegalArgumentException e) {
      respond(
          exchange, 400, JSON.writeValueAsString(Map.of("error", String.valueOf(e.getMessage()))));
    }
  }

  private static Map<String, Object> describe(SimInstance instance) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("name", instance.name());
    map.put("providerID", instance.providerId());
    map.put("state", instance.state().name().toLowerCase(java.util.Locale.ROOT));
    map.put("region", instance.region());
    map.put("zone", instance.zone());
    map.put("instanceType", instance.instanceType());
    map.put(
        "addresses", instance.addresses().stream().map(a -> a.type() + "=" + a.address()).toList());
    return map;
  }

  private static Map<String, Object> describe(Route route) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("name", route.name());
    map.put("targetNode", route.targetNode());
    map.put("destinationCIDR", route.destinationCidr());
    map.put("blackhole", route.blackhole());
    return map;
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
