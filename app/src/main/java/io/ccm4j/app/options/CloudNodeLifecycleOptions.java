package io.ccm4j.app.options;

import io.ccm4j.controllers.ControllerSettings;
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

  /** The records' own checks (one place per setting), on this group's flags. */
  public Optional<String> validate() {
    try {
      applyTo(ControllerSettings.defaults());
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** {@code settings} with this group's flag applied (to both controllers that read it). */
  public ControllerSettings applyTo(ControllerSettings settings) {
    return settings
        .withNodeMonitorPeriod(nodeMonitorPeriod)
        .withNodeHealth(settings.nodeHealth().withMonitorPeriod(nodeMonitorPeriod));
  }
}
