package io.ccm4j.app;

import io.ccm4j.app.manager.CloudControllerManager;
import io.ccm4j.app.manager.ExitOnFatalError;
import io.ccm4j.app.options.CloudNodeLifecycleOptions;
import io.ccm4j.app.options.CloudOptions;
import io.ccm4j.app.options.CompatibilityOptions;
import io.ccm4j.app.options.ControllerOptions;
import io.ccm4j.app.options.KubeClientOptions;
import io.ccm4j.app.options.LastOccurrenceWins;
import io.ccm4j.app.options.LeaderElectionOptions;
import io.ccm4j.app.options.LoggingOptions;
import io.ccm4j.app.options.NetworkOptions;
import io.ccm4j.app.options.NodeControllerOptions;
import io.ccm4j.app.options.NodeLifecycleOptions;
import io.ccm4j.app.options.ServiceControllerOptions;
import io.ccm4j.app.options.ServingOptions;
import io.ccm4j.app.options.SettingsDefaults;
import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviders;
import io.ccm4j.cloudprovider.UnknownCloudProviderException;
import io.ccm4j.controllers.ControllerSettings;
import io.ccm4j.controllers.cloudnodelifecycle.CloudNodeLifecycleSettings;
import io.ccm4j.runtime.client.KubeApiContentType;
import io.ccm4j.runtime.client.KubeClients;
import io.ccm4j.runtime.client.ManagerClients;
import io.ccm4j.runtime.serving.ServingAccess;
import io.ccm4j.runtime.serving.ServingKeys;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code ccm4j run}: the cloud-controller-manager, as deployed in a cluster. */
@Command(
    name = "run",
    description = "Run the cloud-controller-manager against a cluster.",
    resourceBundle = "io.ccm4j.app.options.RunHelp",
    defaultValueProvider = SettingsDefaults.class,
    sortOptions = false,
    mixinStandardHelpOptions = true,
    preprocessor = LastOccurrenceWins.class)
