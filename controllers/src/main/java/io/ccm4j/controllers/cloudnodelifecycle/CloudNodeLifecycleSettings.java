package io.ccm4j.controllers.cloudnodelifecycle;

import java.time.Duration;

/**
 * The cloud-node-lifecycle controller's tunable; its default is in {@link #defaults()}.
 *
 * @param monitorPeriod period of the pass over NotReady nodes ({@code --node-monitor-period}, which
 *     also sets the node-lifecycle controller's health check period)
 */
public record CloudNodeLifecycleSettings(Duration monitorPeriod) {

  /** The one check of the setting; its message names the flag ({@code ccm4j run} prints it). */
  public CloudNodeLifecycleSettings {
    if (!monitorPeriod.isPositive()) {
      throw new IllegalArgumentException("--node-monitor-period must be greater than 0");
    }
  }

  /**
   * Upstream's default, written only here (the flag reads it); the node-lifecycle controller's
   * record has the same, as one flag sets both ({@code ControllerSettingsTest} checks).
   */
  public static CloudNodeLifecycleSettings defaults() {
    return new CloudNodeLifecycleSettings(Duration.ofSeconds(5));
  }

  public CloudNodeLifecycleSettings withMonitorPeriod(Duration value) {
    return new CloudNodeLifecycleSettings(value);
  }
}
