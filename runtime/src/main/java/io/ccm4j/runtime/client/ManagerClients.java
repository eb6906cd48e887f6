package io.ccm4j.runtime.client;

import io.ccm4j.runtime.client.protobuf.ProtobufInformerFactory;
import io.ccm4j.runtime.client.protobuf.ProtobufObjects;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The manager's API clients, one per concern as upstream's (each client-go clientset has a rate
 * limiter of its own): the Lease, the shared informers and events, the serving port's token and
 * access reviews, and each controller by its upstream client name. So no concern can queue requests
 * in front of another's: a thousand route condition patches or a flood of reviews never delay a
 * Lease renewal. Each has {@code --kube-api-qps} and {@code --kube-api-burst}, as upstream (the
 * reviews: {@link #REVIEW_QPS}), and a user agent naming its concern ({@code
 * cloud-controller-manager/leader-election}, ...), as upstream's {@code AddUserAgent}, so the API
 * server's audit log and its priority and fairness tell them apart. The controllers' clients pass a
 * {@link Fence}, closed when this instance may no longer lead. The clients {@link #create} makes
 * share one {@link SharedTransport}. The shared informers come from {@link #informers}, in the wire
 * format of {@code --kube-api-content-type}.
 */
public final class ManagerClients implements AutoCloseable {

  /** The rate of the serving port's token and access reviews. */
  public static final double REVIEW_QPS = 10;

  public static final int REVIEW_BURST = 20;

  private final KubernetesClient manager;
  private final KubernetesClient leaderElection;
  private final KubernetesClient reviews;
  private final Function<String, KubernetesClient> controllers;
  private final Map<String, KubernetesClient> controllerClients = new LinkedHashMap<>();
  private final List<AutoCloseable> owned = new ArrayList<>();
  private boolean closesControllerClients;
  private SharedTransport transport;
  private final Fence fence;
  private final RestClientMetrics metrics;
  private KubeApiContentType contentType = KubeApiContentType.DEFAULT;

  private ManagerClients(
      KubernetesClient manager,
      KubernetesClient leaderElection,
      KubernetesClient reviews,
      Function<String, KubernetesClient> controllers,
      Fence fence,
      RestClientMetrics metrics) {
    this.manager = manager;
    this.leaderElection = leaderElection;
    this.reviews = reviews;
    this.controllers = controllers;
    this.fence = fence;
    this.metrics = metrics;
  }

  /**
   * Clients for {@code ccm4j run}, closed with this object.
   *
   * @param serviceAccountCredentials each controller as its ServiceAccount ({@code
   *     --use-service-account-credentials}) rather than with the manager's credentials
   */
  public static ManagerClients create(
      Config config, double qps, int burst, boolean serviceAccountCredentials) {
    return create(config, qps, burst, serviceAccountCredentials, KubeApiContentType.DEFAULT);
  }

  /**
   * Clients for {@code ccm4j run}, closed with this object, whose shared informers speak {@code
   * contentType} where they can ({@link #informers}).
   */
  public static ManagerClients create(
      Config config,
      double qps,
      int burst,
      boolean serviceAccountCredentials,
      KubeApiContentType contentType) {
    SharedTransport transport = new SharedTransport();
    RestClientMetrics metrics = new RestClientMetrics();
    KubernetesClient manager =
        concern(config, "shared-informers", qps, burst, null, transport, metrics);
    KubernetesClient leaderElection =
        concern(config, "leader-election", qps, burst, null, transport, metrics);
    KubernetesClient reviews =
        concern(config, "delegated-auth", REVIEW_QPS, REVIEW_BURST, null, transport, metrics);
    ManagerClients clients;
    Fence fence = new Fence();
    if (serviceAccountCredentials) {
      ServiceAccountClients accounts =
          new ServiceAccountClients(manager, qps, burst, fence, transport, metrics);
      clients =
          new ManagerClients(
              manager, leaderElection, reviews, accounts::forController, fence, metrics);
      clients.owned.add(accounts);
    } else {
      clients =
          new ManagerClients(
              manager,
              leaderElection,
              reviews,
              name -> concern(config, name, qps, burst, fence, transport, metrics),
              fence,
              metrics);
      clients.closesControllerClients = true;
    }
    // Closed in this order, the transport after every client on it (the controllers' go first).
    clients.owned.addAll(List.of(manager, leaderElection, reviews));
    clients.transport = transport;
    clients.contentType = contentType;
    if (contentType == KubeApiContentType.PROTOBUF) {
      ProtobufObjects.loadInBackground();
    }
    return clients;
  }

  /**
   * One client for every concern, not closed here: for tests and the lab, which run managers in
   * their own process.
   */
  public static ManagerClients sharing(KubernetesClient client) {
    return new ManagerClients(
        client, client, client, name -> client, new Fence(), new RestClientMetrics());
  }

  /**
   * One client for the manager's own concerns, and the given ones for the controllers, neither
   * closed here.
   */
  public static ManagerClients sharing(
      KubernetesClient client, Function<String, KubernetesClient> controllers) {
    return new ManagerClients(
        client, client, client, controllers, new Fence(), new RestClientMetrics());
  }

  /**
   * A client of its own for one concern, behind the fence when one is given; the configuration is
   * copied, not changed.
   */
  private static KubernetesClient concern(
      Config config,
      String concern,
      double qps,
      int burst,
      Fence fence,
      SharedTransport transport,
      RestClientMetrics metrics) {
    return KubeClients.create(
        new ConfigBuilder(config).build(),
        KubeClients.USER_AGENT + "/" + concern,
        qps,
        burst,
        fence,
        transport,
        metrics);
  }

  /**
   * From now on no controller's request reaches the API server (the Lease is lost, or about to be
   * released). The shared informers, the events and the Lease's own client are not fenced. Without
   * effect on shared clients ({@link #sharing}), which belong to the caller.
   */
  public void fenceControllers() {
    fence.close();
  }

  /**
   * client-go's {@code rest_client_*} metrics of the clients {@link #create} makes, counted once
   * bound to a registry; shared clients ({@link #sharing}) are the caller's and not counted.
   */
  public RestClientMetrics restClientMetrics() {
    return metrics;
  }

  /** The wire format of {@code --kube-api-content-type}. */
  public KubeApiContentType contentType() {
    return contentType;
  }

  /** The shared informers' and the event recorders' client. */
  public KubernetesClient manager() {
    return manager;
  }

  /**
   * A new shared informer factory on the manager's client, whose Node informer lists and watches in
   * the configured wire format ({@link ProtobufInformerFactory}).
   */
  public SharedInformerFactory informers() {
    return ProtobufInformerFactory.of(manager, contentType);
  }

  /** The Lease's. */
  public KubernetesClient leaderElection() {
    return leaderElection;
  }

  /** The serving port's TokenReviews and SubjectAccessReviews. */
  public KubernetesClient reviews() {
    return reviews;
  }

  /**
   * The client a controller writes with, by its upstream client name ({@code node-controller},
   * ...), made on first use. With ServiceAccount credentials this may throw a {@code
   * KubernetesClientException} when the account cannot be read or created.
   */
  public synchronized KubernetesClient forController(String clientName) {
    KubernetesClient existing = controllerClients.get(clientName);
    if (existing != null) {
      return existing;
    }
    KubernetesClient client = controllers.apply(clientName);
    controllerClients.put(clientName, client);
    return client;
  }

  /**
   * A client of its own for a part of a controller that upstream runs as a controller of its own on
   * the same credentials ({@code taint-eviction-controller}'s {@code
   * NewClient("node-controller")}): the identity of {@link #forController(String)
   * forController(clientName)}, with a rate limit of its own, and {@code <clientName>/<part>} as
   * its user agent's concern ({@link #sharing(KubernetesClient)} gives its one client).
   */
  public KubernetesClient forController(String clientName, String part) {
    return forController(clientName + "/" + part);
  }

  @Override
  public synchronized void close() {
    if (closesControllerClients) {
      controllerClients.values().forEach(KubernetesClient::close);
    }
    controllerClients.clear();
    for (AutoCloseable closeable : owned) {
      try {
        closeable.close();
      } catch (Exception e) {
        // closing: nothing left to do about it
      }
    }
    owned.clear();
    if (transport != null) {
      transport.close();
      transport = null;
    }
  }
}
