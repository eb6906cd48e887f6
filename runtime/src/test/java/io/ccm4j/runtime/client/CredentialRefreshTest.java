package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CredentialRefreshTest {

  /** fabric8's refresh when the exec credential plugin fails: it throws. */
  private static final Interceptor FAILING_REFRESH =
      new Interceptor() {
        @Override
        public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
          throw new KubernetesClientException("exec plugin: credential backend down");
        }

        @Override
        public CompletableFuture<Boolean> afterFailure(
            BasicBuilder builder, HttpResponse<?> response, RequestTags tags) {
          throw new KubernetesClientException("exec plugin: credential backend down");
        }
      };

  @Test
  void aRefreshThatFailsBeforeARequestLetsItGoWithTheCredentialsInHand() {
    CredentialRefresh refresh = new CredentialRefresh(FAILING_REFRESH, Config.empty());

    assertThatCode(() -> refresh.before(null, null, null)).doesNotThrowAnyException();
  }

  @Test
  void aRefreshThatFailsAfterTheServerRejectedTheCredentialsFailsTheRequestNotTheCaller() {
    CredentialRefresh refresh = new CredentialRefresh(FAILING_REFRESH, Config.empty());

    CompletableFuture<Boolean> retried = refresh.afterFailure(null, unauthorized(), null);

    assertThat(retried)
        .failsWithin(java.time.Duration.ZERO)
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isInstanceOf(KubernetesClientException.class)
        .withMessage(
            "HTTP 401 from /api/v1/nodes and the credentials cannot be refreshed:"
                + " exec plugin: credential backend down");
  }

  @Test
  void aRefreshThatWorksAnswersAsFabric8s() {
    CredentialRefresh refresh =
        new CredentialRefresh(
            new Interceptor() {
              @Override
              public CompletableFuture<Boolean> afterFailure(
                  BasicBuilder builder, HttpResponse<?> response, RequestTags tags) {
                return CompletableFuture.completedFuture(true);
              }
            },
            Config.empty());

    assertThat(refresh.afterFailure(null, unauthorized(), null)).isCompletedWithValue(true);
  }

  /** A 401 tells a token provider that can get another, before fabric8 asks it again. */
  @Test
  void aRefusedTokenIsToldSoItsProviderGetsAnother() {
    AtomicInteger refusals = new AtomicInteger();
    Config config = Config.empty();
    config.setOauthTokenProvider(
        new CredentialRefresh.RefusableToken() {
          @Override
          public String getToken() {
            return "token";
          }

          @Override
          public void refused() {
            refusals.incrementAndGet();
          }
        });
    CredentialRefresh refresh =
        new CredentialRefresh(
            new Interceptor() {
              @Override
              public CompletableFuture<Boolean> afterFailure(
                  BasicBuilder builder, HttpResponse<?> response, RequestTags tags) {
                return CompletableFuture.completedFuture(true);
              }
            },
            config);

    refresh.afterFailure(null, unauthorized(), null);

    assertThat(refusals).hasValue(1);
  }

  private static HttpResponse<?> unauthorized() {
    HttpRequest request =
        (HttpRequest)
            Proxy.newProxyInstance(
                CredentialRefreshTest.class.getClassLoader(),
                new Class<?>[] {HttpRequest.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("uri")) {
                    return URI.create("https://127.0.0.1:6443/api/v1/nodes?watch=true");
                  }
                  throw new UnsupportedOperationException(method.getName());
                });
    return (HttpResponse<?>)
        Proxy.newProxyInstance(
            CredentialRefreshTest.class.getClassLoader(),
            new Class<?>[] {HttpResponse.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "code" -> 401;
                  case "request" -> request;
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }
}