public final class RunCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(RunCommand.class);

  @Spec CommandSpec spec;

  @ArgGroup(validate = false, heading = "%nCloud provider:%n", order = 1)
  CloudOptions cloud = new CloudOptions();

  @ArgGroup(validate = false, heading = "%nKubernetes API:%n", order = 2)
  KubeClientOptions kube = new KubeClientOptions();

  @ArgGroup(validate = false, heading = "%nControllers:%n", order = 3)
  ControllerOptions controllers = new ControllerOptions();

  @ArgGroup(validate = false, heading = "%ncloud-node-controller:%n", order = 4)
  NodeControllerOptions nodeController = new NodeControllerOptions();

  @ArgGroup(validate = false, heading = "%ncloud-node-lifecycle-controller:%n", order = 5)
  CloudNodeLifecycleOptions cloudNodeLifecycle = new CloudNodeLifecycleOptions();

  @ArgGroup(validate = false, heading = "%nservice-lb-controller:%n", order = 6)
  ServiceControllerOptions serviceController = new ServiceControllerOptions();

  @ArgGroup(
      validate = false,
      heading = "%nnode-lifecycle-controller (off unless named in --controllers):%n",
      order = 7)
  NodeLifecycleOptions nodeLifecycle = new NodeLifecycleOptions();

  @ArgGroup(validate = false, heading = "%nLeader election:%n", order = 8)
  LeaderElectionOptions leaderElection = new LeaderElectionOptions();

  @ArgGroup(validate = false, heading = "%nServing (health and metrics):%n", order = 9)
  ServingOptions serving = new ServingOptions();

  @ArgGroup(
      validate = false,
      heading = "%nPod network (node-route-controller, node-ipam-controller):%n",
      order = 10)
  NetworkOptions network = new NetworkOptions();

  @ArgGroup(validate = false, heading = "%nLogging:%n", order = 11)
  LoggingOptions logging = new LoggingOptions();

  @ArgGroup(
      validate = false,
      heading = "%nUpstream flags without effect here (accepted so upstream manifests run):%n",
      order = 12)
  CompatibilityOptions compatibility = new CompatibilityOptions();

  // Upstream's command takes no arguments but lets empty ones through (a template's unset optional
  // argument rendered as "", a $(VAR) of an empty variable): collected here and checked.
  @Parameters(hidden = true, paramLabel = "<argument>")
  List<String> arguments = List.of();

  @Override
  public Integer call() throws Exception {
    KubeClients.indexModelInBackground();
    CloudControllerManager.Settings settings = settings();
    Thread.setDefaultUncaughtExceptionHandler(new ExitOnFatalError(System::exit));
    logging.apply(); // not in settings(): the lab checks a pod's flags in its own process
    ManagerClients clients =
        ManagerClients.create(
            kube.clientConfig(),
            kube.qps(),
            kube.burst(),
            kube.useServiceAccountCredentials(),
            kube.contentType());
    CloudControllerManager manager =
        CloudControllerManager.builder(clients).settings(settings).exit(System::exit).build();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  manager.close();
                  clients.close();
                  stopped.countDown();
                },
                "ccm4j-shutdown"));
    log.info(
        "starting cloud-controller-manager: cloud provider {}, cluster {}, controllers {},"
            + " TLS crypto {}",
        cloud.cloudProvider(),
        cloud.clusterName(),
        controllers.selection().enabled(),
        NativeCrypto.installed());
    controllers
        .selection()
        .providerControllerNotes()
        .forEach(note -> log.info("--controllers: {}", note));
    manager.start();
    stopped.await();
    return 0;
  }

  /**
   * {@code ccm4j run}'s {@code arguments} (those after {@code run}) parsed, not yet checked: {@link
   * #settings()} checks them. Throws a {@link ParameterException} for an unknown flag or a value of
   * the wrong type. The lab runs a pod's arguments with it.
   */
  public static RunCommand parse(List<String> arguments) {
    CommandLine commandLine = new CommandLine(new RunCommand());
    commandLine.parseArgs(arguments.toArray(String[]::new));
    return commandLine.getCommand();
  }

  /** The provider's name as the flags give it; null or blank when they give none. */
  public String cloudProviderName() {
    return cloud.cloudProvider();
  }

  /** The wire format of the hot paths ({@code --kube-api-content-type}). */
  public KubeApiContentType kubeApiContentType() {
    return kube.contentType();
  }

  /** Whether each controller is to write as its own ServiceAccount (the lab honours it). */
  public boolean useServiceAccountCredentials() {
    return kube.useServiceAccountCredentials();
  }

  /**
   * Checks every flag and builds what the manager runs with; nothing is started. Throws a {@link
   * ParameterException} naming the flag at fault. The lab uses it to run a pod's arguments.
   */
  public CloudControllerManager.Settings settings() {
    return settings(null);
  }

  /**
   * As {@link #settings()}, with {@code replacement} as the cloud in place of the one the flags
   * name (which is then neither created nor required): the lab runs a pod's arguments on its own
   * cloud.
   */
  public CloudControllerManager.Settings settings(CloudProvider replacement) {
    // Every check happens before anything starts: a bad flag exits 2 having touched nothing.
    List<Supplier<Optional<String>>> checks =
        List.of(
            this::validateArguments,
            replacement == null ? cloud::validate : cloud::validateRest,
            kube::validate,
            controllers::validate,
            nodeController::validate,
            cloudNodeLifecycle::validate,
            nodeLifecycle::validate,
            serviceController::validate,
            leaderElection::validate,
            serving::validate,
            network::validate,
            logging::validate,
            compatibility::validate,
            () -> compatibility.validateWebhookPort(serving));
    for (Supplier<Optional<String>> check : checks) {
      Optional<String> problem = check.get();
      if (problem.isPresent()) {
        throw new ParameterException(spec.commandLine(), problem.get());
      }
    }
    ServingKeys keys;
    try {
      keys = serving.keys();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(
          spec.commandLine(), "--tls-cert-file/--tls-private-key-file: " + e.getMessage());
    }
    ServingAccess access;
    try {
      access = serving.access();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    CloudProvider provider = replacement == null ? createProvider() : replacement;
    if (!provider.hasClusterId()) {
      if (!cloud.allowUntaggedCloud()) {
        throw new ParameterException(
            spec.commandLine(),
            "--cloud-provider: %s has no cluster ID; pass --allow-untagged-cloud to run anyway"
                .formatted(cloud.cloudProvider()));
      }
      log.warn("cloud provider {} has no cluster ID; running untagged", cloud.cloudProvider());
    }
    return CloudControllerManager.settings()
        .cloud(provider)
        .clusterName(cloud.clusterName())
        .selection(controllers.selection())
        .controllers(controllerSettings())
        .leaderElection(leaderElection.settings())
        .serving(serving.address(), keys)
        .servingAccess(access)
        .informerStallBound(kube.informerStallTimeout())
        .buildSettings();
  }

  /** Only empty arguments, as upstream's {@code Args} check (app/controllermanager.go). */
  private Optional<String> validateArguments() {
    return arguments.stream()
        .filter(argument -> !argument.isEmpty())
        .findFirst()
        .map("run takes no arguments, only flags: got '%s'"::formatted);
  }

  /** Each controller's record, built by its flag group. */
  private ControllerSettings controllerSettings() {
    CloudNodeLifecycleSettings cloudNodeLifecycleSettings = cloudNodeLifecycle.settings();
    return new ControllerSettings(
        nodeController.settings(),
        cloudNodeLifecycleSettings,
        serviceController.settings(),
        // One --node-monitor-period for both lifecycle controllers, as upstream's.
        nodeLifecycle.settings(cloudNodeLifecycleSettings.monitorPeriod()),
        network.settings());
  }

  private CloudProvider createProvider() {
    try {
      return cloud.throttled(
          CloudProviders.discover(RunCommand.class.getClassLoader())
              .create(cloud.cloudProvider(), cloud.cloudConfig()));
    } catch (UnknownCloudProviderException e) {
      throw new ParameterException(spec.commandLine(), "--cloud-provider: " + e.getMessage());
    } catch (CloudConfigException e) {
      throw new ParameterException(spec.commandLine(), "--cloud-config: " + e.getMessage());
    } catch (IllegalStateException e) {
      // Two providers with one name: a packaging error, reported like a flag error.
      throw new ParameterException(spec.commandLine(), "--cloud-provider: " + e.getMessage());
    }
  }
}
