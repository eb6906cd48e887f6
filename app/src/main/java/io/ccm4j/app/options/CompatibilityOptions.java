package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.GoDurations;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Upstream flags that common CCM manifests pass and that change nothing in ccm4j, as they change
 * nothing in upstream's manager in the same situation: accepted, so such a manifest runs (and the
 * lab can run it), and checked, so a value that would mean something ccm4j does not do is an error.
 */
public final class CompatibilityOptions {

  @Option(
      names = "--webhook-secure-port",
      converter = GoInt.class,
      paramLabel = "<port>",
      defaultValue = "10260",
      description =
          "Accepted for compatibility: ccm4j has no webhooks, so no webhook server starts (as"
              + " upstream's without its CloudControllerManagerWebhook gate). As upstream's, it"
              + " must differ from --secure-port unless 0. Default: ${DEFAULT-VALUE}.")
  int webhookSecurePort;

  @Option(
      names = "--webhooks",
      paramLabel = "<name>",
      description = "Must be empty: ccm4j implements no webhooks.")
  List<String> webhooks = List.of();

  @Option(
      names = "--authentication-skip-lookup",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description =
          "Accepted for compatibility: ccm4j never looks up the client CA (it authenticates bearer"
              + " tokens only).")
  boolean authenticationSkipLookup;

  @Option(
      names = "--node-sync-period",
      paramLabel = "<duration>",
      defaultValue = "0s",
      converter = GoDurationConverter.class,
      description = "Deprecated and without effect, as upstream's.")
  Duration nodeSyncPeriod;

  @Option(
      names = "--cidr-allocator-type",
      paramLabel = "<type>",
      defaultValue = "RangeAllocator",
      description =
          "Node IPAM's allocator: only RangeAllocator (the default) exists. Default:"
              + " ${DEFAULT-VALUE}.")
  String cidrAllocatorType;

  // Serving, authentication and authorization (k8s.io/apiserver's options).

  @Option(
      names = "--authentication-tolerate-lookup-failure",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description = "Accepted for compatibility: ccm4j looks nothing up to fail at.")
  boolean authenticationTolerateLookupFailure;

  @Option(
      names = {
        "--requestheader-allowed-names",
        "--requestheader-extra-headers-prefix",
        "--requestheader-group-headers",
        "--requestheader-uid-headers",
        "--requestheader-username-headers"
      },
      paramLabel = "<list>",
      description =
          "Accepted for compatibility: they take effect only with a request-header client CA,"
              + " which ccm4j never has (see --requestheader-client-ca-file).")
  List<String> requestHeaderOptions = List.of();

  @Option(
      names = "--requestheader-client-ca-file",
      paramLabel = "<file>",
      converter = EmptyIsUnset.Text.class,
      description =
          "Refused: ccm4j takes no user from an authenticating proxy's request headers; it"
              + " authenticates client certificates (--client-ca-file) and bearer tokens.")
  String requestHeaderClientCaFile;

  @Option(
      names = "--authentication-token-webhook-cache-ttl",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description = "How long token reviews are cached: 10s (upstream's default) only.")
  Duration tokenReviewCacheTtl = REVIEW_CACHE_TTL;

  @Option(
      names = "--authorization-webhook-cache-authorized-ttl",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description = "How long allowing access reviews are cached: 10s (upstream's default) only.")
  Duration authorizedCacheTtl = REVIEW_CACHE_TTL;

  @Option(
      names = "--authorization-webhook-cache-unauthorized-ttl",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description = "How long denying access reviews are cached: 10s (upstream's default) only.")
  Duration unauthorizedCacheTtl = REVIEW_CACHE_TTL;

  @Option(
      names = "--tls-sni-cert-key",
      paramLabel = "<certfile,keyfile[:names]>",
      description = "Refused: ccm4j serves one certificate (--tls-cert-file).")
  String tlsSniCertKey;

  @Option(
      names = "--disable-http2-serving",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description = "Accepted for compatibility: ccm4j serves HTTP/1.1 only.")
  boolean disableHttp2Serving;

  @Option(
      names = "--webhook-disable-http2-serving",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description = "Accepted for compatibility: ccm4j starts no webhook server.")
  boolean webhookDisableHttp2Serving;

  @Option(
      names = "--http2-max-streams-per-connection",
      converter = GoInt.class,
      paramLabel = "<n>",
      defaultValue = "0",
      description = "Accepted for compatibility: ccm4j serves HTTP/1.1 only.")
  int http2MaxStreamsPerConnection;

  @Option(
      names = "--permit-address-sharing",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description = "Only false (the default): ccm4j's listener takes no socket options.")
  boolean permitAddressSharing;

