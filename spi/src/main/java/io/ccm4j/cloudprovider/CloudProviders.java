package io.ccm4j.cloudprovider;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/**
 * The registry of cloud providers on the class path, keyed by name (upstream's {@code plugins.go}).
 */
public final class CloudProviders {

  private final Map<String, CloudProviderFactory> factories;

  private CloudProviders(Map<String, CloudProviderFactory> factories) {
    this.factories = factories;
  }

  /**
   * Finds every {@link CloudProviderFactory} visible to the class loader.
   *
   * @throws IllegalStateException when two factories claim the same name
   */
  public static CloudProviders discover(ClassLoader classLoader) {
    Map<String, CloudProviderFactory> byName = new TreeMap<>();
    for (CloudProviderFactory factory :
        ServiceLoader.load(CloudProviderFactory.class, classLoader)) {
      CloudProviderFactory previous = byName.putIfAbsent(factory.name(), factory);
      if (previous != null) {
        throw new IllegalStateException(
            "cloud provider \"%s\" is registered twice: by %s and by %s"
                .formatted(
                    factory.name(), previous.getClass().getName(), factory.getClass().getName()));
      }
    }
    return new CloudProviders(byName);
  }

  /** The names of the known providers, sorted. */
  public Set<String> names() {
    return factories.keySet();
  }

  /**
   * Creates the named provider.
   *
   * @throws UnknownCloudProviderException when no factory has that name; its message lists the
   *     known ones
   */
  public CloudProvider create(String name, Optional<Path> cloudConfig)
      throws UnknownCloudProviderException, CloudConfigException {
    CloudProviderFactory factory = factories.get(name);
    if (factory == null) {
      throw new UnknownCloudProviderException(name, names());
    }
    return factory.create(cloudConfig);
  }
}
