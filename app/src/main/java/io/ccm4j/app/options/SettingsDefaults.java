package io.ccm4j.app.options;

import io.ccm4j.controllers.cloudnodelifecycle.CloudNodeLifecycleSettings;
import io.ccm4j.controllers.network.NetworkSettings;
import io.ccm4j.controllers.node.CloudNodeSettings;
import io.ccm4j.controllers.nodelifecycle.NodeHealthSettings;
import io.ccm4j.controllers.service.ServiceControllerSettings;
import io.ccm4j.runtime.client.InformerWatchdog;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code ccm4j run}'s defaults for the flags that set a settings record, read from the records'
 * {@code defaults()} so that each default is written once (as cloud-provider's {@code
 * config/v1alpha1/defaults.go}); {@code ${DEFAULT-VALUE}} in the help prints them. Flags not listed
 * here keep their {@code defaultValue}.
 */
public final class SettingsDefaults implements IDefaultValueProvider {

  private static final Map<String, String> DEFAULTS = defaults();

  private static Map<String, String> defaults() {
    CloudNodeSettings cloudNode = CloudNodeSettings.defaults();
    CloudNodeLifecycleSettings cloudNodeLifecycle = CloudNodeLifecycleSettings.defaults();
    NodeHealthSettings health = NodeHealthSettings.defaults();
    ServiceControllerSettings service = ServiceControllerSettings.defaults();
    NetworkSettings network = NetworkSettings.defaults();
    LeaderElection.Settings election = LeaderElection.Settings.defaults("unused");
    return Map.ofEntries(
        Map.entry("--concurrent-node-syncs", String.valueOf(cloudNode.concurrentNodeSyncs())),
        Map.entry(
            "--concurrent-node-status-updates",
            String.valueOf(cloudNode.concurrentNodeStatusUpdates())),
        Map.entry(
            "--node-status-update-frequency", duration(cloudNode.nodeStatusUpdateFrequency())),
        // Also node-lifecycle's period, whose record has the same default (ControllerSettingsTest).
        Map.entry("--node-monitor-period", duration(cloudNodeLifecycle.monitorPeriod())),
        Map.entry("--node-monitor-grace-period", duration(health.monitorGracePeriod())),
        Map.entry("--node-startup-grace-period", duration(health.startupGracePeriod())),
        Map.entry("--node-eviction-rate", String.valueOf(health.evictionRate())),
        Map.entry("--secondary-node-eviction-rate", String.valueOf(health.secondaryEvictionRate())),
        Map.entry("--unhealthy-zone-threshold", String.valueOf(health.unhealthyZoneThreshold())),
        Map.entry(
            "--large-cluster-size-threshold", String.valueOf(health.largeClusterSizeThreshold())),
        Map.entry("--concurrent-service-syncs", String.valueOf(service.concurrentServiceSyncs())),
        Map.entry("--load-balancer-resync-period", duration(service.loadBalancerResyncPeriod())),
        Map.entry("--configure-cloud-routes", String.valueOf(network.configureCloudRoutes())),
        Map.entry("--route-reconciliation-period", duration(network.routeReconciliationPeriod())),
        Map.entry("--allocate-node-cidrs", String.valueOf(network.allocateNodeCidrs())),
        Map.entry("--leader-elect-lease-duration", duration(election.leaseDuration())),
        Map.entry("--leader-elect-renew-deadline", duration(election.renewDeadline())),
        Map.entry("--leader-elect-retry-period", duration(election.retryPeriod())),
        Map.entry("--leader-elect-resource-name", election.name()),
        Map.entry("--leader-elect-resource-namespace", election.namespace()),
        Map.entry("--informer-stall-timeout", duration(InformerWatchdog.DEFAULT_BOUND)));
  }

  @Override
  public String defaultValue(ArgSpec argSpec) {
    return argSpec instanceof OptionSpec option ? DEFAULTS.get(option.longestName()) : null;
  }

  /**
   * A default as upstream's help prints it: whole seconds up to a minute ({@code 60s}), whole
   * minutes or hours above ({@code 5m}, {@code 1h}).
   */
  static String duration(Duration value) {
    long seconds = value.toSeconds();
    if (!value.equals(Duration.ofSeconds(seconds))) {
      throw new IllegalArgumentException("a default of whole seconds, got " + value);
    }
    if (seconds <= 60 || seconds % 60 != 0) {
      return seconds + "s";
    }
    return seconds % 3600 == 0 ? seconds / 3600 + "h" : seconds / 60 + "m";
  }
}
