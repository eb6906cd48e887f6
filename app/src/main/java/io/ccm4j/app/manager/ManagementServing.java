package io.ccm4j.app.manager;

import io.ccm4j.cloudprovider.net.SocketUrls;
import io.ccm4j.runtime.client.KubeClients;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.serving.DelegatedAccess;
import io.ccm4j.runtime.serving.ManagementServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The manager's HTTPS port for health and metrics, with the clients of its token and access reviews
 * (closed with it).
 */
final class ManagementServing implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(CloudControllerManager.class);

  private final ManagementServer server;
  private final List<KubernetesClient> reviewClients;

  private ManagementServing(ManagementServer server, List<KubernetesClient> reviewClients) {
    this.server = server;
    this.reviewClients = reviewClients;
  }

  /** Serves on {@code settings.servingAddress()}, which must be present. */
  static ManagementServing open(
      CloudControllerManager.Settings settings,
      HealthChecks health,
      PrometheusMeterRegistry metrics,
      ManagerClients clients) {
    InetSocketAddress address = settings.servingAddress().orElseThrow();
    List<KubernetesClient> own = new ArrayList<>();
    try {
      ManagementServer server =
          new ManagementServer(
              address,
              settings.servingKeys(),
              health,
              metrics,
              new DelegatedAccess(
                  reviewClient(clients, settings.servingAccess().authentication(), own),
                  reviewClient(clients, settings.servingAccess().authorization(), own),
                  settings.servingAccess().alwaysAllowPaths(),
                  metrics),
              settings.servingAccess().clientCas());
      log.info("serving health and metrics on {}", SocketUrls.url("https", server.address()));
      return new ManagementServing(server, own);
    } catch (IOException e) {
      own.forEach(KubernetesClient::close);
      throw new UncheckedIOException(
          "cannot serve on %s: %s".formatted(address, e.getMessage()), e);
    }
  }

  /** The reviews' own client, or one for the given kubeconfig (added to {@code own}). */
  private static KubernetesClient reviewClient(
      ManagerClients clients, Optional<Config> config, List<KubernetesClient> own) {
    if (config.isEmpty()) {
      return clients.reviews();
    }
    KubernetesClient client =
        KubeClients.create(
            config.get(),
            KubeClients.USER_AGENT,
            ManagerClients.REVIEW_QPS,
            ManagerClients.REVIEW_BURST,
            null,
            null,
            clients.restClientMetrics());
    own.add(client);
    return client;
  }

  /** The address served, with the port chosen when 0 was asked for. */
  InetSocketAddress address() {
    return server.address();
  }

  @Override
  public void close() {
    server.close();
    reviewClients.forEach(KubernetesClient::close);
  }
}
