package io.ccm4j.provider.sim;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code --cloud-provider=sim}. It needs {@code --cloud-config}: a simulation without one describes
 * nothing. A config that names no instances gets a cloud without the instances facet ({@link
 * SimCloud#instancesV2()}), so no controller takes every NotReady node for gone.
 */
public final class SimCloudProviderFactory implements CloudProviderFactory {

  /**
   * Without a config, {@code --cloud-provider=sim} is taken for a mistake rather than started as a
   * cloud of nothing, whose load balancer addresses and routes would exist in this process only
   * while its controllers wrote them into a real cluster's Services and Nodes: the refusal says
   * what a config holds.
   */
  static final String NO_CONFIG =
      "the sim cloud is a simulation and needs one: a YAML file (--cloud-config=<file>) saying what"
          + " it simulates: its instances, which the cloud-node and cloud-node-lifecycle"
          + " controllers ask about, under instances: (a list; [] for none yet) or generate:"
          + " {count: <n>}; a file with neither simulates load balancers and routes only";

  @Override
  public String name() {
    return SimCloud.PROVIDER_NAME;
  }

  @Override
  public CloudProvider create(Optional<Path> cloudConfig) throws CloudConfigException {
    if (cloudConfig.isEmpty()) {
      throw new CloudConfigException(NO_CONFIG);
    }
    SimCloudConfig config = SimCloudConfigLoader.read(cloudConfig.get());
    String source = cloudConfig.get().toString();
    SimCloud cloud;
    try {
      cloud = new SimCloud(config, SimCloudConfigLoader.instances(config, source));
    } catch (java.io.UncheckedIOException e) {
      throw new CloudConfigException(
          "%s: field \"journal\": cannot append to %s: %s"
              .formatted(source, config.journal(), e.getCause().getMessage()));
    }
    if (config.admin() == null || config.admin().isBlank()) {
      return cloud;
    }
    try {
      cloud.attachAdminServer(SimAdminServer.start(cloud, config.admin(), source));
      return cloud;
    } catch (IOException e) {
      throw new CloudConfigException(
          "%s: field \"admin\": cannot listen on %s: %s"
              .formatted(source, config.admin(), e.getMessage()));
    }
  }

  /** Parses a config text, for tests and tools that build a cloud in-process. */
  public static SimCloud fromYaml(String yaml) throws CloudConfigException {
    SimCloudConfig config = SimCloudConfigLoader.parse(yaml, "(inline config)");
    return new SimCloud(config, SimCloudConfigLoader.instances(config, "(inline config)"));
  }
}
