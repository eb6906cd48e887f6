package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.GoDurations;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.tls.KubeconfigCredentials;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/** How to reach the API server. */
public final class KubeClientOptions {

  @Option(
      names = "--kubeconfig",
      paramLabel = "<file>",
      converter = EmptyIsUnset.File.class,
      description =
          "Path to a kubeconfig. Without it and --master, the in-cluster configuration is used.")
  Path kubeconfig;

  @Option(
      names = "--master",
      paramLabel = "<url>",
      converter = EmptyIsUnset.Text.class,
      description =
          "The address of the API server (overrides the kubeconfig's); without a scheme, https"
              + " when TLS is configured, else http, as client-go.")
  String master;

  @Option(
      names = "--kube-api-qps",
      paramLabel = "<qps>",
      defaultValue = "20",
      description = "Requests per second to the API server. Default: ${DEFAULT-VALUE}.")
  double qps;

  @Option(
      names = "--kube-api-burst",
      converter = GoInt.class,
      paramLabel = "<n>",
      defaultValue = "30",
      description = "Burst of requests to the API server. Default: ${DEFAULT-VALUE}.")
  int burst;

  @Option(
      names = "--kube-api-content-type",
      paramLabel = "<type>",
      defaultValue = KubeApiContentType.DEFAULT_MEDIA_TYPE,
      description =
          "The wire format of the Node list and watch, the node controller's Node writes and"
              + " events: application/vnd.kubernetes.protobuf or application/json (all other"
              + " requests are JSON). Default: ${DEFAULT-VALUE}.")
  String contentType;

  @Option(
      names = "--informer-stall-timeout",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "How long a shared informer may go without a watch (its reconnects back off up to 32s)"
              + " before the health checks of the controllers that use it fail; at least 1s."
              + " Default: ${DEFAULT-VALUE}.")
  Duration informerStallTimeout;

  @Option(
      names = "--use-service-account-credentials",
      paramLabel = "<bool>",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      descriptionKey = "use-service-account-credentials") // RunHelp: accounts from Controllers.ALL
  boolean useServiceAccountCredentials;

  public boolean useServiceAccountCredentials() {
    return useServiceAccountCredentials;
  }

  public Optional<String> validate() {
    if (!(qps > 0)) {
      return Optional.of("--kube-api-qps must be greater than 0, got " + qps);
    }
    if (burst < 1) {
      return Optional.of("--kube-api-burst must be at least 1, got " + burst);
    }
    try {
      KubeApiContentType.of(contentType);
    } catch (IllegalArgumentException e) {
      return Optional.of("--kube-api-content-type " + e.getMessage());
    }
    if (informerStallTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      return Optional.of(
          "--informer-stall-timeout must be at least 1s, got "
              + GoDurations.format(informerStallTimeout));
    }
    if (kubeconfig != null) {
      Optional<String> problem = Kubeconfigs.problem(kubeconfig, master != null);
      if (problem.isPresent()) {
        return Optional.of("--kubeconfig: " + problem.get());
      }
    }
    return Optional.empty();
  }

  /** The client configuration: kubeconfig, else in-cluster (fabric8's auto-configuration). */
  public Config clientConfig() {
    Config config;
    if (kubeconfig != null) {
      config = fromKubeconfig("--kubeconfig", kubeconfig);
    } else if (master == null && !inCluster() && !kubeconfigAround()) {
      // Upstream says so at once; fabric8 would try https://kubernetes.default.svc for a minute.
      throw new IllegalArgumentException(
          "neither --kubeconfig nor --master is given and this is no pod (KUBERNETES_SERVICE_HOST"
              + " and KUBERNETES_SERVICE_PORT are not set)");
    } else {
      config = Config.autoConfigure(null);
    }
    if (master != null) {
      config = new ConfigBuilder(config).withMasterUrl(withScheme(master, config)).build();
    }
    return config;
  }

  /**
   * {@code --master} as a URL, its scheme chosen as client-go's {@code DefaultServerUrlFor} does
   * when none is given: https when the configuration has a CA, a client certificate or skips
   * verification, else http. fabric8 would instead try a TLS handshake with the address while the
   * flags are read, and take http for good if it failed: an API server not up yet at the manager's
   * start (a static pod's usual order) left every request of the process on the wrong scheme.
   */
  static String withScheme(String master, Config config) {
    if (master.contains("://")) {
      return master;
    }
    boolean tls =
        config.getCaCertFile() != null
            || config.getCaCertData() != null
            || config.getClientCertFile() != null
            || config.getClientCertData() != null
            || config.isTrustCerts();
    return (tls ? "https://" : "http://") + master;
  }

  private static boolean inCluster() {
    return System.getenv("KUBERNETES_SERVICE_HOST") != null
        && System.getenv("KUBERNETES_SERVICE_PORT") != null;
  }

  /** A kubeconfig fabric8's auto-configuration reads: $KUBECONFIG or ~/.kube/config. */
  private static boolean kubeconfigAround() {
    return System.getenv("KUBECONFIG") != null
        || Files.isReadable(Path.of(System.getProperty("user.home"), ".kube", "config"));
  }

  /**
   * The configuration a kubeconfig file gives, with what fabric8 leaves out of it (the user's token
   * file, a PKCS#8 key's algorithm: {@link KubeconfigCredentials}); the error names the flag.
   */
  public static Config fromKubeconfig(String flag, Path file) {
    Config config;
    try {
      if (!Files.isReadable(file)) {
        throw new IOException("no readable file");
      }
      config = Config.fromKubeconfig(file.toFile());
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(flag + ": cannot read " + file + ": " + e.getMessage(), e);
    }
    try {
      Path directory = file.toAbsolutePath().getParent();
      return KubeconfigCredentials.complete(
          config, KubeConfigUtils.parseConfig(file.toFile()), directory);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(flag + ": " + file + ": " + e.getMessage(), e);
    }
  }

  /** How long a shared informer may go without a watch before it counts as stalled. */
  public Duration informerStallTimeout() {
    return informerStallTimeout;
  }

  /** The wire format of the hot paths ({@code --kube-api-content-type}), once validated. */
  public KubeApiContentType contentType() {
    return KubeApiContentType.of(contentType);
  }

  public double qps() {
    return qps;
  }

  public int burst() {
    return burst;
  }
}
