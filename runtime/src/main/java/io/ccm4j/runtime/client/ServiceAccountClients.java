package io.ccm4j.runtime.client;

import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream's {@code --use-service-account-credentials}: each controller talks to the API server as
 * a ServiceAccount of its own in {@code kube-system} (created when missing, as upstream's client
 * builder does, at every token it asks for), with tokens from the TokenRequest API renewed when 80
 * % of their hour has passed, or at once when the API server refuses one (401: the ServiceAccount
 * was deleted and is made again, its token revoked, the signing key rotated), on a thread of their
 * own ({@link RenewedToken}). The manager's own credentials remain for the shared informers and the
 * Lease, as upstream's.
 */
public final class ServiceAccountClients implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ServiceAccountClients.class);
  private static final String NAMESPACE = WellKnownNamespaces.KUBE_SYSTEM;
  private static final long TOKEN_SECONDS = 3600;

  private final KubernetesClient root;
  private final double qps;
  private final int burst;
  private final Map<String, KubernetesClient> clients = new LinkedHashMap<>();
  private final Fence fence;
  private final SharedTransport transport;
  private final RestClientMetrics metrics;
  private final ScheduledExecutorService renewer =
      Executors.newSingleThreadScheduledExecutor(
          runnable -> Thread.ofPlatform().daemon().name("ccm4j-token-renewal").unstarted(runnable));

  /**
   * @param root the manager's own client: it creates the ServiceAccounts and requests their tokens
   * @param qps the rate limit of each controller's client, as the manager's
   */
  public ServiceAccountClients(KubernetesClient root, double qps, int burst) {
    this(root, qps, burst, null, null, null);
  }

  /**
   * @param fence what the controllers' requests pass, or null
   * @param transport what the controllers' clients are built on, or null for their own
   * @param metrics where the controllers' requests are counted, or null
   */
  public ServiceAccountClients(
      KubernetesClient root,
      double qps,
      int burst,
      Fence fence,
      SharedTransport transport,
      RestClientMetrics metrics) {
    this.root = root;
    this.qps = qps;
    this.burst = burst;
    this.fence = fence;
    this.transport = transport;
    this.metrics = metrics;
  }

  /**
   * The client for a controller's ServiceAccount, created with it on first use; {@code concern} is
   * the account's name, or {@code <account>/<part>} for a part of a controller with a client (a
   * rate limit and a token) of its own under the same account ({@link
   * ManagerClients#forController(String, String)}).
   *
   * @throws KubernetesClientException when the ServiceAccount cannot be read or created (the
   *     manager's own role must allow {@code get} and {@code create} on serviceaccounts, and {@code
   *     create} on serviceaccounts/token, in kube-system)
   */
  public synchronized KubernetesClient forController(String concern) {
    KubernetesClient existing = clients.get(concern);
    if (existing != null) {
      return existing;
    }
    // "node-controller/taint-eviction-controller": a part of a controller with a client of its
    // own, as the account's (ServiceAccount names have no slash).
    int part = concern.indexOf('/');
    String serviceAccount = part < 0 ? concern : concern.substring(0, part);
    Config base = root.getConfiguration();
    // The server and how to trust it, without the manager's own credentials (upstream's
    // AnonymousClientConfig); the token comes from the provider on every request.
    Config config =
        new ConfigBuilder(Config.empty())
            .withMasterUrl(base.getMasterUrl())
            .withCaCertFile(base.getCaCertFile())
            .withCaCertData(base.getCaCertData())
            .withTrustCerts(base.isTrustCerts())
            .withDisableHostnameVerification(base.isDisableHostnameVerification())
            .withRequestTimeout(base.getRequestTimeout())
            .withConnectionTimeout(base.getConnectionTimeout())
            .build();
    RenewedToken token =
        new RenewedToken(
            serviceAccount,
            () -> {
              ensureServiceAccount(serviceAccount);
              return requestToken(serviceAccount);
            },
            renewer,
            Instant::now);
    token.start();
    config.setOauthTokenProvider(token);
    KubernetesClient client =
        KubeClients.create(
            config, KubeClients.USER_AGENT + "/" + concern, qps, burst, fence, transport, metrics);
    clients.put(concern, client);
    log.info("controller credentials: ServiceAccount {}/{}", NAMESPACE, serviceAccount);
    return client;
  }

  private void ensureServiceAccount(String name) {
    var accounts = root.serviceAccounts().inNamespace(NAMESPACE);
    if (accounts.withName(name).get() != null) {
      return;
    }
    try {
      accounts
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(NAMESPACE)
                  .endMetadata()
                  .build())
          .create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) { // created meanwhile by another instance
        throw e;
      }
    }
  }

  /** A token and when it expires. */
  record IssuedToken(String token, Instant expires) {}

  private IssuedToken requestToken(String serviceAccount) {
    Instant now = Instant.now();
    TokenRequest answer =
        root.serviceAccounts()
            .inNamespace(NAMESPACE)
            .withName(serviceAccount)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(TOKEN_SECONDS)
                    .endSpec()
                    .build());
    return new IssuedToken(
        answer.getStatus().getToken(),
        answer.getStatus().getExpirationTimestamp() == null
            ? now.plusSeconds(TOKEN_SECONDS)
            : Instant.parse(answer.getStatus().getExpirationTimestamp()));
  }

  /**
   * A ServiceAccount token, requested again on a thread of its own once 80 % of its lifetime has
   * passed. {@link #getToken()} never calls the API server: fabric8 asks for the token wherever it
   * sends or re-sends a request, which includes its one scheduler thread (retries), shared with
   * every request timeout and Lease renewal of the process, and the thread of a call answered 401.
   */
  static final class RenewedToken implements CredentialRefresh.RefusableToken {

    /**
     * How soon a renewal that failed is tried again; and how old a token must be before a refusal
     * renews it (the requests sent with it before the renewal are refused too).
     */
    static final Duration RETRY = Duration.ofSeconds(10);

    private final String serviceAccount;
    private final Supplier<IssuedToken> issue;
    private final ScheduledExecutorService renewer;
    private final Supplier<Instant> clock;
    private final AtomicBoolean renewing = new AtomicBoolean();
    private volatile String token;
    private volatile Instant issuedAt = Instant.MIN;
    private volatile Instant renewAt = Instant.MIN;

    RenewedToken(
        String serviceAccount,
        Supplier<IssuedToken> issue,
        ScheduledExecutorService renewer,
        Supplier<Instant> clock) {
      this.serviceAccount = serviceAccount;
      this.issue = issue;
      this.renewer = renewer;
      this.clock = clock;
    }

    /**
     * Gets the first token on the caller's thread (a failure is thrown: the controller cannot start
     * without one) and schedules its renewal.
     */
    void start() {
      accept(issue.get());
    }

    private void accept(IssuedToken issued) {
      Instant now = clock.get();
      token = issued.token();
      issuedAt = now;
      renewAt = now.plus(Duration.between(now, issued.expires()).multipliedBy(4).dividedBy(5));
      schedule(Duration.between(now, renewAt));
    }

    private void schedule(Duration delay) {
      try {
        renewer.schedule(this::renew, Math.max(0, delay.toMillis()), TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException e) {
        // closed
      }
    }

    private void renew() {
      if (!renewing.compareAndSet(false, true)) {
        return;
      }
      try {
        accept(issue.get());
      } catch (RuntimeException e) {
        log.warn(
            "cannot renew the token of ServiceAccount {}/{}, trying again in {} s: {}",
            NAMESPACE,
            serviceAccount,
            RETRY.toSeconds(),
            e.getMessage());
        schedule(RETRY);
      } finally {
        renewing.set(false);
      }
    }

    /**
     * The API server refused the token: a renewal starts, without waiting, unless one runs or the
     * token is younger than {@link #RETRY}.
     */
    @Override
    public void refused() {
      if (renewing.get() || clock.get().isBefore(issuedAt.plus(RETRY))) {
        return;
      }
      log.info(
          "the API server refused the token of ServiceAccount {}/{}: asking for another",
          NAMESPACE,
          serviceAccount);
      try {
        renewer.execute(this::renew);
      } catch (RejectedExecutionException e) {
        // closed
      }
    }

    /** The current token; when it is due and no renewal runs, one starts, without waiting. */
    @Override
    public String getToken() {
      if (!clock.get().isBefore(renewAt) && !renewing.get()) {
        try {
          renewer.execute(this::renew);
        } catch (RejectedExecutionException e) {
          // closed
        }
      }
      return token;
    }
  }

  @Override
  public synchronized void close() {
    renewer.shutdownNow();
    clients.values().forEach(KubernetesClient::close);
    clients.clear();
  }
}
