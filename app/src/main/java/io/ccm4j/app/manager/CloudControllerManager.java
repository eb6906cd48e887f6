package io.ccm4j.app.manager;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerFactory;
import io.ccm4j.controllers.ControllerNames;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.runtime.controller.Controller;
import io.ccm4j.runtime.events.KubernetesEventRecorder;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.runtime.serving.ManagementServer;
import io.ccm4j.runtime.serving.ServingKeys;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cloud-controller-manager: serves health and metrics, campaigns for the leader Lease, and
 * while leading runs the enabled controllers on shared informers (A4, A5, A7).
 *
 * <p>Losing the Lease stops the controllers and exits with code 1, as upstream does; {@link
 * #close()} stops them and releases the Lease, which upstream does not (kubernetes#119905).
 */
public final class CloudControllerManager implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(CloudControllerManager.class);
  private static final String MANAGER = "cloud-controller-manager";

  /** Everything the manager runs with, validated. */
  public record Settings(
      CloudProvider cloud,
      String clusterName,
      ControllerSelection selection,
      ControllerSettings controllers,
      Optional<LeaderElection.Settings> leaderElection,
      Optional<InetSocketAddress> servingAddress,
      ServingKeys servingKeys) {}

  private final KubernetesClient client;
  private final Settings settings;
  private final Map<String, ControllerFactory> factories;
  private final IntConsumer exit;
  private final PrometheusMeterRegistry metrics =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final HealthChecks health = new HealthChecks();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Thread starter;
  private final Map<String, KubernetesEventRecorder> recorders = new ConcurrentHashMap<>();
  private final List<Controller> running = new ArrayList<>();
  private final Map<String, Boolean> managed = new ConcurrentHashMap<>();
  private SharedInformerFactory informers;
  private ManagementServer server;
  private LeaderElection election;

  /**
   * @param exit called with 1 when leadership is lost; {@code System::exit} in production
   */
  public CloudControllerManager(
      KubernetesClient client,
      Settings settings,
      Map<String, ControllerFactory> factories,
      IntConsumer exit) {
    this.client = client;
    this.settings = settings;
    this.factories = factories;
    this.exit = exit;
    new JvmMemoryMetrics().bindTo(metrics);
    new JvmThreadMetrics().bindTo(metrics);
    new ProcessorMetrics().bindTo(metrics);
  }

  /**
   * Starts serving and either campaigns for the Lease or, without leader election, starts the
   * controllers.
   */
  public void start() {
    if (settings.servingAddress().isPresent()) {
      try {
        server =
            new ManagementServer(
                settings.servingAddress().get(), settings.servingKeys(), health, metrics);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot serve on %s: %s".formatted(settings.servingAddress().get(), e.getMessage()), e);
      }
      log.info("serving health and metrics on https://{}", server.address());
    }
    if (settings.leaderElection().isEmpty()) {
      startControllers();
      return;
    }
    LeaderElection.Settings le = settings.leaderElection().get();
    election =
        new LeaderElection(
            client,
            le,
            new LeaderElection.Listener() {
              @Override
              public void startedLeading() {
                // Not on the elector's thread: it renews the Lease only once this returns, and
                // starting (cloud initialisation, informer caches) may take longer than the Lease
                // lasts (upstream runs OnStartedLeading in its own goroutine too).
                starter =
                    Thread.ofPlatform()
                        .name("ccm4j-start-controllers")
                        .start(CloudControllerManager.this::startControllers);
              }

              @Override
              public void lostLeadership() {
                interruptStarter();
                stopControllers();
                flushEvents();
                exitLater(1);
              }
            });
    health.add("leaderElection", election::health);
    Gauge.builder("leader_election_master_status", election, e -> e.isLeader() ? 1 : 0)
        .tag("name", le.name())
        .description("1 while this instance holds the leader Lease")
        .register(metrics);
    election.start();
  }

  /**
   * Exits from a thread of its own: exiting runs close() (the shutdown hook), which takes this
   * manager's lock and waits for the elector's thread, so neither may be the one exiting.
   */
  private void exitLater(int code) {
    Thread.ofPlatform().name("ccm4j-exit").start(() -> exit.accept(code));
  }

  private void interruptStarter() {
    Thread thread = starter;
    if (thread != null && thread != Thread.currentThread()) {
      thread.interrupt(); // ends a wait for the informer caches
    }
  }

  private synchronized void startControllers() {
    if (closed.get()) {
      return;
    }
    try {
      settings.cloud().initialize(new ProviderContext(settings.clusterName()));
    } catch (CloudException e) {
      log.error(
          "cannot initialise cloud provider {}: {}",
          settings.cloud().providerName(),
          e.getMessage());
      exitLater(1);
      return;
    }
    informers = client.informers();
    ControllerContext context =
        new ControllerContext(
            client,
            informers,
            settings.cloud(),
            settings.clusterName(),
            metrics,
            component -> recorders.computeIfAbsent(component, this::newRecorder),
            settings.controllers());
    for (String name : settings.selection().enabled()) {
      ControllerFactory factory = factories.get(name);
      if (factory == null) {
        continue;
      }
      try {
        Controller controller = factory.create(context);
        running.add(controller);
        health.add(name, controller::health);
        String alias = ControllerNames.alias(name);
        managed.put(alias, true);
        Gauge.builder(
                "running_managed_controllers", managed, m -> m.getOrDefault(alias, false) ? 1 : 0)
            .tags("name", alias, "manager", MANAGER)
            .description("The controllers this manager runs")
            .register(metrics);
      } catch (ControllerUnavailableException e) {
        log.warn("not starting {}: {}", name, e.getMessage());
      }
    }
    try {
      informers.startAllRegisteredInformers().get(2, TimeUnit.MINUTES);
    } catch (ExecutionException | TimeoutException e) {
      log.error("informer caches did not sync: {}", e.getMessage());
      stopControllers();
      flushEvents();
      exitLater(1);
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    running.forEach(Controller::start);
    log.info(
        "started controllers: {}",
        running.isEmpty()
            ? "none"
            : String.join(", ", running.stream().map(Controller::name).toList()));
  }

  private KubernetesEventRecorder newRecorder(String component) {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "unknown";
    }
    return new KubernetesEventRecorder(client, component, host);
  }

  private synchronized void stopControllers() {
    for (Controller controller : running) {
      try {
        controller.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      health.remove(controller.name());
      managed.put(ControllerNames.alias(controller.name()), false);
    }
    running.clear();
    if (informers != null) {
      informers.stopAllRegisteredInformers();
      informers = null;
    }
  }

  /** Writes the pending events (at most 5 s per recorder set). */
  private synchronized void flushEvents() {
    for (KubernetesEventRecorder recorder : recorders.values()) {
      try {
        recorder.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    recorders.clear();
  }

  public boolean isLeader() {
    return election == null ? !closed.get() : election.isLeader();
  }

  /** The serving address, with the port chosen when 0 was asked for. */
  public Optional<InetSocketAddress> servingAddress() {
    return Optional.ofNullable(server).map(ManagementServer::address);
  }

  public HealthChecks health() {
    return health;
  }

  /** Stops the controllers, releases the Lease, stops serving and closes the cloud provider. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    log.info("shutting down");
    interruptStarter();
    stopControllers();
    // The Lease goes before the pending events are written (up to 5 s): nothing decides any more,
    // and the next leader need not wait for this one's events.
    if (election != null) {
      election.close();
    }
    flushEvents();
    if (server != null) {
      server.close();
    }
    settings.cloud().close();
  }
}
