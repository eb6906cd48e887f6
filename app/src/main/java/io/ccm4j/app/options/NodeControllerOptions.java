package io.ccm4j.app.options;

import io.ccm4j.controllers.node.CloudNodeSettings;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/** cloud-node-controller's flags: node initialisation and the address refresh. */
public final class NodeControllerOptions {

  @Option(
      names = "--concurrent-node-syncs",
      converter = GoInt.class,
      paramLabel = "<n>",
      description =
          "Workers initialising nodes (cloud-node-controller). Default: ${DEFAULT-VALUE}"
              + " (upstream: 1, which makes a 1,000-node scale-up wait minutes for its taints).")
  int concurrentNodeSyncs;

  @Option(
      names = "--concurrent-node-status-updates",
      converter = GoInt.class,
      paramLabel = "<n>",
      description =
          "Parallelism of the periodic node address refresh; 0 uses --concurrent-node-syncs."
              + " Default: ${DEFAULT-VALUE}.")
  int concurrentNodeStatusUpdates;

  @Option(
      names = "--node-status-update-frequency",
      paramLabel = "<duration>",
      converter = GoDurationConverter.class,
      description =
          "How often node addresses are refreshed from the cloud. Default: ${DEFAULT-VALUE}.")
  Duration nodeStatusUpdateFrequency;

  /** The record's own checks (one place per setting), on this group's flags. */
  public Optional<String> validate() {
    try {
      settings();
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }

  /** cloud-node-controller's settings, as the flags say. */
  public CloudNodeSettings settings() {
    return new CloudNodeSettings(
        concurrentNodeSyncs, concurrentNodeStatusUpdates, nodeStatusUpdateFrequency);
  }
}
