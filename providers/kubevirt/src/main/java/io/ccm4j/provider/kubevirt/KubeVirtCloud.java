package io.ccm4j.provider.kubevirt;

import io.ccm4j.cloudprovider.CloudException;
import io.ccm4j.cloudprovider.CloudProvider;
import io.ccm4j.cloudprovider.InstancesV2;
import io.ccm4j.cloudprovider.LoadBalancer;
import io.ccm4j.cloudprovider.ProviderContext;
import io.ccm4j.runtime.client.KubernetesErrors;
import io.ccm4j.tls.ClusterTrust;
import io.ccm4j.tls.KubeconfigCredentials;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code kubevirt} cloud (K1): the tenant cluster's nodes are VirtualMachineInstances in a
 * namespace of an infrastructure cluster. Facets: InstancesV2 (§2) and LoadBalancer (§3), each
 * unless disabled in the cloud config. No Zones, Routes or Clusters (K90): zone and region come
 * with the instance metadata, and the route controller does not run with this provider.
 */
public final class KubeVirtCloud implements CloudProvider {

  private static final Logger log = LoggerFactory.getLogger(KubeVirtCloud.class);

  public static final String PROVIDER_NAME = "kubevirt";

  /** Set in every pod: where the in-cluster API server is. */
  static final String SERVICE_HOST_ENV = "KUBERNETES_SERVICE_HOST";

  /** A pod's service account: its token and the cluster's CA. */
  static final Path SERVICE_ACCOUNT = Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private final KubeVirtSettings settings;
  private KubernetesClient infra;
  private KubeVirtInstances instances;
  private KubeVirtLoadBalancers loadBalancers;
  private KubeVirtEndpointSlices endpointSlices;

  public KubeVirtCloud(KubeVirtSettings settings) {
    this.settings = settings;
  }

  @Override
  public String providerName() {
    return PROVIDER_NAME;
  }

  public KubeVirtSettings settings() {
    return settings;
  }

  /** K7: one client for every infrastructure call. */
  @Override
  public synchronized void initialize(ProviderContext context) throws CloudException {
    if (infra != null) {
      return;
    }
    try {
      // One retry at most: an unreachable infrastructure cluster must fail a call within seconds
      // (the controllers retry with backoff), not hold a lifecycle pass through fabric8's ten.
      Config config = infraConfig();
      config.setRequestRetryBackoffLimit(1);
      // Its API server's certificate checked against the kubeconfig's CA alone, as client-go's.
      infra =
          new KubernetesClientBuilder()
              .withConfig(config)
              .withHttpClientBuilderConsumer(http -> ClusterTrust.apply(http, config))
              .build();
    } catch (KubernetesClientException | UncheckedIOException | IllegalArgumentException e) {
      throw new CloudException(
          "cannot configure the infrastructure cluster's client: " + KubernetesErrors.reason(e), e);
    }
    instances = new KubeVirtInstances(infra, settings.namespace(), settings.zoneAndRegionEnabled());
    loadBalancers =
        new KubeVirtLoadBalancers(
            infra,
            new InfraServices(
                settings.namespace(),
                context.clusterName(),
                settings.infraLabels(),
                settings.selectorless(),
                settings.epsController(),
                settings.tenantFields()),
            settings.creationPollInterval(),
            settings.creationPollTimeout(),
            Clock.systemUTC());
    log.info(
        "kubevirt: tenant nodes are VMIs in namespace {} of {}; instances {}, load balancers {},"
            + " EndpointSlice controller {}; no routes and no zones facet (K90)",
        settings.namespace(),
        infra.getMasterUrl(),
        settings.instancesEnabled() ? "on" : "off",
        settings.loadBalancerEnabled() ? "on" : "off",
        endpointSlicesWanted(context) ? "on" : "off");
    if (endpointSlicesWanted(context)) {
      KubernetesClient tenant =
          context
              .cluster()
              .orElseThrow(
                  () ->
                      new CloudException(
                          "loadBalancer.enableEPSController: the EndpointSlice controller needs the"
                              + " tenant cluster's client, which this manager did not give"));
      endpointSlices =
          new KubeVirtEndpointSlices(
              infra,
              tenant,
              settings.namespace(),
              settings
                  .infraLabels()
                  .getOrDefault(KubeVirtApi.CLUSTER_NAME_LABEL, context.clusterName()),
              context.metrics());
      endpointSlices.start();
    }
  }

  /**
   * K4: the cloud config turns the controller on, and {@code --controllers} does not turn it off
   * ({@code *} includes it, as upstream's table entry). {@code loadBalancer.enabled} is not asked,
   * as upstream does not ask it: the infrastructure Services may be another component's.
   */
  private boolean endpointSlicesWanted(ProviderContext context) {
    return settings.epsController()
        && context.controllerEnabled().test(KubeVirtEndpointSlices.CONTROLLER_NAME);
  }

  private Config infraConfig() {
    if (settings.kubeconfig().isPresent()) {
      // As upstream's RESTConfigFromKubeConfig: a relative token file is the working directory's.
      String kubeconfig = settings.kubeconfig().get();
      return KubeconfigCredentials.complete(
          Config.fromKubeconfig(kubeconfig),
          KubeConfigUtils.parseConfigFromString(kubeconfig),
          null);
    }
    // In cluster: the pod's ServiceAccount, its token re-read on every request (it rotates).
    String host = System.getenv(SERVICE_HOST_ENV);
    String port = System.getenv("KUBERNETES_SERVICE_PORT");
    if (host == null || port == null) {
      throw new KubernetesClientException(
          "no \"kubeconfig\" in the cloud config and not running in a pod"
              + " (KUBERNETES_SERVICE_HOST is not set)");
    }
    return new ConfigBuilder(Config.empty())
        .withMasterUrl("https://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port)
        .withCaCertFile(SERVICE_ACCOUNT.resolve("ca.crt").toString())
        .withOauthTokenProvider(
            () -> {
              try {
                return Files.readString(SERVICE_ACCOUNT.resolve("token"), StandardCharsets.UTF_8)
                    .trim();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            })
        .build();
  }

  @Override
  public Optional<InstancesV2> instancesV2() {
    return settings.instancesEnabled() ? Optional.of(initialized(instances)) : Optional.empty();
  }

  @Override
  public Optional<LoadBalancer> loadBalancer() {
    return settings.loadBalancerEnabled()
        ? Optional.of(initialized(loadBalancers))
        : Optional.empty();
  }

  /** K3. */
  @Override
  public boolean hasClusterId() {
    return true;
  }

  @Override
  public synchronized void close() {
    if (endpointSlices != null) {
      try {
        endpointSlices.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (infra != null) {
      infra.close();
    }
  }

  private static <T> T initialized(T facet) {
    if (facet == null) {
      throw new IllegalStateException("the kubevirt provider is used before initialize()");
    }
    return facet;
  }
}