  @Option(
      names = "--permit-port-sharing",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description = "Only false (the default): ccm4j's listener takes no socket options.")
  boolean permitPortSharing;

  @Option(
      names = "--profiling",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "true",
      paramLabel = "<bool>",
      description =
          "Accepted for compatibility: ccm4j serves no /debug/pprof (Go's profiler); profile the"
              + " JVM with Java Flight Recorder instead.")
  boolean profiling;

  @Option(
      names = "--contention-profiling",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description = "Accepted for compatibility, as --profiling.")
  boolean contentionProfiling;

  @Option(
      names = {
        "--webhook-bind-address",
        "--webhook-cert-dir",
        "--webhook-tls-cert-file",
        "--webhook-tls-private-key-file",
        "--webhook-tls-cipher-suites",
        "--webhook-tls-curve-preferences",
        "--webhook-tls-min-version",
        "--webhook-tls-sni-cert-key"
      },
      paramLabel = "<value>",
      description = "Accepted for compatibility: ccm4j starts no webhook server.")
  List<String> webhookServing = List.of();

  // Generic controller-manager options (k8s.io/controller-manager, k8s.io/cloud-provider).

  @Option(
      names = "--external-cloud-volume-plugin",
      paramLabel = "<plugin>",
      description =
          "Accepted for compatibility: read by kube-controller-manager only, never by a cloud"
              + " controller manager.")
  String externalCloudVolumePlugin;

  @Option(
      names = "--enable-leader-migration",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description =
          "Only false (the default): ccm4j does not take part in leader migration from"
              + " kube-controller-manager.")
  boolean enableLeaderMigration;

  @Option(
      names = "--leader-migration-config",
      paramLabel = "<file>",
      description =
          "Accepted for compatibility: read only with --enable-leader-migration, as upstream's.")
  String leaderMigrationConfig;

  @Option(
      names = "--concurrent-node-lifecycle-syncs",
      converter = GoInt.class,
      paramLabel = "<n>",
      defaultValue = "1",
      description =
          "Accepted for compatibility (at least 1): ccm4j's cloud-node-lifecycle controller asks"
              + " the cloud about NotReady nodes in bulk calls, not with per-node workers.")
  int concurrentNodeLifecycleSyncs;

  @Option(
      names = "--min-resync-period",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description = "12h only (upstream's default): ccm4j's informers resync every 12h.")
  Duration minResyncPeriod = MIN_RESYNC_PERIOD;

  @Option(
      names = "--controller-start-interval",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description = "0 only (upstream's default): ccm4j starts its controllers together.")
  Duration controllerStartInterval = Duration.ZERO;

  // Logging (k8s.io/component-base's logs options).

  @Option(
      names = "--log-flush-frequency",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description = "Accepted for compatibility: ccm4j writes each log record at once.")
  Duration logFlushFrequency;

  @Option(
      names = "--logging-format",
      paramLabel = "<format>",
      defaultValue = "text",
      description =
          "text only: for JSON, put a logback.xml with a JSON encoder on the class path (or name"
              + " one with -Dlogback.configurationFile).")
  String loggingFormat;

  @Option(
      names = "--log-text-split-stream",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description =
          "Only false: upstream needs its LoggingAlphaOptions gate for it, which ccm4j does not"
              + " implement.")
  boolean logTextSplitStream;

  @Option(
      names = "--log-text-info-buffer-size",
      paramLabel = "<size>",
      defaultValue = "0",
      description =
          "Only 0: upstream needs its LoggingAlphaOptions gate for it, which ccm4j does not"
              + " implement.")
  String logTextInfoBufferSize;

  @Option(
      names = "--vmodule",
      paramLabel = "<pattern=N,...>",
      description =
          "Accepted for compatibility: klog's per-file verbosity matches Go source files, of which"
              + " ccm4j has none; use -v.")
  String vmodule;

  // Flags upstream's manager no longer has, which older manifests still pass: refused, as
  // upstream refuses them, but saying what they were and what to do.

  @Option(names = "--address", hidden = true)
  String removedAddress;

  @Option(names = "--port", hidden = true)
  String removedPort;

  private static final Duration REVIEW_CACHE_TTL = Duration.ofSeconds(10);
  private static final Duration MIN_RESYNC_PERIOD = Duration.ofHours(12);

  /**
   * Upstream refuses a webhook port that is the serving port ({@code options/options.go}), its
   * default 10260 included, though no webhook server starts without its feature gate: so does
   * ccm4j, which starts none, so that a manifest means what it meant upstream.
   */
  public Optional<String> validateWebhookPort(ServingOptions serving) {
    if (webhookSecurePort != 0 && webhookSecurePort == serving.securePort) {
      return Optional.of(
          ("--webhook-secure-port cannot be the same value as --secure-port (%d), as upstream's"
                  + " (its default is 10260); give another, or --webhook-secure-port=0")
              .formatted(webhookSecurePort));
    }
    return Optional.empty();
  }

