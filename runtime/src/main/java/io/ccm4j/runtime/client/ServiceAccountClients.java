package io.ccm4j.runtime.client;

import io.ccm4j.cloudprovider.api.WellKnownNamespaces;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequest;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.OAuthTokenProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Upstream's {@code --use-service-account-credentials}: each controller talks to the API server as
 * a ServiceAccount of its own in {@code kube-system} (created when missing, as upstream's client
 * builder does), with tokens from the TokenRequest API renewed when 80 % of their hour has passed.
 * The manager's own credentials remain for the shared informers and the Lease, as upstream's.
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

  /**
   * @param root the manager's own client: it creates the ServiceAccounts and requests their tokens
   * @param qps the rate limit of each controller's client, as the manager's
   */
  public ServiceAccountClients(KubernetesClient root, double qps, int burst) {
    this(root, qps, burst, null, null);
  }

  /**
   * @param fence what the controllers' requests pass, or null
   * @param transport what the controllers' clients are built on, or null for their own
   */
  public ServiceAccountClients(
      KubernetesClient root, double qps, int burst, Fence fence, SharedTransport transport) {
    this.root = root;
    this.qps = qps;
    this.burst = burst;
    this.fence = fence;
    this.transport = transport;
  }

  /**
   * The client for a controller's ServiceAccount, created with it on first use.
   *
   * @throws KubernetesClientException when the ServiceAccount cannot be read or created (the
   *     manager's own role must allow {@code get} and {@code create} on serviceaccounts, and {@code
   *     create} on serviceaccounts/token, in kube-system)
   */
  public synchronized KubernetesClient forController(String serviceAccount) {
    KubernetesClient existing = clients.get(serviceAccount);
    if (existing != null) {
      return existing;
    }
    ensureServiceAccount(serviceAccount);
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
    config.setOauthTokenProvider(new RenewedToken(serviceAccount));
    KubernetesClient client =
        KubeClients.create(
            config, KubeClients.USER_AGENT + "/" + serviceAccount, qps, burst, fence, transport);
    clients.put(serviceAccount, client);
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

  /** A ServiceAccount token, requested again once 80 % of its lifetime has passed. */
  private final class RenewedToken implements OAuthTokenProvider {
    private final String serviceAccount;
    private String token;
    private Instant renewAt = Instant.MIN;

    RenewedToken(String serviceAccount) {
      this.serviceAccount = serviceAccount;
    }

    @Override
    public synchronized String getToken() {
      Instant now = Instant.now();
      if (token == null || !now.isBefore(renewAt)) {
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
        token = answer.getStatus().getToken();
        Instant expires =
            answer.getStatus().getExpirationTimestamp() == null
                ? now.plusSeconds(TOKEN_SECONDS)
                : Instant.parse(answer.getStatus().getExpirationTimestamp());
        renewAt = now.plus(Duration.between(now, expires).multipliedBy(4).dividedBy(5));
      }
      return token;
    }
  }

  @Override
  public synchronized void close() {
    clients.values().forEach(KubernetesClient::close);
    clients.clear();
  }
}
