package io.ccm4j.app.manager;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.cloudprovider.api.WellKnownComponents;
import io.ccm4j.controllers.ControllerContext;
import io.ccm4j.controllers.ControllerDescriptor;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.ControllerUnavailableException;
import io.ccm4j.runtime.client.InformerWatchdog;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.client.RecordingInformerFactory;
import io.ccm4j.runtime.cloud.CloudFence;
import io.ccm4j.runtime.cloud.MeasuredCloudProvider;
import io.ccm4j.runtime.controller.Controller;
import io.ccm4j.runtime.health.HealthChecks;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.runtime.serving.BuildInfo;
import io.ccm4j.runtime.serving.ProcessMetrics;
import io.ccm4j.runtime.serving.ServingAccess;
import io.ccm4j.runtime.serving.ServingKeys;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.SharedInformerEventListener;
import io.fabric8.kubernetes.client.informers.SharedInformerFactory;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
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
  private static final String MANAGER = WellKnownComponents.CLOUD_CONTROLLER_MANAGER;

  /** How long a manager that lost its Lease lets its controllers finish the key in hand. */
  static final Duration LOST_LEASE_GRACE = Duration.ofSeconds(2);

  /**
   * How long a stopping manager lets its controllers finish the key in hand (no cloud call starts
   * any more, API writes still go out) before it goes on without them. A worker in a cloud write is
   * waited for apart from this ({@link #cloudWritesGrace}).
   */
  static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(1);

  /** How long a stopping manager waits for its Lease to be released. */
  static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(2);

  /**
   * How long a stopping manager without leader election waits for its cloud writes in flight; with
   * leader election it waits the renew deadline (10 s by default), always less than the Lease.
   */
  static final Duration CLOUD_WRITES_GRACE = Duration.ofSeconds(10);

  /**
   * After a lost Lease the cloud writes in flight are waited for until this long before another
   * instance may take the Lease (the start of the last renewal plus the lease duration), so that
   * this process is gone, and any write it was still in with it, before a standby may act.
   */
  static final Duration LOST_LEASE_EXIT_MARGIN = Duration.ofSeconds(1);

  /**
   * How long a stopping manager, once the Lease is released, writes its pending events and closes
   * the cloud provider, all at once (one deadline for them all, not one per event recorder).
   */
  static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Everything the manager runs with, validated: built by {@link #builder} or from the flags by
   * {@code RunCommand.settings()}.
   */
  public record Settings(
      CloudProvider cloud,
      String clusterName,
      ControllerSelection selection,
      ControllerSettings controllers,
      Optional<LeaderElection.Settings> leaderElection,
      Optional<InetSocketAddress> servingAddress,
      ServingKeys servingKeys,
      ServingAccess servingAccess,
      Duration informerStallBound) {}

  private final ManagerClients clients;
  private final Settings settings;
  private final EventRecorders events;
  // Every controller's cloud calls pass it: closed when this instance may no longer lead.
  private final CloudFence cloudFence = new CloudFence();
  private final CloudProvider cloud;
  private volatile boolean cloudWritesAwaited;
  private final List<ControllerDescriptor> controllers;
  private final IntConsumer exit;
  private final PrometheusMeterRegistry metrics =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final HealthChecks health = new HealthChecks();
  private final AtomicBoolean closed = new AtomicBoolean();
  // Starting and stopping the controllers; a lock, not the monitor, so that a stop after a lost
  // Lease can give up waiting for a start stuck in the cloud's initialisation.
  private final ReentrantLock lifecycle = new ReentrantLock();
  private volatile boolean leaseLost;
  private volatile Thread starter;
  private final List<Controller> running = new ArrayList<>();
  private final Map<String, Boolean> managed = new ConcurrentHashMap<>();
  private SharedInformerFactory informers;
  private InformerWatchdog watchdog;
  private ManagementServing serving;
  private LeaderElection election;

  /** A manager using one client for everything (tests, the lab, benchmarks). */
  public static CloudControllerManagerBuilder builder(KubernetesClient client) {
    return new CloudControllerManagerBuilder(ManagerClients.sharing(client));
  }

  /** A manager with a client per concern (the caller closes them after the manager). */
  public static CloudControllerManagerBuilder builder(ManagerClients clients) {
    return new CloudControllerManagerBuilder(clients);
  }

  /**
   * Settings alone, built as a manager is ({@link CloudControllerManagerBuilder#buildSettings}).
   */
  public static CloudControllerManagerBuilder settings() {
    return new CloudControllerManagerBuilder(null);
  }

  /**
   * @param clients a client per concern (the caller closes them after this manager)
   * @param controllers the controllers it may run ({@code Controllers.ALL}), in start order
   * @param exit called with 1 when leadership is lost; {@code System::exit} in production
   */
  CloudControllerManager(
      ManagerClients clients,
      Settings settings,
      List<ControllerDescriptor> controllers,
      IntConsumer exit) {
    this.clients = clients;
    this.settings = settings;
    this.events = new EventRecorders(clients.manager(), clients.contentType());
    this.cloud = cloudFence.guard(MeasuredCloudProvider.measure(settings.cloud(), metrics));
    this.controllers = controllers;
    this.exit = exit;
    clients.restClientMetrics().bindTo(metrics);
    new JvmMemoryMetrics().bindTo(metrics);
    new JvmThreadMetrics().bindTo(metrics);
    new ProcessorMetrics().bindTo(metrics);
    new ProcessMetrics().bindTo(metrics);
    new BuildInfo().register(metrics);
  }

  /**
   * Starts serving and either campaigns for the Lease or, without leader election, starts the
   * controllers.
   */
  public void start() {
    if (settings.servingAddress().isPresent()) {
      serving = ManagementServing.open(settings, health, metrics, clients);
    }
    if (settings.leaderElection().isEmpty()) {
      startControllers();
      return;
    }
    LeaderElection.Settings le = settings.leaderElection().get();
    election =
        new LeaderElection(
            clients.leaderElection(),
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
                        .start(
                            () -> {
                              recordBecameLeader(le);
                              startControllers();
                            });
              }

              @Override
              public void lostLeadership() {
                // As upstream (which exits at once), nothing may go on acting for long: another
                // instance may already lead. The pending events are written on exit (close()).
                leaseLost = true;
                // Another instance may lead soon: no controller request and no cloud call starts
                // from here on (a worker back from a cloud call finds its next one refused).
                fence();
                interruptStarter();
                stopControllers(LOST_LEASE_GRACE);
                // The process goes once its cloud writes have returned, before the Lease may pass.
                exitLater(1, CloudControllerManager.this::awaitCloudWrites);
              }
            });
    health.add("leaderElection", election::health);
    Gauge.builder("leader_election_master_status", election, e -> e.isLeader() ? 1 : 0)
        .tag("name", le.name())
        .description(
            "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 indicates"
                + " backup, 1 indicates master. 'name' is the string used to identify the lease."
                + " Please make sure to group by name.")
        .register(metrics);
    election.start();
  }

  /**
   * Upstream's elector records {@code LeaderElection} "{@code <identity> became leader}" on its
   * Lease (client-go's {@code LeaseLock.RecordEvent}), as the manager's component.
   */
  private void recordBecameLeader(LeaderElection.Settings le) {
    Lease lease;
    try {
      lease =
          clients.leaderElection().leases().inNamespace(le.namespace()).withName(le.name()).get();
    } catch (KubernetesClientException e) {
      log.debug("no LeaderElection event: cannot read the Lease: {}", KubernetesErrors.reason(e));
      return;
    }
    if (lease != null) {
      events.forSource(MANAGER).normal(lease, "LeaderElection", le.identity() + " became leader");
    }
  }

  /**
   * Exits from a thread of its own: exiting runs close() (the shutdown hook), which takes this
   * manager's lock and waits for the elector's thread, so neither may be the one exiting.
   */
  private void exitLater(int code) {
    exitLater(code, () -> {});
  }

  private void exitLater(int code, Runnable first) {
    Thread.ofPlatform()
        .name("ccm4j-exit")
        .start(
            () -> {
              first.run();
              exit.accept(code);
            });
  }

  /** From now on no controller's request reaches the API server and no cloud call starts. */
  private void fence() {
    cloudFence.close();
    clients.fenceControllers();
  }

  /**
   * The cloud writes still in flight, in the stop's or the lost Lease's bound: with the Lease held,
   * {@link #cloudWritesGrace} from {@code since}; once it is lost (or not renewed), until {@link
   * #LOST_LEASE_EXIT_MARGIN} before another instance may take it. Returns whether they all
   * returned.
   */
  private boolean awaitCloudWrites() {
    return awaitCloudWrites(System.nanoTime());
  }

  private boolean awaitCloudWrites(long since) {
    List<String> inFlight = cloudFence.writesInFlight();
    if (!inFlight.isEmpty()) {
      log.info("waiting for cloud writes in flight: {}", String.join(", ", inFlight));
    }
    try {
      // In slices: the Lease may be lost while this waits, which brings the deadline forward.
      while (!inFlight.isEmpty()) {
        long left = cloudWritesDeadline(since) - System.nanoTime();
        if (left <= 0) {
          break;
        }
        inFlight = cloudFence.awaitWrites(Duration.ofNanos(Math.min(left, 100_000_000L)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    cloudWritesAwaited = true;
    if (!inFlight.isEmpty()) {
      log.warn(
          "cloud writes still in flight, not waiting for them any more: {}",
          String.join(", ", inFlight));
    }
    return inFlight.isEmpty();
  }

  private long cloudWritesDeadline(long since) {
    if (election == null) {
      return since + CLOUD_WRITES_GRACE.toNanos();
    }
    long deadline = since + cloudWritesGrace().toNanos();
    if (leaseLost || !election.isLeader()) {
      deadline = Math.min(deadline, election.heldUntilNanos() - LOST_LEASE_EXIT_MARGIN.toNanos());
    }
    return deadline;
  }

  /** How long a stop waits for the cloud writes in flight while it holds the Lease. */
  private Duration cloudWritesGrace() {
    return settings
        .leaderElection()
        .map(LeaderElection.Settings::renewDeadline)
        .orElse(CLOUD_WRITES_GRACE);
  }

  private void interruptStarter() {
    Thread thread = starter;
    if (thread != null && thread != Thread.currentThread()) {
      thread.interrupt(); // ends a wait for the informer caches
    }
  }

  private void startControllers() {
    lifecycle.lock();
    try {
      if (!closed.get() && !leaseLost) {
        startControllersLocked();
      }
    } catch (RuntimeException | Error e) {
      // A provider's or a controller's bug while starting: a leader that runs nothing must not
      // hold the Lease with /healthz green. Exiting lets a standby take over.
      log.error("starting the controllers failed, exiting: {}", e.toString(), e);
      stopControllers(LOST_LEASE_GRACE);
      exitLater(1);
    } finally {
      lifecycle.unlock();
    }
  }

  private void startControllersLocked() {
    try {
      cloud.initialize(
          new ProviderContext(
              settings.clusterName(),
              Optional.of(clients.manager()),
              settings.selection()::isEnabled,
              metrics()));
    } catch (CloudException e) {
      log.error("cannot initialise cloud provider {}: {}", cloud.providerName(), e.getMessage());
      exitLater(1);
      return;
    }
    if (closed.get() || leaseLost) {
      return; // stopped while the cloud initialised, without waiting for it
    }
    informers = clients.informers();
    // Without a listener fabric8 logs each informer that did not start with a WARN and its stack,
    // the informers a stop right after taking the Lease ends before their first list too.
    informers.addSharedInformerEventListener(
        new SharedInformerEventListener() {
          @Override
          public void onException(Exception cause) {
            informerDidNotStart("an informer", cause);
          }

          @Override
          public void onException(SharedIndexInformer<?> informer, Exception cause) {
            informerDidNotStart(informer.getApiTypeClass().getSimpleName(), cause);
          }
        });
    watchdog = new InformerWatchdog(settings.informerStallBound(), this::informerStopped);
    for (ControllerDescriptor descriptor : controllers) {
      String name = descriptor.name();
      if (!settings.selection().isEnabled(name)) {
        continue;
      }
      KubernetesClient controllerClient;
      try {
        controllerClient = clients.forController(descriptor.clientName());
      } catch (KubernetesClientException e) {
        noCredentials(name, descriptor, e);
        return;
      }
      RecordingInformerFactory controllerInformers = new RecordingInformerFactory(informers);
      ControllerContext context =
          new ControllerContext(
              name,
              controllerClient,
              controllerInformers,
              cloud,
              settings.clusterName(),
              metrics,
              events.forSource(descriptor.eventSource()),
              clients.contentType(),
              part -> clients.forController(descriptor.clientName(), part));
      try {
        // The entry hands the controller its own record of settings.controllers().
        Controller controller = descriptor.factory().create(context, settings.controllers());
        running.add(controller);
        // Red while an informer it uses goes without a watch for longer than the bound.
        Set<SharedIndexInformer<?>> uses = controllerInformers.taken();
        uses.forEach(watchdog::watch);
        InformerWatchdog informerHealth = watchdog;
        health.add(
            name, () -> HealthChecks.problems(controller.health(), informerHealth.health(uses)));
        String alias = descriptor.alias();
        managed.put(alias, true);
        Gauge.builder(
                "running_managed_controllers", managed, m -> m.getOrDefault(alias, false) ? 1 : 0)
            .tags("name", alias, "manager", MANAGER)
            .description("[BETA] Indicates where instances of a controller are currently running")
            .register(metrics);
      } catch (ControllerUnavailableException e) {
        log.warn("not starting {}: {}", name, e.getMessage());
      } catch (KubernetesClientException e) {
        // The client of one of its parts (ControllerContext.clientFor), as the controller's own.
        noCredentials(name, descriptor, e);
        return;
      }
    }
    try {
      informers.startAllRegisteredInformers().get(2, TimeUnit.MINUTES);
    } catch (ExecutionException | TimeoutException e) {
      log.error("informer caches did not sync: {}", e.getMessage());
      stopControllers(null);
      events.closeWith(null, CLOSE_TIMEOUT);
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
    ClassDataStarted.record();
  }

  /**
   * A shared informer gave up, although it is told to retry every failure: a leader that no longer
   * sees changes must not hold the Lease with {@code /healthz} green. Exiting lets a standby take
   * over.
   */
  private void informerStopped(String resource, Throwable cause) {
    log.error("shared informer {} stopped, exiting: {}", resource, cause.toString());
    exitLater(1);
  }

  /**
   * A shared informer's start failed. When the manager is stopping, that is the stop ending an
   * informer before its first list: nothing to report. Otherwise the wait for the caches reports it
   * too ("informer caches did not sync"); this line names the informer, without a stack.
   */
  private void informerDidNotStart(String informer, Exception cause) {
    if (closed.get() || leaseLost) {
      log.debug("{} informer stopped before it started", informer);
      return;
    }
    log.warn("{} informer did not start: {}", informer, KubernetesErrors.message(cause));
  }

  /** The short name {@code running_managed_controllers} reports for a controller (A8). */
  private String alias(String name) {
    return controllers.stream()
        .filter(descriptor -> descriptor.name().equals(name))
        .map(ControllerDescriptor::alias)
        .findFirst()
        .orElse(name);
  }

  /**
   * A controller's credentials (its own or one of its parts') could not be had: nothing runs
   * without them, so the controllers stop and the process exits.
   */
  private void noCredentials(String name, ControllerDescriptor descriptor, RuntimeException e) {
    log.error(
        "cannot get the credentials of {} (ServiceAccount kube-system/{}): {}",
        name,
        descriptor.clientName(),
        e.getMessage());
    stopControllers(null);
    exitLater(1);
  }

  /**
   * Stops every controller at once (no controller takes a new key while another still finishes one)
   * and waits for them: at most {@code grace}, or for good when it is null. After a lost Lease the
   * wait is short: a worker stuck in a cloud call must not keep this instance acting beside the new
   * leader, so the process exits without it.
   */
  private void stopControllers(Duration grace) {
    List<Controller> stopping;
    SharedInformerFactory stoppingInformers;
    InformerWatchdog stoppingWatchdog;
    try {
      if (grace == null) {
        lifecycle.lock();
      } else if (!lifecycle.tryLock(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("controllers still starting after {} ms; not waiting for them", grace.toMillis());
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    try {
      stopping = List.copyOf(running);
      running.clear();
      stoppingInformers = informers;
      informers = null;
      stoppingWatchdog = watchdog;
      watchdog = null;
    } finally {
      lifecycle.unlock();
    }
    List<Thread> closers = new ArrayList<>();
    for (Controller controller : stopping) {
      health.remove(controller.name());
      managed.put(alias(controller.name()), false);
      closers.add(
          Thread.ofPlatform()
              .daemon()
              .name("ccm4j-stop-" + controller.name())
              .start(
                  () -> {
                    try {
                      controller.close();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }));
    }
    long deadline = grace == null ? Long.MAX_VALUE : System.nanoTime() + grace.toNanos();
    List<String> busy = new ArrayList<>();
    try {
      for (int i = 0; i < closers.size(); i++) {
        Thread closer = closers.get(i);
        if (grace == null) {
          closer.join();
        } else {
          long left = deadline - System.nanoTime();
          if (left <= 0 || !closer.join(Duration.ofNanos(left))) {
            busy.add(stopping.get(i).name());
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!busy.isEmpty()) {
      log.warn(
          "{} still finishing work after {} ms; not waiting for them",
          String.join(", ", busy),
          grace.toMillis());
    }
    if (stoppingWatchdog != null) {
      stoppingWatchdog.close();
    }
    if (stoppingInformers != null) {
      stoppingInformers.stopAllRegisteredInformers();
    }
  }

  /**
   * Stops campaigning and releases the Lease, waiting at most {@link #RELEASE_TIMEOUT}: against an
   * API server that does not answer, the release could take the client's retries; the Lease then
   * expires on its own.
   */
  private void releaseLease() {
    Thread releasing =
        Thread.ofPlatform().daemon().name("ccm4j-release-lease").start(election::close);
    try {
      if (!releasing.join(RELEASE_TIMEOUT)) {
        log.warn(
            "leader Lease not released within {} ms; it expires on its own",
            RELEASE_TIMEOUT.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public boolean isLeader() {
    return election == null ? !closed.get() : election.isLeader();
  }

  /** The serving address, with the port chosen when 0 was asked for. */
  public Optional<InetSocketAddress> servingAddress() {
    return Optional.ofNullable(serving).map(ManagementServing::address);
  }

  public HealthChecks health() {
    return health;
  }

  /** The registry {@code /metrics} serves. */
  public io.micrometer.core.instrument.MeterRegistry metrics() {
    return metrics;
  }

  /**
   * Stops the controllers, releases the Lease, stops serving and closes the cloud provider, with
   * one writer per cloud object: no cloud call starts once the stop begins, and the Lease is
   * released only once the cloud writes in flight have returned (at most the renew deadline; a
   * write that outlasts it keeps the Lease, which then expires on its own after this process is
   * gone). Bounded whatever the workers, the cloud and the API server do: the controllers get
   * {@link #SHUTDOWN_GRACE} to finish the key in hand, the release {@link #RELEASE_TIMEOUT}, the
   * events and the provider's close {@link #CLOSE_TIMEOUT} together. Upstream neither waits nor
   * releases (kubernetes#119905). The sequence is in ARCHITECTURE.md ("The manager").
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    log.info("shutting down");
    long started = System.nanoTime();
    interruptStarter();
    // No cloud call starts from here on; while the Lease is held, API writes still go out, so a
    // worker back from a cloud write can record its result.
    cloudFence.close();
    stopControllers(leaseLost ? LOST_LEASE_GRACE : SHUTDOWN_GRACE);
    boolean writesReturned =
        cloudWritesAwaited ? cloudFence.writesInFlight().isEmpty() : awaitCloudWrites(started);
    // Nothing of this instance's reaches the API server once the next leader may act.
    clients.fenceControllers();
    Duration closeBound = CLOSE_TIMEOUT;
    if (election != null) {
      if (leaseLost) {
        // Nothing to release, and the API server may be out of reach: the elector stops on a
        // thread of its own. The rest of the stop ends before the Lease may pass to another
        // instance, so that this process is gone by then.
        Thread.ofPlatform().daemon().name("ccm4j-stop-campaign").start(election::close);
        long left =
            election.heldUntilNanos() - LOST_LEASE_EXIT_MARGIN.toNanos() - System.nanoTime();
        closeBound = Duration.ofNanos(Math.clamp(left, 0, CLOSE_TIMEOUT.toNanos()));
      } else if (writesReturned) {
        // The Lease goes before the pending events are written: nothing decides any more, and the
        // next leader need not wait for this one's events.
        releaseLease();
      } else {
        log.warn(
            "leader Lease not released: a cloud write is still in flight; it expires on its own"
                + " once this process has exited");
      }
    }
    events.closeWith(cloud, closeBound);
    if (serving != null) {
      serving.close();
    }
  }
}
