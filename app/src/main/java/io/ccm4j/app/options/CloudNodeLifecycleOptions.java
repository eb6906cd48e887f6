package io.ccm4j.app.options;

import io.ccm4j.controllers.cloudnodelifecycle.CloudNodeLifecycleSettings;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * cloud-node-lifecycle-controller's flag; node-lifecycle-controller checks health at the same
 * period.
 */
public final class CloudNodeLifecycleOptions {

  @Option(
      names = "--node-monitor-period",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "How often the cloud-node-lifecycle controller checks NotReady nodes against the cloud."
              + " Default: ${DEFAULT-VALUE}.")
  Duration nodeMonitorPeriod;

  /** The record's own checks (one place per setting), on this group's flags. */
  public Optional<String> validate() {
    try {
      settings();
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }

  /**
   * cloud-node-lifecycle-controller's settings, as the flag says; node-lifecycle-controller takes
   * its period from here ({@link NodeLifecycleOptions#settings}).
   */
  public CloudNodeLifecycleSettings settings() {
    return new CloudNodeLifecycleSettings(nodeMonitorPeriod);
  }
}
