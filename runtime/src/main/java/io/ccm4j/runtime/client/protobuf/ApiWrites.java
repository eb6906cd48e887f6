package io.ccm4j.runtime.client.protobuf;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.internal.OperationSupport;
import io.fabric8.kubernetes.client.http.ByteArrayRequests;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.kubernetes.client.utils.URLUtils;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Writes of the hot paths sent as bytes through the client's own HTTP client (its authentication,
 * TLS, rate limiter and fence), their answers asked in protobuf: the API server encodes protobuf
 * for less than JSON, and a caller that needs nothing of the answer reads none of it. A failure is
 * the {@link KubernetesClientException} fabric8's own call throws, with the API server's Status (a
 * 409 for a conflict, a 404 for an absent object).
 */
public final class ApiWrites {

  /** The JSON media type, of patches and of bodies that stay JSON. */
  public static final String JSON = "application/json";

  private static final String ACCEPT = ProtobufEnvelope.MEDIA_TYPE + ", " + JSON;

  private final HttpClient http;
  private final KubernetesSerialization serialization;
  private final String apiRoot;
  private final int timeoutMillis;

  public ApiWrites(KubernetesClient client) {
    this.http = client.getHttpClient();
    this.serialization = client.getKubernetesSerialization();
    this.apiRoot = URLUtils.join(client.getMasterUrl().toString(), "api", "v1");
    this.timeoutMillis = client.getConfiguration().getRequestTimeout();
  }

  /** The URL of a core/v1 path ({@code nodes/a/status}, {@code namespaces/b/events}). */
  public String core(String path) {
    return apiRoot + "/" + path;
  }

  /**
   * Sends {@code object} by {@code method} to {@code url}: as {@code protobuf}, its protobuf body
   * ({@link ProtobufBodies}), or as JSON when it has none ({@code null}).
   */
  public HttpResponse<byte[]> send(String method, String url, byte[] protobuf, Object object) {
    if (protobuf != null) {
      return send(method, url, ProtobufEnvelope.MEDIA_TYPE, protobuf);
    }
    byte[] json = serialization.asJson(object).getBytes(StandardCharsets.UTF_8);
    return send(method, url, JSON, json);
  }

  /**
   * Sends {@code body} ({@code contentType}) by {@code method} to {@code url}; the answer, whose
   * status was a success.
   */
  public HttpResponse<byte[]> send(String method, String url, String contentType, byte[] body) {
    HttpRequest.Builder builder =
        http.newHttpRequestBuilder().uri(url).post(contentType, body).setHeader("Accept", ACCEPT);
    if (timeoutMillis > 0) {
      builder.timeout(timeoutMillis, TimeUnit.MILLISECONDS);
    }
    HttpRequest request = ByteArrayRequests.withMethod(builder.build(), method);
    HttpResponse<byte[]> response;
    try {
      response = http.sendAsync(request, byte[].class).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw KubernetesClientException.launderThrowable(new InterruptedIOException(e.getMessage()));
    } catch (ExecutionException e) {
      throw KubernetesClientException.launderThrowable(e.getCause());
    }
    if (!response.isSuccessful()) {
      throw OperationSupport.requestFailure(request, ProtobufObjects.failureStatus(response));
    }
    return response;
  }

  /** Whether an answer is in protobuf. */
  public static boolean isProtobuf(HttpResponse<byte[]> response) {
    String contentType = response.header("Content-Type");
    return contentType != null && contentType.startsWith(ProtobufEnvelope.MEDIA_TYPE);
  }
}
