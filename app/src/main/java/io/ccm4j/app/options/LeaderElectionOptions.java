package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.net.DnsNames;
import io.ccm4j.cloudprovider.net.Hostname;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import picocli.CommandLine.Option;

/** Leader election on a Lease (A5, §5). */
public final class LeaderElectionOptions {

  @Option(
      names = "--leader-elect",
      arity = "0..1",
      converter = GoBool.class,
      defaultValue = "true",
      fallbackValue = "true",
      paramLabel = "<bool>",
      description =
          "Run the controllers only while holding the leader Lease. Default: ${DEFAULT-VALUE}.")
  boolean enabled;

  @Option(
      names = "--leader-elect-lease-duration",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "How long others wait before taking over a lease that is not renewed. Default: ${DEFAULT-VALUE}.")
  Duration leaseDuration;

  @Option(
      names = "--leader-elect-renew-deadline",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "How long the leader keeps trying to renew before it gives up. Default: ${DEFAULT-VALUE}.")
  Duration renewDeadline;

  @Option(
      names = "--leader-elect-retry-period",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description = "How often to try to acquire or renew. Default: ${DEFAULT-VALUE}.")
  Duration retryPeriod;

  @Option(
      names = "--leader-elect-resource-lock",
      paramLabel = "<type>",
      defaultValue = "leases",
      description = "The lock type; only 'leases' is supported. Default: ${DEFAULT-VALUE}.")
  String resourceLock;

  @Option(
      names = "--leader-elect-resource-name",
      paramLabel = "<name>",
      description = "The name of the Lease. Default: ${DEFAULT-VALUE}.")
  String resourceName;

  @Option(
      names = "--leader-elect-resource-namespace",
      paramLabel = "<namespace>",
      description = "The namespace of the Lease. Default: ${DEFAULT-VALUE}.")
  String resourceNamespace;

  public Optional<String> validate() {
    if (!enabled) {
      return Optional.empty();
    }
    if (!"leases".equals(resourceLock)) {
      return Optional.of("--leader-elect-resource-lock: resourceLock value must be \"leases\"");
    }
    if (leaseDuration.compareTo(renewDeadline) <= 0) {
      return Optional.of(
          "--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline");
    }
    if (renewDeadline.compareTo(retryPeriod) <= 0) {
      return Optional.of(
          "--leader-elect-renew-deadline must be greater than --leader-elect-retry-period");
    }
    if (retryPeriod.isZero() || retryPeriod.isNegative()) {
      return Optional.of("--leader-elect-retry-period must be greater than 0");
    }
    // Checked here, not by the API server at every retry: upstream's elector would retry a name
    // the API server refuses for ever, and an empty one it refuses at start without naming the
    // flag.
    if (resourceName != null && !DnsNames.isSubdomain(resourceName)) {
      return Optional.of(
          ("--leader-elect-resource-name: \"%s\" is not a valid Lease name (lowercase letters,"
                  + " digits, '-' and '.', starting and ending with a letter or digit, at most 253)")
              .formatted(resourceName));
    }
    if (resourceNamespace != null && !DnsNames.isLabel(resourceNamespace)) {
      return Optional.of(
          ("--leader-elect-resource-namespace: \"%s\" is not a valid namespace (lowercase"
                  + " letters, digits and '-', starting and ending with a letter or digit, at most"
                  + " 63)")
              .formatted(resourceNamespace));
    }
    return Optional.empty();
  }

  /** The election settings, or empty when leader election is off. */
  public Optional<LeaderElection.Settings> settings() {
    if (!enabled) {
      return Optional.empty();
    }
    return Optional.of(
        LeaderElection.Settings.defaults(identity())
            .withNamespace(resourceNamespace)
            .withName(resourceName)
            .withTimings(leaseDuration, renewDeadline, retryPeriod));
  }

  /** {@code hostname_uuid}, as upstream builds it. */
  private static String identity() {
    return Hostname.get() + "_" + UUID.randomUUID();
  }
}
