package io.ccm4j.runtime.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ccm4j.cloudprovider.api.WellKnownComponents;
import io.ccm4j.tls.ClusterTrust;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.utils.HttpClientUtils;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.internal.KubernetesDeserializer;

/**
 * Builds the manager's Kubernetes clients the way upstream configures them (A3).
 *
 * <p>All of them share one serialization ({@link #SERIALIZATION}): Jackson's (de)serialisers for
 * each type are built and compiled once in the process, not once per client. It reads and writes
 * objects without {@code metadata.managedFields}, as upstream's controller-manager informer factory
 * trims them (kubernetes#118455): no controller reads them, they are a large part of every Node,
 * and skipping them while parsing saves building them for every watch event and keeping them in
 * every cache. An update without them leaves the object's managedFields to the API server, which
 * takes the live object's when a request carries none and records the writer as usual.
 */
public final class KubeClients {

  /** Upstream's user agent for the manager's requests. */
  public static final String USER_AGENT = WellKnownComponents.CLOUD_CONTROLLER_MANAGER;

  /** fabric8's serialization, without ObjectMeta's managedFields. */
  public static final KubernetesSerialization SERIALIZATION =
      new KubernetesSerialization(
          new ObjectMapper().addMixIn(ObjectMeta.class, WithoutManagedFields.class), true);

  private KubeClients() {}

  /**
   * Has fabric8 index its model classes (by kind, for reading a watch event's or a kubeconfig's
   * objects) on a daemon thread of its own, now rather than on the first client's configuration: it
   * instantiates some 900 classes, a tenth of a second of the manager's start. fabric8 builds the
   * index once per process, under a lock, so whoever needs it first waits for it.
   */
  public static void indexModelInBackground() {
    Thread.ofPlatform().daemon().name("ccm4j-model-index").start(KubernetesDeserializer::new);
  }

  /** A client throttled to {@code qps} requests a second with bursts of {@code burst}. */
  public static KubernetesClient create(Config config, double qps, int burst) {
    return create(config, USER_AGENT, qps, burst, null, null);
  }

  /**
   * The same, with the given user agent (set on {@code config}), behind a fence when one is given,
   * on a shared transport when one is given (else a transport of its own), trusting the cluster's
   * CA alone when the configuration names one ({@link ClusterTrust}); a credential refresh that
   * fails fails a request, not its caller ({@link CredentialRefresh}).
   */
  public static KubernetesClient create(
      Config config,
      String userAgent,
      double qps,
      int burst,
      Fence fence,
      SharedTransport transport) {
    return create(config, userAgent, qps, burst, fence, transport, null);
  }

  /**
   * The same, its requests counted in {@code metrics} when given (client-go's {@code
   * rest_client_*}, {@link RestClientMetrics}).
   */
  public static KubernetesClient create(
      Config config,
      String userAgent,
      double qps,
      int burst,
      Fence fence,
      SharedTransport transport,
      RestClientMetrics metrics) {
    config.setUserAgent(userAgent);
    String host = RestClientMetrics.host(config.getMasterUrl());
    RequestRateLimiter limiter = new RequestRateLimiter(qps, burst, metrics, host);
    KubernetesClientBuilder builder =
        new KubernetesClientBuilder().withConfig(config).withKubernetesSerialization(SERIALIZATION);
    HttpClient.Factory httpClients =
        transport != null ? transport.httpClients() : HttpClientUtils.getHttpClientFactory();
    return builder
        .withHttpClientFactory(httpClients)
        .withHttpClientBuilderConsumer(
            http -> {
              ClusterTrust.apply(http, config);
              CredentialRefresh.install(http, config, httpClients);
              // Counted from before the throttle, as client-go's request duration.
              if (metrics != null) {
                http.addOrReplaceInterceptor(
                    MeasuredRequests.NAME, new MeasuredRequests(metrics, host));
              }
              // The fence before the throttle, so a fenced request does not take a token, and
              // after it: a request that waited for its token past the fence is not sent.
              if (fence != null) {
                http.addOrReplaceInterceptor("fence", fence);
              }
              http.addOrReplaceInterceptor("qps", limiter);
              if (fence != null) {
                http.addOrReplaceInterceptor("fence-after-qps", fence);
              }
            })
        .build();
  }

  @JsonIgnoreProperties("managedFields")
  private abstract static class WithoutManagedFields {}
}
