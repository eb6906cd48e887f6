package io.ccm4j.runtime.leaderelection;

import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.cloudprovider.api.WellKnownComponents;
import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectorBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a {@code coordination.k8s.io/v1} Lease (A5), run by fabric8's elector, with
 * three differences from upstream:
 *
 * <ul>
 *   <li>{@link #close()} releases the Lease (kubernetes#119905): the record it writes names no
 *       holder, so a candidate may take it at once;
 *   <li>a candidate watches the Lease and tries again the moment the holder's term ends (a lease
 *       duration after it observed the holder's last renewal, on its own monotonic clock, as
 *       client-go judges it, where fabric8 compares the renew time with its wall clock) instead of
 *       at its next retry, which the elector jitters by up to 1.2 retry periods: a released Lease
 *       changes hands at once, an abandoned one a lease duration after its last renewal was seen;
 *   <li>{@link #health()} reports a stalled renew loop, like upstream's {@code HealthzAdaptor}:
 *       leading, but the Lease was not renewed for longer than the lease duration plus a tolerance;
 *   <li>the line that says leadership was lost says why the renewals failed (the last failure, or
 *       the request still unanswered), where upstream says so in the lines before it.
 * </ul>
 *
 * <p>The elector's attempts are spaced as client-go's ({@link AttemptPacing}): at most one per
 * retry period, also after an attempt that hung.
 *
 * <p>As upstream, leadership is given up when no renewal succeeded within the renew deadline. The
 * elector checks that deadline only between attempts, and one attempt against an unreachable API
 * server can block far longer (the client's retries and timeouts), while another instance takes the
 * Lease once it expires: a watchdog on the timer enforces the deadline.
 */
public final class LeaderElection implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LeaderElection.class);

  private static final long NO_REQUEST = Long.MIN_VALUE;

  /**
   * @param healthTimeout how much longer than the lease duration a renewal may be overdue before
   *     the health check fails (upstream: 20 s)
   */
  public record Settings(
      String namespace,
      String name,
      String identity,
      Duration leaseDuration,
      Duration renewDeadline,
      Duration retryPeriod,
      Duration healthTimeout) {

    public Settings {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(identity, "identity");
      if (leaseDuration.compareTo(renewDeadline) <= 0) {
        throw new IllegalArgumentException(
            "lease duration ("
                + leaseDuration
                + ") must be greater than the renew deadline ("
                + renewDeadline
                + ")");
      }
      if (renewDeadline.compareTo(retryPeriod) <= 0) {
        throw new IllegalArgumentException(
            "renew deadline ("
                + renewDeadline
                + ") must be greater than the retry period ("
                + retryPeriod
                + ")");
      }
    }

    /**
     * Upstream's defaults, each written only here (the flags read them): the Lease {@code
     * kube-system/cloud-controller-manager}, 15 s lease, 10 s renew deadline, 2 s retry, and a
     * renewal 20 s overdue before the health check fails.
     *
     * @param identity this instance's name in the Lease ({@code hostname_uuid} upstream)
     */
    public static Settings defaults(String identity) {
      return new Settings(
          WellKnownNamespaces.KUBE_SYSTEM,
          WellKnownComponents.CLOUD_CONTROLLER_MANAGER,
          identity,
          Duration.ofSeconds(15),
          Duration.ofSeconds(10),
          Duration.ofSeconds(2),
          Duration.ofSeconds(20));
    }

    public Settings withNamespace(String value) {
      return new Settings(
          value, name, identity, leaseDuration, renewDeadline, retryPeriod, healthTimeout);
    }

    public Settings withName(String value) {
      return new Settings(
          namespace, value, identity, leaseDuration, renewDeadline, retryPeriod, healthTimeout);
    }

    public Settings withIdentity(String value) {
      return new Settings(
          namespace, name, value, leaseDuration, renewDeadline, retryPeriod, healthTimeout);
    }

    /**
     * The three timings at once: one at a time, a shorter lease would first meet the old renew
     * deadline.
     */
    public Settings withTimings(
        Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
      return new Settings(
          namespace, name, identity, leaseDuration, renewDeadline, retryPeriod, healthTimeout);
    }

    public Settings withHealthTimeout(Duration value) {
      return new Settings(
          namespace, name, identity, leaseDuration, renewDeadline, retryPeriod, value);
    }
  }

  /** What the elector tells its owner. */
  public interface Listener {
    void startedLeading();

    /** Leadership was lost (not given up by {@link #close()}). */
    void lostLeadership();

    default void newLeader(String identity) {}
  }

  private final KubernetesClient client;
  private final Settings settings;
  private final Listener listener;
  private final LongSupplier nanoTime;
  private final Lock lock;
  private final AtomicBoolean leading = new AtomicBoolean();
  private final AtomicBoolean closing = new AtomicBoolean();
  private final AtomicLong lastRenewNanos = new AtomicLong();
  // Why the last request for the Lease failed (null once this instance wrote it), and since when a
  // request is in progress (NO_REQUEST: none): what a lost Lease is put down to.
  private final AtomicReference<String> lastFailure = new AtomicReference<>();
  private final AtomicLong requestSinceNanos = new AtomicLong(NO_REQUEST);
  private final ObservedLeaseTerm term;
  private CompletableFuture<?> running;
  private SharedIndexInformer<Lease> leaseInformer;
  private ScheduledExecutorService timer;
  private ExecutorService attempts;
  private ScheduledFuture<?> nextAttempt;
  // Which elector is the current one: callbacks of a replaced elector are ignored. Guarded by this.
  private long generation;

  public LeaderElection(KubernetesClient client, Settings settings, Listener listener) {
    this(client, settings, listener, System::nanoTime, null);
  }

  /**
   * With a clock and a decorator around the Lease lock, for instrumentation and for tests that make
   * the renew loop stall.
   */
  public LeaderElection(
      KubernetesClient client,
      Settings settings,
      Listener listener,
      LongSupplier nanoTime,
      java.util.function.UnaryOperator<Lock> decorateLock) {
    this.client = client;
    this.settings = settings;
    this.listener = listener;
    this.nanoTime = nanoTime;
    this.term = new ObservedLeaseTerm(nanoTime, Instant::now);
    Lock lease = new LeaseLock(settings.namespace(), settings.name(), settings.identity());
    Lock observed =
        new RenewalObservingLock(decorateLock == null ? lease : decorateLock.apply(lease));
    this.lock = observed;
  }

  public Settings settings() {
    return settings;
  }

  public synchronized void start() {
    if (running != null) {
      throw new IllegalStateException("leader election already started");
    }
    log.info(
        "attempting to acquire leader lease {}/{} as {}",
        settings.namespace(),
        settings.name(),
        settings.identity());
    timer =
        Executors.newSingleThreadScheduledExecutor(
            runnable ->
                Thread.ofPlatform().daemon().name("leader-election-timer").unstarted(runnable));
    attempts =
        Executors.newCachedThreadPool(
            Thread.ofPlatform().daemon().name("leader-election-attempt").factory());
    running = newElector(generation).start();
    // Often, so that a lost Lease is noticed right at the renew deadline: what is left of the
    // lease duration is the time this instance has to stop its cloud writes and go.
    long check = Math.max(50, settings.retryPeriod().toMillis() / 4);
    timer.scheduleWithFixedDelay(this::enforceRenewDeadline, check, check, TimeUnit.MILLISECONDS);
    // Not inform(), which lists before it returns and gives up on a first failure: a manager
    // started before its RBAC, or while the API server comes up, would exit and crash-loop.
    // Upstream's elector retries every retry period for ever; so do the elector and this watch
    // (fabric8's reflector logs each failure, in one line: LogConfiguration).
    leaseInformer =
        client
            .leases()
            .inNamespace(settings.namespace())
            .withName(settings.name())
            .runnableInformer(0);
    leaseInformer.exceptionHandler((started, failure) -> true);
    leaseInformer.addEventHandler(
        new ResourceEventHandler<>() {
          @Override
          public void onAdd(Lease lease) {
            observe(lease);
          }

          @Override
          public void onUpdate(Lease previous, Lease lease) {
            observe(lease);
          }

          @Override
          public void onDelete(Lease lease, boolean finalStateUnknown) {
            scheduleAttempt(Duration.ZERO);
          }
        });
    leaseInformer.start();
  }

  private LeaderElector newElector(long elector) {
    var config =
        new LeaderElectionConfigBuilder()
            .withName(settings.name())
            .withLock(lock)
            .withLeaseDuration(settings.leaseDuration())
            .withRenewDeadline(settings.renewDeadline())
            .withRetryPeriod(settings.retryPeriod())
            .withReleaseOnCancel(true)
            .withLeaderCallbacks(
                new LeaderCallbacks(
                    () -> onStartedLeading(elector),
                    () -> onStoppedLeading(elector),
                    identity -> onNewLeader(elector, identity)))
            .build();
    var pacing = new AttemptPacing(attempts, timer, settings.retryPeriod(), leading::get, nanoTime);
    return new LeaderElectorBuilder(client, pacing).withConfig(config).build();
  }

  /**
   * Another holder's term ends a lease duration after this instance observed the record (not at its
   * renew time by this instance's wall clock): try right then.
   */
  private void observe(Lease lease) {
    var spec = lease.getSpec();
    if (spec == null
        || spec.getHolderIdentity() == null
        || spec.getHolderIdentity().isEmpty()
        || spec.getAcquireTime() == null
        || spec.getRenewTime() == null
        || spec.getLeaseDurationSeconds() == null) {
      scheduleAttempt(Duration.ZERO);
      return;
    }
    if (settings.identity().equals(spec.getHolderIdentity())) {
      return;
    }
    Duration left =
        term.untilTermEnds(
            new ObservedLeaseTerm.Key(
                spec.getHolderIdentity(),
                spec.getAcquireTime().toInstant(),
                spec.getRenewTime().toInstant(),
                spec.getLeaseDurationSeconds(),
                spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions()));
    // A little after the end, so the elector's own expiry check (strictly after) agrees.
    scheduleAttempt(left.plusMillis(50));
  }

  /** Replaces any pending attempt: only the latest view of the Lease counts. */
  private synchronized void scheduleAttempt(Duration delay) {
    if (closing.get() || timer == null) {
      return;
    }
    if (nextAttempt != null) {
      nextAttempt.cancel(false);
    }
    nextAttempt =
        timer.schedule(
            this::campaignAgainNow, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
  }

  /** Whether the watch of the Lease has it in its cache (for tests that delete it under it). */
  synchronized boolean leaseCached() {
    return leaseInformer != null && !leaseInformer.getStore().list().isEmpty();
  }

  /**
   * Starts a fresh elector, whose first attempt is immediate, in place of the one waiting for its
   * next retry. Only while not leading, so nothing is given up.
   *
   * <p>The old elector may win the Lease in the very moment it is replaced: its callbacks carry its
   * generation, and a replaced elector's win is ignored (its cancellation releases the Lease, the
   * new elector takes it), where it used to start the controllers and then report them lost. The
   * old elector is cancelled outside this object's lock: cancelling waits for an attempt in
   * progress, whose callback takes that lock.
   */
  private void campaignAgainNow() {
    CompletableFuture<?> replaced;
    long elector;
    synchronized (this) {
      if (closing.get() || leading.get() || running == null) {
        return;
      }
      elector = ++generation;
      replaced = running;
    }
    log.debug("trying to acquire leader lease {}/{} now", settings.namespace(), settings.name());
    replaced.cancel(true);
    CompletableFuture<?> next = newElector(elector).start();
    synchronized (this) {
      if (elector == generation && !closing.get()) {
        running = next;
        return;
      }
    }
    next.cancel(true); // closing meanwhile
  }

  public boolean isLeader() {
    return leading.get();
  }

  /**
   * Until when (on {@link System#nanoTime()}'s clock, or the one given) no other instance can take
   * the Lease from this one: the start of its last successful write plus the lease duration, as a
   * standby counts its term from when it observed that write.
   */
  public long heldUntilNanos() {
    return lastRenewNanos.get() + settings.leaseDuration().toNanos();
  }

  private void enforceRenewDeadline() {
    if (closing.get() || !leading.get()) {
      return;
    }
    Duration sinceRenew = Duration.ofNanos(nanoTime.getAsLong() - lastRenewNanos.get());
    if (sinceRenew.compareTo(settings.renewDeadline()) <= 0 || !leading.getAndSet(false)) {
      return;
    }
    log.error(
        "leaderelection lost: {}/{} not renewed for {} ms (renew deadline {}): {}",
        settings.namespace(),
        settings.name(),
        sinceRenew.toMillis(),
        GoDurations.format(settings.renewDeadline()),
        whyNotRenewed());
    listener.lostLeadership();
    CompletableFuture<?> stuck;
    synchronized (this) {
      stuck = running;
    }
    if (stuck != null) {
      // Cancelling runs the elector's release, which may hang on the same API server as the
      // renewal: on a thread of its own. Its stop callback finds nothing left to lose.
      Thread.ofPlatform().daemon().name("leader-election-stop").start(() -> stuck.cancel(true));
    }
  }

  /**
   * Why the Lease was not renewed, in one line: the request still waiting for an answer, the last
   * failure (the API server's refusal, a conflict, a transport error), or another holder.
   */
  String whyNotRenewed() {
    String failure = lastFailure.get();
    long since = requestSinceNanos.get();
    if (since != NO_REQUEST) {
      String waiting =
          "a request for the Lease has had no answer for %d ms"
              .formatted(Duration.ofNanos(nanoTime.getAsLong() - since).toMillis());
      return failure == null ? waiting : waiting + "; the one before failed: " + failure;
    }
    return failure == null
        ? "no renewal was attempted since the last one succeeded"
        : "the last renewal failed: " + failure;
  }

  /** Empty when healthy; otherwise how overdue the renewal is. */
  public Optional<String> health() {
    if (!leading.get()) {
      return Optional.empty();
    }
    Duration sinceRenew = Duration.ofNanos(nanoTime.getAsLong() - lastRenewNanos.get());
    Duration allowed = settings.leaseDuration().plus(settings.healthTimeout());
    if (sinceRenew.compareTo(allowed) > 0) {
      return Optional.of(
          "leader lease %s/%s not renewed for %ds (allowed %ds)"
              .formatted(
                  settings.namespace(),
                  settings.name(),
                  sinceRenew.toSeconds(),
                  allowed.toSeconds()));
    }
    return Optional.empty();
  }

  private void onStartedLeading(long elector) {
    synchronized (this) {
      if (elector != generation || closing.get()) {
        log.debug(
            "a replaced elector acquired {}/{}: ignored", settings.namespace(), settings.name());
        return;
      }
      // lastRenewNanos was set by the write that acquired the Lease (RenewalObservingLock).
      leading.set(true);
    }
    log.info("became leader of {}/{}", settings.namespace(), settings.name());
    listener.startedLeading();
  }

  private void onStoppedLeading(long elector) {
    synchronized (this) {
      if (elector != generation) {
        return; // a replaced elector: it never led for this object
      }
    }
    boolean wasLeading = leading.getAndSet(false);
    if (!wasLeading) {
      return; // a candidate's elector was replaced or stopped: nothing was lost
    }
    if (closing.get()) {
      log.info("released leader lease {}/{}", settings.namespace(), settings.name());
      return;
    }
    log.error(
        "leaderelection lost: {}/{}: {}", settings.namespace(), settings.name(), whyNotRenewed());
    listener.lostLeadership();
  }

  private void onNewLeader(long elector, String identity) {
    synchronized (this) {
      if (elector != generation) {
        return;
      }
    }
    if (!settings.identity().equals(identity)) {
      log.info("the leader of {}/{} is {}", settings.namespace(), settings.name(), identity);
    }
    listener.newLeader(identity);
  }

  /** Stops campaigning; if leading, releases the Lease so another instance takes over at once. */
  @Override
  public void close() {
    closing.set(true);
    CompletableFuture<?> future;
    synchronized (this) {
      future = running;
      if (leaseInformer != null) {
        leaseInformer.close();
      }
      if (timer != null) {
        timer.shutdownNow();
      }
    }
    if (future != null) {
      future.cancel(true);
    }
    synchronized (this) {
      if (attempts != null) {
        attempts.shutdown();
      }
    }
  }

  /**
   * Records each successful write of the Lease as a renewal, for {@link #health()}, the renew
   * deadline and {@link #heldUntilNanos()}: at the time the write started, since a standby may see
   * it before its answer reaches this instance. Hands the elector other holders' records with their
   * renew time as this instance observed it ({@link ObservedLeaseTerm}). Keeps why the last request
   * failed, for the line that says leadership was lost.
   */
  private final class RenewalObservingLock implements Lock {
    private final Lock delegate;

    RenewalObservingLock(Lock delegate) {
      this.delegate = delegate;
    }

    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
      LeaderElectionRecord record = request(() -> delegate.get(client));
      if (record == null || settings.identity().equals(record.getHolderIdentity())) {
        return record;
      }
      if (leading.get()) {
        lastFailure.set(
            record.getHolderIdentity() == null || record.getHolderIdentity().isEmpty()
                ? "the Lease names no holder"
                : "the Lease is held by " + record.getHolderIdentity());
      }
      return term.asObserved(record);
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
      long started = nanoTime.getAsLong();
      request(
          () -> {
            delegate.create(client, record);
            return null;
          });
      wrote(record, started);
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
      long started = nanoTime.getAsLong();
      request(
          () -> {
            delegate.update(client, record);
            return null;
          });
      wrote(record, started);
    }

    private <T> T request(java.util.function.Supplier<T> call) {
      requestSinceNanos.set(nanoTime.getAsLong());
      try {
        return call.get();
      } catch (RuntimeException e) {
        lastFailure.set(KubernetesErrors.reason(e));
        throw e;
      } finally {
        requestSinceNanos.set(NO_REQUEST);
      }
    }

    private void wrote(LeaderElectionRecord record, long started) {
      if (settings.identity().equals(record.getHolderIdentity())) {
        lastRenewNanos.set(started);
        lastFailure.set(null);
      }
    }

    @Override
    public String identity() {
      return delegate.identity();
    }

    @Override
    public String describe() {
      return delegate.describe();
    }
  }
}
