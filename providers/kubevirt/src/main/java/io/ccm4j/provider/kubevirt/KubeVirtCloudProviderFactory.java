package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.CloudConfigException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.CloudProviderFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** {@code --cloud-provider=kubevirt} (K1); the cloud config is required (K2). */
public final class KubeVirtCloudProviderFactory implements CloudProviderFactory {

  @Override
  public String name() {
    return KubeVirtCloud.PROVIDER_NAME;
  }

  @Override
  public CloudProvider create(Optional<Path> cloudConfig) throws CloudConfigException {
    if (cloudConfig.isEmpty()) {
      throw new CloudConfigException(
          "the kubevirt provider needs --cloud-config: a YAML file naming the infrastructure"
              + " cluster (kubeconfig) and its namespace (namespace)");
    }
    KubeVirtSettings settings = KubeVirtCloudConfigLoader.read(cloudConfig.get());
    if (settings.kubeconfig().isEmpty() && System.getenv(KubeVirtCloud.SERVICE_HOST_ENV) == null) {
      // Checked at start, before the manager campaigns for the Lease, not at initialize().
      throw new CloudConfigException(
          ("%s: field \"kubeconfig\" is empty (in-cluster mode) but this process is not in a pod"
                  + " (%s is not set): name the infrastructure cluster's kubeconfig")
              .formatted(cloudConfig.get(), KubeVirtCloud.SERVICE_HOST_ENV));
    }
    if (settings.kubeconfig().isEmpty()) {
      for (String file : new String[] {"token", "ca.crt"}) {
        Path path = KubeVirtCloud.SERVICE_ACCOUNT.resolve(file);
        if (!Files.isReadable(path)) {
          throw new CloudConfigException(
              ("%s: field \"kubeconfig\" is empty (in-cluster mode) but the pod has no %s (is"
                      + " automountServiceAccountToken false?): name the infrastructure cluster's"
                      + " kubeconfig, or mount the service account")
                  .formatted(cloudConfig.get(), path));
        }
      }
    }
    return new KubeVirtCloud(settings);
  }

  /** Parses a config text, for tests and tools that build a cloud in-process. */
  public static KubeVirtCloud fromYaml(String yaml) throws CloudConfigException {
    return new KubeVirtCloud(KubeVirtCloudConfigLoader.parse(yaml, "(inline config)"));
  }
}
