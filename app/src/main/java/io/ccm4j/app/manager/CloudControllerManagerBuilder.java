package io.ccm4j.app.manager;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.controllers.ControllerDescriptor;
import io.ccm4j.controllers.ControllerSelection;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.Controllers;
import io.ccm4j.runtime.client.InformerWatchdog;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.leaderelection.LeaderElection;
import io.ccm4j.runtime.serving.ServingAccess;
import io.ccm4j.runtime.serving.ServingKeys;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.IntConsumer;

/**
 * The one way to configure a {@link CloudControllerManager}: {@code ccm4j run}, the lab, the
 * benchmarks and the tests all start from {@link CloudControllerManager#builder}. What is not set
 * is the flags' default: cluster {@code kubernetes}, the controllers {@code *} selects with {@link
 * ControllerSettings#defaults()}, no leader election, no serving port, every controller of {@link
 * Controllers#ALL}. Only the cloud and what to do on exit have no default.
 */
public final class CloudControllerManagerBuilder {

  private final ManagerClients clients;
  private CloudProvider cloud;
  private String clusterName = "kubernetes";
  private ControllerSelection selection = ControllerSelection.parse(List.of("*"));
  private ControllerSettings controllers = ControllerSettings.defaults();
  private Optional<LeaderElection.Settings> leaderElection = Optional.empty();
  private Optional<InetSocketAddress> servingAddress = Optional.empty();
  private ServingKeys servingKeys;
  private ServingAccess servingAccess = ServingAccess.defaults();
  private Duration informerStallBound = InformerWatchdog.DEFAULT_BOUND;
  private List<ControllerDescriptor> registry = Controllers.ALL;
  private IntConsumer exit;

  /**
   * @param clients null for a builder of settings only ({@link CloudControllerManager#settings()})
   */
  CloudControllerManagerBuilder(ManagerClients clients) {
    this.clients = clients;
  }

  /** Everything {@code ccm4j run}'s flags say (its {@code settings()}), to change from there. */
  public CloudControllerManagerBuilder settings(CloudControllerManager.Settings settings) {
    cloud = settings.cloud();
    clusterName = settings.clusterName();
    selection = settings.selection();
    controllers = settings.controllers();
    leaderElection = settings.leaderElection();
    servingAddress = settings.servingAddress();
    servingKeys = settings.servingKeys();
    servingAccess = settings.servingAccess();
    informerStallBound = settings.informerStallBound();
    return this;
  }

  public CloudControllerManagerBuilder cloud(CloudProvider cloud) {
    this.cloud = cloud;
    return this;
  }

  public CloudControllerManagerBuilder clusterName(String clusterName) {
    this.clusterName = clusterName;
    return this;
  }

  /** Which controllers run ({@code --controllers}). */
  public CloudControllerManagerBuilder selection(ControllerSelection selection) {
    this.selection = selection;
    return this;
  }

  /** As {@code --controllers}: {@code *}, names, aliases, {@code -name}. */
  public CloudControllerManagerBuilder selection(String... entries) {
    return selection(ControllerSelection.parse(List.of(entries)));
  }

  /**
   * The controllers' tunables: each controller's record ({@link ControllerSettings#withCloudNode}
   * and the like), each given only to its controller.
   */
  public CloudControllerManagerBuilder controllers(ControllerSettings controllers) {
    this.controllers = controllers;
    return this;
  }

  /** Campaign for the Lease before starting the controllers. */
  public CloudControllerManagerBuilder leaderElection(LeaderElection.Settings leaderElection) {
    return leaderElection(Optional.of(leaderElection));
  }

  /** Campaign for the Lease, or, when empty, start the controllers at once. */
  public CloudControllerManagerBuilder leaderElection(
      Optional<LeaderElection.Settings> leaderElection) {
    this.leaderElection = leaderElection;
    return this;
  }

  /** Serve health and metrics on {@code address} (port 0: any free port) with {@code keys}. */
  public CloudControllerManagerBuilder serving(InetSocketAddress address, ServingKeys keys) {
    this.servingAddress = Optional.of(address);
    this.servingKeys = keys;
    return this;
  }

  /** Serve on {@code address} if there is one ({@code --secure-port 0}: none). */
  public CloudControllerManagerBuilder serving(
      Optional<InetSocketAddress> address, ServingKeys keys) {
    this.servingAddress = address;
    this.servingKeys = keys;
    return this;
  }

  /** Serve nothing. */
  public CloudControllerManagerBuilder noServing() {
    this.servingAddress = Optional.empty();
    return this;
  }

  /** Who may read what is served; the default lets only the health endpoints through untokened. */
  public CloudControllerManagerBuilder servingAccess(ServingAccess servingAccess) {
    this.servingAccess = servingAccess;
    return this;
  }

  public CloudControllerManagerBuilder informerStallBound(Duration informerStallBound) {
    this.informerStallBound = informerStallBound;
    return this;
  }

  /** The controllers it may run, in start order; {@link Controllers#ALL} unless set. */
  public CloudControllerManagerBuilder registry(List<ControllerDescriptor> registry) {
    this.registry = List.copyOf(registry);
    return this;
  }

  /** Called with the exit code when the manager must end ({@code System::exit} in production). */
  public CloudControllerManagerBuilder exit(IntConsumer exit) {
    this.exit = exit;
    return this;
  }

  /** The settings as they stand, without building the manager. */
  public CloudControllerManager.Settings buildSettings() {
    return new CloudControllerManager.Settings(
        Objects.requireNonNull(cloud, "cloud"),
        clusterName,
        selection,
        controllers,
        leaderElection,
        servingAddress,
        servingKeys,
        servingAccess,
        informerStallBound);
  }

  /** The manager, not started. */
  public CloudControllerManager build() {
    if (clients == null) {
      throw new IllegalStateException("a builder of settings only builds no manager");
    }
    return new CloudControllerManager(
        clients, buildSettings(), registry, Objects.requireNonNull(exit, "exit"));
  }
}
