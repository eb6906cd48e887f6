package io.ccm4j.runtime.client;

import io.fabric8.kubernetes.api.model.ExecConfig;
import io.fabric8.kubernetes.api.model.NamedAuthInfo;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.OAuthTokenProvider;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.kubernetes.client.utils.TokenRefreshInterceptor;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
 *
 * <p>fabric8 runs a kubeconfig's exec credential plugin again only by reading the kubeconfig file
 * again; client-go reads it once, at start. With the file deleted or unreadable while the manager
 * runs, fabric8 logs its failure at every refresh and keeps the credential in hand for good, so
 * once that expired every request was refused. Here the plugin is then run from the kubeconfig as
 * it was read when the client was made, as client-go runs it from memory; a plugin named by a
 * relative path is the kubeconfig directory's, resolved at start as client-go's loader does.
 */
public final class CredentialRefresh implements Interceptor {

  private static final Logger log = LoggerFactory.getLogger(CredentialRefresh.class);
  private static final String AUTHORIZATION = "Authorization";

  /**
   * A token provider that is told when the API server refused its token (401), so it can get
   * another, as client-go's token source transport resets its cached token on a 401.
   */
  public interface RefusableToken extends OAuthTokenProvider {
    void refused();
  }

  /** How often fabric8 refreshes a credential before a request; so does the refresh from start. */
  static final Duration REFRESH_INTERVAL = Duration.ofMinutes(1);

  private final Interceptor refresh;
  private final Config config;
  private final KubeconfigAtStart atStart;
  private final AtomicBoolean failing = new AtomicBoolean();
  private final AtomicBoolean fileGone = new AtomicBoolean();
  private volatile Instant lastRefreshFromStart = Instant.now();

  CredentialRefresh(Interceptor refresh, Config config) {
    this.refresh = refresh;
    this.config = config;
    this.atStart = KubeconfigAtStart.of(config);
  }

  /** In place of fabric8's own, under its name, for a client on {@code config}. */
  public static void install(HttpClient.Builder http, Config config, HttpClient.Factory factory) {
    http.addOrReplaceInterceptor(
        TokenRefreshInterceptor.NAME,
        new CredentialRefresh(new TokenRefreshInterceptor(config, factory, Instant.now()), config));
  }

  /**
   * The kubeconfig file a configuration was read from, as it was when the client was made: where
   * its exec credential plugin is run from once the file is gone. Only for a user whose token came
   * from reading the kubeconfig (an exec plugin), not a token written in it, a token provider or a
   * password.
   */
  record KubeconfigAtStart(Path file, String text) {

    static KubeconfigAtStart of(Config config) {
      File file = config.getFile();
      if (file == null
          || config.getAutoOAuthToken() == null
          || (config.getOauthToken() != null && !config.getOauthToken().isEmpty())
          || config.getOauthTokenProvider() != null
          || config.getUsername() != null) {
        return null;
      }
      try {
        Path path = file.toPath();
        return new KubeconfigAtStart(path, withExecCommandsResolved(Files.readString(path), path));
      } catch (IOException | RuntimeException e) {
        return null;
      }
    }

    /**
     * The kubeconfig with each exec plugin's relative command (one with a path separator; a bare
     * name is looked up on the PATH) made absolute against the file's directory, as client-go's
     * loader resolves it once when it reads the file. fabric8 does so only while reading the file
     * itself: from the text alone it would look for the plugin in the working directory.
     */
    static String withExecCommandsResolved(String text, Path file) {
      io.fabric8.kubernetes.api.model.Config kubeconfig =
          KubeConfigUtils.parseConfigFromString(text);
      Path directory = file.toAbsolutePath().getParent();
      boolean resolved = false;
      for (NamedAuthInfo user :
          kubeconfig.getUsers() == null ? List.<NamedAuthInfo>of() : kubeconfig.getUsers()) {
        ExecConfig exec = user.getUser() == null ? null : user.getUser().getExec();
        String command = exec == null ? null : exec.getCommand();
        if (command != null && command.contains(File.separator) && !Path.of(command).isAbsolute()) {
          exec.setCommand(directory.resolve(command).normalize().toString());
          resolved = true;
        }
      }
      return resolved ? Serialization.asJson(kubeconfig) : text;
    }

    boolean fileGone() {
      return !Files.isReadable(file) || Files.isDirectory(file);
    }

    /**
     * The token the kubeconfig as read at start gives now (its exec plugin run again, from its
     * current-context, which is the one ccm4j reads).
     */
    String token() {
      return Config.fromKubeconfig(text).getAutoOAuthToken();
    }
  }

  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    if (atStart != null && atStart.fileGone()) {
      if (fileGone.compareAndSet(false, true)) {
        log.warn(
            "the kubeconfig {} is gone or unreadable; its credentials are refreshed as it was read"
                + " at start",
            atStart.file());
      }
      if (Instant.now().isAfter(lastRefreshFromStart.plus(REFRESH_INTERVAL))) {
        refreshFromStart();
      }
      String token = config.getAutoOAuthToken();
      if (token != null && !token.isEmpty()) {
        builder.header(AUTHORIZATION, "Bearer " + token);
      }
      return;
    }
    if (atStart != null && fileGone.compareAndSet(true, false)) {
      log.info("the kubeconfig {} is readable again", atStart.file());
    }
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

  /** Runs the exec plugin of the kubeconfig as read at start; whether it gave a token. */
  private boolean refreshFromStart() {
    lastRefreshFromStart = Instant.now();
    try {
      String token = atStart.token();
      if (token == null || token.isEmpty()) {
        return false;
      }
      config.setAutoOAuthToken(token);
      if (failing.compareAndSet(true, false)) {
        log.info("refreshing the credentials works again");
      }
      return true;
    } catch (RuntimeException e) {
      if (failing.compareAndSet(false, true)) {
        log.warn("cannot refresh the credentials, using the ones in hand: {}", e.getMessage());
      }
      return false;
    }
  }

  @Override
  public CompletableFuture<Boolean> afterFailure(
      BasicBuilder builder, HttpResponse<?> response, RequestTags tags) {
    if (response.code() == 401 && config.getOauthTokenProvider() instanceof RefusableToken token) {
      token.refused();
    }
    if (atStart != null && atStart.fileGone()) {
      if (response.code() != 401 || !refreshFromStart()) {
        return CompletableFuture.completedFuture(false);
      }
      builder.setHeader(AUTHORIZATION, "Bearer " + config.getAutoOAuthToken());
      return CompletableFuture.completedFuture(true);
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
