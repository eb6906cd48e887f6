package ${package};

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code --cloud-provider=${providerName}}, found by ccm4j through {@code
 * META-INF/services/io.ccm4j.cloudprovider.CloudProviderFactory}.
 */
public final class ${classPrefix}CloudProviderFactory implements CloudProviderFactory {

  public static final String NAME = "${providerName}";

  @Override
  public String name() {
    return NAME;
  }

  /** Reads and checks the cloud config; start no clients or threads here (see initialize). */
  @Override
  public CloudProvider create(Optional<Path> cloudConfig) throws CloudConfigException {
    if (cloudConfig.isEmpty()) {
      throw new CloudConfigException(
          "the ${providerName} provider needs --cloud-config: a YAML file with at least \"region\"");
    }
    return new ${classPrefix}Cloud(${classPrefix}CloudConfigLoader.read(cloudConfig.get()));
  }
}
