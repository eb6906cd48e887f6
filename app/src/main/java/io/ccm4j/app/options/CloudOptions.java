package io.ccm4j.app.options;

import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviders;
import io.ccm4j.runtime.cloud.ThrottledCloudProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.TreeSet;
import picocli.CommandLine.Option;

/** Which cloud, configured how, for which cluster. */
public final class CloudOptions {

  @Option(
      names = "--cloud-provider",
      paramLabel = "<name>",
      description =
          "The cloud provider to use (required). Known providers are listed when the name is wrong.")
  String cloudProvider;

  @Option(
      names = "--cloud-config",
      paramLabel = "<file>",
      converter = EmptyIsUnset.File.class,
      description = "The path to the cloud provider's configuration file.")
  Path cloudConfig;

  @Option(
      names = "--cluster-name",
      paramLabel = "<name>",
      defaultValue = "kubernetes",
      description =
          "The instance prefix for the cluster's cloud resources. Default: ${DEFAULT-VALUE}.")
  String clusterName;

  @Option(
      names = "--allow-untagged-cloud",
      arity = "0..1",
      converter = GoBool.class,
      fallbackValue = "true",
      defaultValue = "false",
      paramLabel = "<bool>",
      description = "Allow a cloud provider that cannot tell which cluster owns its resources.")
  boolean allowUntaggedCloud;

  @Option(
      names = "--cloud-api-qps",
      paramLabel = "<qps>",
      defaultValue = "0",
      description =
          "Calls per second to the cloud API, across all controllers; 0 means no limit."
              + " Default: ${DEFAULT-VALUE}.")
  double cloudApiQps;

  @Option(
      names = "--cloud-api-burst",
      converter = GoInt.class,
      paramLabel = "<n>",
      defaultValue = "1",
      description =
          "Burst of cloud API calls allowed above --cloud-api-qps. Default: ${DEFAULT-VALUE}.")
  int cloudApiBurst;

  /**
   * @return the problem, naming the flag, or empty
   */
  public Optional<String> validate() {
    if (cloudProvider == null || cloudProvider.isBlank()) {
      return Optional.of(
          "--cloud-provider cannot be empty: name your cloud (known: %s)"
              .formatted(
                  String.join(
                      ", ",
                      new TreeSet<>(
                          CloudProviders.discover(CloudOptions.class.getClassLoader()).names()))));
    }
    return validateRest();
  }

  /** The checks but the provider's name, for a caller that supplies the cloud itself (the lab). */
  public Optional<String> validateRest() {
    if (cloudApiQps < 0) {
      return Optional.of("--cloud-api-qps must not be negative, got " + cloudApiQps);
    }
    if (cloudApiBurst < 1) {
      return Optional.of("--cloud-api-burst must be at least 1, got " + cloudApiBurst);
    }
    if (cloudConfig != null && !Files.isReadable(cloudConfig)) {
      return Optional.of("--cloud-config: cannot read " + cloudConfig);
    }
    return Optional.empty();
  }

  /** The provider's name; null or blank when the flag was not given. */
  public String cloudProvider() {
    return cloudProvider;
  }

  public Optional<Path> cloudConfig() {
    return Optional.ofNullable(cloudConfig);
  }

  /** The provider, throttled when {@code --cloud-api-qps} is set. */
  public CloudProvider throttled(CloudProvider provider) {
    return cloudApiQps > 0
        ? new ThrottledCloudProvider(provider, cloudApiQps, cloudApiBurst)
        : provider;
  }

  public String clusterName() {
    return clusterName;
  }

  public boolean allowUntaggedCloud() {
    return allowUntaggedCloud;
  }
}
