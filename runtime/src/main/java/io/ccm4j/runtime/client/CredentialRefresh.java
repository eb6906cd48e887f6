package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.OAuthTokenProvider;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * fabric8's credential refresh (its {@code TokenRefreshInterceptor}: an exec credential plugin run
 * again, the kubeconfig read again, a token provider asked), with its failures kept off the caller.
 *
 * <p>fabric8 refreshes before a request once a minute, and a refresh that fails throws there, in
 * the thread that sends the request. An informer relisting from its reconnect timer loses that
 * exception: it neither retries nor stops, and goes without a watch for good. Here a failed refresh
 * before a request lets the request go with the credential in hand (which may well still be valid:
 * client-go also keeps using a cached credential until it is rejected); a refresh that fails after
 * the API server rejected the credential (401) fails that request, so the caller's own retry and
 * backoff (an informer's: 1 s doubling to 32 s) take over, as in client-go.
 */
public final class CredentialRefresh implements Interceptor {

  private static final Logger log = LoggerFactory.getLogger(CredentialRefresh.class);

  /**
   * A token provider that is told when the API server refused its token (401), so it can get
   * another, as client-go's token source transport resets its cached token on a 401.
   */
  public interface RefusableToken extends OAuthTokenProvider {
    void refused();
  }

  private final Interceptor refresh;
  private final Config config;
  private final AtomicBoolean failing = new AtomicBoolean();

  CredentialRefresh(Interceptor refresh, Config config) {
    this.refresh = refresh;
    this.config = config;
  }

  /** In place of fabric8's own, under its name, for a client on {@code config}. */
  public static void install(HttpClient.Builder http, Config config, HttpClient.Factory factory) {
    http.addOrReplaceInterceptor(
        TokenRefreshInterceptor.NAME,
        new CredentialRefresh(new TokenRefreshInterceptor(config, factory, Instant.now()), config));
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    try {
      refresh.before(builder, request, tags);
      if (failing.compareAndSet(true, false)) {
        log.info("refreshing the credentials works again");
      }
    } catch (RuntimeException e) {
      if (failing.compareAndSet(false, true)) {
        log.warn("cannot refresh the credentials, using the ones in hand: {}", e.getMessage());
      }
    }
  }

  @Override
  public CompletableFuture<Boolean> afterFailure(
      BasicBuilder builder, HttpResponse<?> response, RequestTags tags) {
    if (response.code() == 401 && config.getOauthTokenProvider() instanceof RefusableToken token) {
      token.refused();
    }
    try {
      return refresh.afterFailure(builder, response, tags);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(
          new KubernetesClientException(
              "HTTP %d from %s and the credentials cannot be refreshed: %s"
                  .formatted(response.code(), response.request().uri().getPath(), e.getMessage()),
              e));
    }
  }
}
