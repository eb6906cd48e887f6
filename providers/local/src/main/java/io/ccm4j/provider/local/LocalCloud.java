package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.cloudprovider.Routes;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code local} cloud: this machine. Load balancers listen on loopback addresses from a pool
 * and carry real TCP and UDP traffic to the nodes' node ports (in-process, like cloud-provider-kind
 * without containers); instances are read from the Node objects; routes are a table in memory or in
 * a file ({@code routeTable}).
 *
 * <p>Threads: one platform timer thread (health checks, drain and idle sweeps), started with the
 * first load balancer, and virtual threads for listeners, connections and probes. {@link #close()}
 * ends them all.
 */
public final class LocalCloud implements CloudProvider {

  private static final Logger log = LoggerFactory.getLogger(LocalCloud.class);
  public static final String PROVIDER_NAME = "local";
  private static final Duration SWEEP_INTERVAL = Duration.ofMillis(200);

  private final LocalCloudSettings settings;
  private final TrackedThreads threads = new TrackedThreads();
  private final LocalInstances instances = new LocalInstances();
  private final LocalRoutes routes;
  private final LocalLoadBalancers loadBalancers;
  private ScheduledExecutorService timer;
  private EventLoops loops;
  private final java.util.List<Thread> timerThreads =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private boolean closed;

  public LocalCloud(LocalCloudSettings settings) {
    this.settings = settings;
    this.routes = settings.routeTable().map(LocalRoutes::new).orElseGet(LocalRoutes::new);
    this.loadBalancers = new LocalLoadBalancers(settings, threads, this::startTimer);
  }

  /**
   * Starts the timer and the event loops once: at {@link #initialize}, or with the first load
   * balancer.
   */
  private synchronized EventLoops startTimer() {
    if (timer != null || closed) {
      return loops;
    }
    loops = new EventLoops(Math.max(1, Runtime.getRuntime().availableProcessors()));
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = Thread.ofPlatform().daemon().name("local-cloud-timer").unstarted(r);
              timerThreads.add(thread);
              return thread;
            });
    long interval = settings.healthCheckInterval().toMillis();
    timer.scheduleWithFixedDelay(
        () -> guarded(loadBalancers::probeAll), interval, interval, TimeUnit.MILLISECONDS);
    long sweep = SWEEP_INTERVAL.toMillis();
    timer.scheduleWithFixedDelay(
        () -> guarded(loadBalancers::sweep), sweep, sweep, TimeUnit.MILLISECONDS);
    return loops;
  }

  /** A periodic task that throws is never run again: health checks would stop for good. */
  private static void guarded(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException | StackOverflowError | LinkageError | AssertionError e) {
      log.warn("local cloud: periodic task failed", e);
    }
  }

  @Override
  public String providerName() {
    return PROVIDER_NAME;
  }

  @Override
  public void initialize(ProviderContext context) {
    startTimer();
    log.info(
        "local cloud for cluster {}: load balancer addresses from {}, health checks every {} ms,"
            + " routes {}",
        context.clusterName(),
        settings.addressPoolText(),
        settings.healthCheckInterval().toMillis(),
        settings.routeTable().map(f -> "in " + f).orElse("in memory"));
  }

  @Override
  public Optional<InstancesV2> instancesV2() {
    return Optional.of(instances);
  }

  @Override
  public Optional<LoadBalancer> loadBalancer() {
    return Optional.of(loadBalancers);
  }

  @Override
  public Optional<Routes> routes() {
    return Optional.of(routes);
  }

  /** The load balancers, with {@link LocalLoadBalancers#snapshot()} for observers. */
  public LocalLoadBalancers loadBalancers() {
    return loadBalancers;
  }

  /** The route table, with {@link LocalRoutes#snapshot()} for observers. */
  public LocalRoutes routeTable() {
    return routes;
  }

  public LocalCloudSettings settings() {
    return settings;
  }

  /** Virtual threads still running (listeners, connections, probes); 0 after {@link #close()}. */
  public int liveThreads() {
    return threads.live();
  }

  /** Closes every listener and connection, stops the timer and waits for every thread to end. */
  @Override
  public void close() {
    ScheduledExecutorService running;
    EventLoops io;
    synchronized (this) {
      closed = true;
      running = timer;
      io = loops;
    }
    loadBalancers.closeAll();
    if (io != null) {
      io.close();
    }
    try {
      boolean timerDone = true;
      if (running != null) {
        running.shutdownNow();
        timerDone = running.awaitTermination(5, TimeUnit.SECONDS);
        // Terminated is signalled just before the worker thread itself has ended.
        for (Thread thread : timerThreads) {
          thread.join(5000);
        }
      }
      boolean threadsDone = threads.awaitNone(Duration.ofSeconds(5));
      if (!timerDone || !threadsDone) {
        log.warn("local cloud: {} threads still running after close", threads.live());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
