package io.ccm4j.runtime.client;

import io.ccm4j.cloudprovider.api.WellKnownComponents;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/** Builds the manager's Kubernetes clients the way upstream configures them (A3). */
public final class KubeClients {

  /** Upstream's user agent for the manager's requests. */
  public static final String USER_AGENT = WellKnownComponents.CLOUD_CONTROLLER_MANAGER;

  private KubeClients() {}

  /** A client throttled to {@code qps} requests a second with bursts of {@code burst}. */
  public static KubernetesClient create(Config config, double qps, int burst) {
    return create(config, USER_AGENT, qps, burst, null);
  }

  /**
   * The same, with the given user agent (set on {@code config}), behind a fence when one is given.
   */
  public static KubernetesClient create(
      Config config, String userAgent, double qps, int burst, Fence fence) {
    config.setUserAgent(userAgent);
    RequestRateLimiter limiter = new RequestRateLimiter(qps, burst);
    return new KubernetesClientBuilder()
        .withConfig(config)
        .withHttpClientBuilderConsumer(
            builder -> {
              if (fence != null) {
                builder.addOrReplaceInterceptor("fence", fence);
              }
              builder.addOrReplaceInterceptor("qps", limiter);
            })
        .build();
  }
}
