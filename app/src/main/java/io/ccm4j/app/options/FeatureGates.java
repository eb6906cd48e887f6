package io.ccm4j.app.options;

import io.ccm4j.controllers.network.NetworkSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code --feature-gates} as upstream's manager reads it: {@code Name=bool} pairs separated by
 * commas, the bool in Go's spellings, each occurrence of the flag adding its pairs; a name its
 * feature gate does not know is an error, and so is a locked gate set off its default. A gate ccm4j
 * does not implement is accepted at its default (upstream then changes nothing either) and refused
 * otherwise, naming it.
 */
final class FeatureGates {

  /** A gate of the upstream manager's feature gate (Kubernetes 1.37). */
  record Gate(String name, boolean byDefault, String stage, boolean locked) {}

  /** Released by ccm4j on every clean stop (docs/running.md), whatever the gate says. */
  static final String RELEASE_LEASE_ON_EXIT = "ControllerManagerReleaseLeaderElectionLockOnExit";

  /** The gates ccm4j honours whichever way they are set. */
  private static final Set<String> IMPLEMENTED =
      Set.of(NetworkSettings.WATCH_BASED_ROUTES_GATE, RELEASE_LEASE_ON_EXIT);

  /**
   * The gates upstream's cloud-controller-manager knows at 1.37 (k8s.io/apiserver's
   * DefaultFeatureGate, with component-base's logging gates and cloud-provider's own).
   */
  static final Map<String, Gate> UPSTREAM =
      Stream.of(
              gate("APIResponseCompression", true, "BETA", false),
              gate("APIServerIdentity", true, "BETA", false),
              gate("APIServerWebhookAuthenticationToken", false, "ALPHA", false),
              gate("APIServingWithRoutine", false, "ALPHA", false),
              gate("AggregatedDiscoveryRemoveBetaType", true, "DEPRECATED", true),
              gate("AllAlpha", false, "ALPHA", false),
              gate("AllBeta", false, "BETA", false),
              gate("AllowParsingUserUIDFromCertAuth", true, "BETA", false),
              gate("AllowUnsafeMalformedObjectDeletion", true, "BETA", false),
              gate("CBORServingAndStorage", false, "ALPHA", false),
              gate("CloudControllerManagerWatchBasedRoutesReconciliation", false, "ALPHA", false),
              gate("CloudControllerManagerWebhook", false, "ALPHA", false),
              gate("ComponentFlagz", true, "BETA", false),
              gate("ComponentStatusz", true, "BETA", false),
              gate("ConcurrentWatchObjectDecode", true, "BETA", false),
              gate("ConsistentListFromCacheSkipTimeoutFallback", false, "ALPHA", false),
              gate("ConstrainedImpersonation", true, "BETA", false),
              gate("ContextualLogging", true, "BETA", false),
              gate("ControllerManagerReleaseLeaderElectionLockOnExit", false, "ALPHA", false),
              gate("CoordinatedLeaderElection", false, "BETA", false),
              gate("DeclarativeValidation", true, "GA", true),
              gate("DeclarativeValidationBeta", true, "BETA", false),
              gate("DeclarativeValidationTakeover", false, "DEPRECATED", true),
              gate("DetectCacheInconsistency", true, "BETA", false),
              gate("EtcdRangeStream", true, "BETA", false),
              gate("ExcludeAdmissionWebhookVirtualResources", true, "BETA", false),
              gate("KMSv1", false, "DEPRECATED", false),
              gate("ListFromCacheSnapshot", true, "BETA", false),
              gate("LoggingAlphaOptions", false, "ALPHA", false),
              gate("LoggingBetaOptions", true, "BETA", false),
              gate("ManifestBasedAdmissionControlConfig", true, "BETA", false),
              gate("MutatingAdmissionPolicy", true, "GA", false),
              gate("NativeHistograms", true, "BETA", false),
              gate("OpenAPIEnums", true, "BETA", false),
              gate("RemoteRequestHeaderUID", true, "BETA", false),
              gate("SeparateCacheWatchRPC", false, "DEPRECATED", true),
              gate("ShardedListAndWatch", false, "ALPHA", false),
              gate("SizeBasedListCostEstimate", true, "BETA", false),
              gate("StorageVersionAPI", false, "ALPHA", false),
              gate("StorageVersionHash", true, "BETA", false),
              gate("StructuredAuthenticationConfigurationEgressSelector", true, "BETA", false),
              gate("StructuredAuthenticationConfigurationJWKSMetrics", true, "BETA", false),
              gate("TokenRequestServiceAccountUIDValidation", true, "BETA", false),
              gate("UnauthenticatedHTTP2DOSMitigation", true, "BETA", false),
              gate("UnknownVersionInteroperabilityProxy", true, "BETA", false),
              gate("WatchCacheInitializationPostStartHook", true, "GA", true),
              gate("WatchList", true, "BETA", false),
              gate("WatchListCompression", true, "BETA", false),
              gate("WebhookRoundTripLoadBalancing", true, "BETA", false))
          .collect(Collectors.toUnmodifiableMap(Gate::name, Function.identity()));

  private FeatureGates() {}

  private static Gate gate(String name, boolean byDefault, String stage, boolean locked) {
    return new Gate(name, byDefault, stage, locked);
  }

  /**
   * The gates set by the flag's occurrences, later settings winning.
   *
   * @throws IllegalArgumentException with upstream's reason, without the flag's name
   */
  static Map<String, Boolean> parse(List<String> occurrences) {
    Map<String, Boolean> gates = new LinkedHashMap<>();
    GoBool bool = new GoBool();
    for (String occurrence : occurrences) {
      for (String pair : occurrence.split(",", -1)) {
        if (pair.isEmpty()) {
          continue;
        }
        String[] parts = pair.split("=", 2);
        String name = parts[0].trim();
        if (parts.length != 2) {
          throw new IllegalArgumentException("missing bool value for " + name);
        }
        String value = parts[1].trim();
        try {
          gates.put(name, bool.convert(value));
        } catch (RuntimeException e) {
          throw new IllegalArgumentException(
              "invalid value of %s=%s: %s".formatted(name, value, e.getMessage()));
        }
      }
    }
    return gates;
  }

  /** Why ccm4j cannot run with {@code gates}, without the flag's name; empty when it can. */
  static Optional<String> problem(Map<String, Boolean> gates) {
    for (Map.Entry<String, Boolean> setting : gates.entrySet()) {
      Gate gate = UPSTREAM.get(setting.getKey());
      boolean value = setting.getValue();
      if (gate == null) {
        return Optional.of("unrecognized feature gate: " + setting.getKey());
      }
      if (gate.locked() && value != gate.byDefault()) {
        return Optional.of(
            "cannot set feature gate %s to %s, feature is locked to %s"
                .formatted(gate.name(), value, gate.byDefault()));
      }
      if (!IMPLEMENTED.contains(gate.name()) && value != gate.byDefault()) {
        return Optional.of(
            "%s=%s: ccm4j does not implement %s; leave it at its default, %s"
                .formatted(gate.name(), value, gate.name(), gate.byDefault()));
      }
    }
    return Optional.empty();
  }
}
