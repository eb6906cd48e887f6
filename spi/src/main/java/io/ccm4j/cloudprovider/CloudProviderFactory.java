package io.ccm4j.cloudprovider;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Creates a {@link CloudProvider}. Implementations are found with {@link java.util.ServiceLoader}:
 * list the class in {@code META-INF/services/io.ccm4j.cloudprovider.CloudProviderFactory}.
 */
public interface CloudProviderFactory {

  /**
   * The name users select with {@code --cloud-provider}. Unique among the factories on the class
   * path.
   */
  String name();

  /**
   * Creates the provider from its configuration file ({@code --cloud-config}), if one was given.
   *
   * @throws CloudConfigException when the file cannot be read or is invalid; the message names the
   *     field
   */
  CloudProvider create(Optional<Path> cloudConfig) throws CloudConfigException;
}