  public Optional<String> validate() {
    if (webhookSecurePort < 0 || webhookSecurePort > 65535) {
      return Optional.of(
          "--webhook-secure-port must be between 0 and 65535, got " + webhookSecurePort);
    }
    List<String> named;
    try {
      named =
          GoCsv.fields("--webhooks", webhooks).stream()
              .map(String::trim)
              .filter(w -> !w.isEmpty())
              .toList();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
    if (!named.isEmpty()) {
      return Optional.of("--webhooks: ccm4j implements no webhooks, got " + named);
    }
    if (removedAddress != null || removedPort != null) {
      return Optional.of(
          ("%s: upstream's manager no longer has it (it set the insecure HTTP port, which is"
                  + " gone) and exits on it; ccm4j serves only HTTPS on --bind-address:--secure-port:"
                  + " drop it")
              .formatted(removedAddress != null ? "--address" : "--port"));
    }
    if (requestHeaderClientCaFile != null) {
      return Optional.of(
          "--requestheader-client-ca-file: ccm4j takes no user from an authenticating proxy's"
              + " request headers on its serving port; it authenticates client certificates"
              + " (--client-ca-file) and bearer tokens (TokenReview): drop the flag");
    }
    for (var ttl :
        List.of(
            Map.entry("--authentication-token-webhook-cache-ttl", tokenReviewCacheTtl),
            Map.entry("--authorization-webhook-cache-authorized-ttl", authorizedCacheTtl),
            Map.entry("--authorization-webhook-cache-unauthorized-ttl", unauthorizedCacheTtl))) {
      if (!ttl.getValue().equals(REVIEW_CACHE_TTL)) {
        return Optional.of(
            "%s: ccm4j caches token and access reviews for 10s (upstream's default) only, got %s"
                .formatted(ttl.getKey(), GoDurations.format(ttl.getValue())));
      }
    }
    if (tlsSniCertKey != null) {
      return Optional.of(
          "--tls-sni-cert-key: ccm4j serves one certificate; give it with --tls-cert-file and"
              + " --tls-private-key-file");
    }
    if (permitAddressSharing || permitPortSharing) {
      return Optional.of(
          "%s: ccm4j's listener (the JDK's HTTPS server) cannot share its address or port"
              .formatted(
                  permitAddressSharing ? "--permit-address-sharing" : "--permit-port-sharing"));
    }
    if (enableLeaderMigration) {
      return Optional.of(
          "--enable-leader-migration: ccm4j does not take part in leader migration from"
              + " kube-controller-manager; migrate the cloud controllers with the"
              + " kube-controller-manager's cloud provider off first");
    }
    if (concurrentNodeLifecycleSyncs < 1) {
      return Optional.of(
          "--concurrent-node-lifecycle-syncs must be at least 1, but got "
              + concurrentNodeLifecycleSyncs);
    }
    if (!minResyncPeriod.equals(MIN_RESYNC_PERIOD)) {
      return Optional.of(
          "--min-resync-period: ccm4j's informers resync every 12h (upstream's default) only, got "
              + GoDurations.format(minResyncPeriod));
    }
    if (!controllerStartInterval.isZero()) {
      return Optional.of(
          "--controller-start-interval: ccm4j starts its controllers together (upstream's"
              + " default, 0) only, got "
              + GoDurations.format(controllerStartInterval));
    }
    if (!loggingFormat.equals("text")) {
      return Optional.of(
          ("--logging-format: ccm4j logs text only, got %s; for JSON put a logback.xml with a"
                  + " JSON encoder on the class path")
              .formatted(loggingFormat));
    }
    if (logTextSplitStream || !logTextInfoBufferSize.equals("0")) {
      return Optional.of(
          "%s: upstream allows it only with its LoggingAlphaOptions feature gate, which ccm4j does not implement"
              .formatted(
                  logTextSplitStream ? "--log-text-split-stream" : "--log-text-info-buffer-size"));
    }
    if (vmodule != null && !vmodule.isEmpty()) {
      for (String setting : vmodule.split(",", -1)) {
        if (!setting.matches("[^=]+=\\d+")) {
          return Optional.of(
              "--vmodule: \"%s\" does not have the pattern=N format".formatted(setting));
        }
      }
    }
    if (!cidrAllocatorType.equals("RangeAllocator")) {
      return Optional.of(
          "--cidr-allocator-type: only RangeAllocator is supported, got " + cidrAllocatorType);
    }
    return Optional.empty();
  }
}
