package ${package};

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudConfigYaml;
import java.net.URI;
import java.nio.file.Path;

/**
 * Reads and checks a {@link ${classPrefix}CloudConfig}. {@link CloudConfigYaml} already refuses
 * unknown fields and values of the wrong kind, naming the file, the line and the field; the checks
 * here do the same for what YAML cannot tell.
 */
final class ${classPrefix}CloudConfigLoader {

  private ${classPrefix}CloudConfigLoader() {}

  static ${classPrefix}CloudConfig read(Path file) throws CloudConfigException {
    return checked(CloudConfigYaml.read(file, ${classPrefix}CloudConfig.class), file.toString());
  }

  static ${classPrefix}CloudConfig parse(String text, String source) throws CloudConfigException {
    return checked(CloudConfigYaml.parse(text, source, ${classPrefix}CloudConfig.class), source);
  }

  private static ${classPrefix}CloudConfig checked(${classPrefix}CloudConfig config, String source)
      throws CloudConfigException {
    if (config == null || config.region() == null || config.region().isBlank()) {
      throw new CloudConfigException(
          "%s: field \"region\" is required: the region the cluster's instances run in"
              .formatted(source));
    }
    if (config.endpoint() != null) {
      URI endpoint;
      try {
        endpoint = URI.create(config.endpoint());
      } catch (IllegalArgumentException e) {
        endpoint = null;
      }
      if (endpoint == null
          || endpoint.getHost() == null
          || !("https".equals(endpoint.getScheme()) || "http".equals(endpoint.getScheme()))) {
        throw new CloudConfigException(
            "%s: field \"endpoint\" must be an http(s) URL, got \"%s\""
                .formatted(source, config.endpoint()));
      }
    }
    return config;
  }
}
