package io.ccm4j.runtime.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

  /**
   * The kubeconfig naming an exec credential plugin is deleted while the manager runs, and the API
   * server refuses the credential in hand: the plugin is run again from the kubeconfig as read at
   * start (client-go never reads the file again), where fabric8 would read the missing file, log
   * its failure and answer with the refused credential, for good.
   */
  @Test
  void aKubeconfigDeletedWhileRunningStillRunsItsExecPluginForANewCredential(@TempDir Path dir)
      throws Exception {
    Path plugin = dir.resolve("credential-plugin.sh");
    writeCountingPlugin(plugin, dir.resolve("issued"));
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
        users:
        - name: u
          user:
            exec: {apiVersion: client.authentication.k8s.io/v1, command: %s, interactiveMode: Never}
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """
            .formatted(plugin));
    Config config = Config.fromKubeconfig(kubeconfig.toFile());
    assertThat(config.getAutoOAuthToken()).isEqualTo("token-1");
    CredentialRefresh refresh =
        new CredentialRefresh(new TokenRefreshInterceptor(config, null, Instant.now()), config);

    Files.delete(kubeconfig);
    Headers before = new Headers();
    refresh.before(before, null, null);
    Headers retry = new Headers();
    CompletableFuture<Boolean> retried = refresh.afterFailure(retry, unauthorized(), null);

    assertThat(before.authorization).isEqualTo("Bearer token-1");
    assertThat(retried).isCompletedWithValue(true);
    assertThat(retry.authorization).isEqualTo("Bearer token-2");
  }

  /**
   * As above, with the plugin named by a path relative to the kubeconfig's directory (the manager's
   * working directory is elsewhere): client-go resolves it against that directory when it reads the
   * file, so the plugin is found after the file is gone.
   */
  @Test
  void aKubeconfigDeletedWhileRunningStillFindsItsPluginByAPathRelativeToIt(@TempDir Path dir)
      throws Exception {
    Path plugin = dir.resolve("bin").resolve("credential-plugin.sh");
    Files.createDirectories(plugin.getParent());
    writeCountingPlugin(plugin, dir.resolve("issued"));
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
        users:
        - name: u
          user:
            exec:
              apiVersion: client.authentication.k8s.io/v1
              command: ./bin/credential-plugin.sh
              interactiveMode: Never
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """);
    assertThat(Path.of("").toAbsolutePath()).isNotEqualTo(dir.toAbsolutePath());
    Config config = Config.fromKubeconfig(kubeconfig.toFile());
    assertThat(config.getAutoOAuthToken()).isEqualTo("token-1");
    CredentialRefresh refresh =
        new CredentialRefresh(new TokenRefreshInterceptor(config, null, Instant.now()), config);

    Files.delete(kubeconfig);
    Headers retry = new Headers();
    CompletableFuture<Boolean> retried = refresh.afterFailure(retry, unauthorized(), null);

    assertThat(retried).isCompletedWithValue(true);
    assertThat(retry.authorization).isEqualTo("Bearer token-2");
  }

  /** A command with no path separator is a name on the PATH, left as written (client-go's). */
  @Test
  void onlyAnExecCommandWithAPathSeparatorIsResolvedAgainstTheKubeconfigsDirectory() {
    String kubeconfig =
        """
        apiVersion: v1
        kind: Config
        users:
        - {name: relative, user: {exec: {command: ./bin/plugin}}}
        - {name: nested, user: {exec: {command: tools/../bin/plugin}}}
        - {name: absolute, user: {exec: {command: /usr/bin/plugin}}}
        - {name: on-path, user: {exec: {command: gke-gcloud-auth-plugin}}}
        """;

    var resolved =
        io.fabric8.kubernetes.client.internal.KubeConfigUtils.parseConfigFromString(
            CredentialRefresh.KubeconfigAtStart.withExecCommandsResolved(
                kubeconfig, Path.of("/etc/ccm/kubeconfig")));

    assertThat(resolved.getUsers())
        .extracting(user -> user.getUser().getExec().getCommand())
        .containsExactly(
            "/etc/ccm/bin/plugin",
            "/etc/ccm/bin/plugin",
            "/usr/bin/plugin",
            "gke-gcloud-auth-plugin");
  }

  /** What an interceptor sets on a request: its Authorization header. */
  private static final class Headers implements BasicBuilder {
    String authorization;

    @Override
    public BasicBuilder uri(URI uri) {
      return this;
    }

    @Override
    public BasicBuilder header(String name, String value) {
      return setHeader(name, value);
    }

    @Override
    public BasicBuilder setHeader(String name, String value) {
      if (name.equals("Authorization")) {
        authorization = value;
      }
      return this;
    }
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

  /** An exec credential plugin that issues token-1, token-2, ... counting in {@code counter}. */
  private static void writeCountingPlugin(Path plugin, Path counter) throws IOException {
    Files.writeString(counter, "0");
    Files.writeString(
        plugin,
        """
        #!/bin/sh
        n=$(($(cat %s) + 1)); echo $n > %s
        echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",\
        "status":{"token":"token-'$n'"}}'
        """
            .formatted(counter, counter));
    Files.setPosixFilePermissions(plugin, PosixFilePermissions.fromString("rwx------"));
  }
}
