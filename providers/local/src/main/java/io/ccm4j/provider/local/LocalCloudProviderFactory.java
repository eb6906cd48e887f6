package io.ccm4j.provider.local;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code --cloud-provider=local}. Without {@code --cloud-config}, the defaults of {@link
 * LocalCloudConfig}.
 */
public final class LocalCloudProviderFactory implements CloudProviderFactory {

  @Override
  public String name() {
    return LocalCloud.PROVIDER_NAME;
  }

  @Override
  public CloudProvider create(Optional<Path> cloudConfig) throws CloudConfigException {
    return new LocalCloud(
        cloudConfig.isPresent()
            ? LocalCloudConfigLoader.read(cloudConfig.get())
            : LocalCloudSettings.defaults());
  }

  /** Parses a config text, for tests and tools that build a cloud in-process. */
  public static LocalCloud fromYaml(String yaml) throws CloudConfigException {
    return new LocalCloud(LocalCloudConfigLoader.parse(yaml, "(inline config)"));
  }
}
